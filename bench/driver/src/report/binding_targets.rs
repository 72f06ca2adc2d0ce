//! The targets tables of the bindings' rows (Python, Node, Swift): each rate held to a multiple
//! of the best reference row of the same run, ceilings, and cold start against the bare
//! interpreter's. Kept apart from `report.rs` (aggregation, the main tables, the Rust-handler
//! targets) because the three bindings share one table writer, [`binding_targets`], and its
//! per-binding settings; `report.rs` only calls the three `*_targets` functions.

use super::{fmt, header, med, Agg, Context};
use crate::{Kind, Lang, Spec, SMOKE_MODES};
use std::fmt::Write as _;

/// What a binding's rows must reach: rates as multiples of the best reference row of the same run
/// (the official SDK rows of the binding's language, or ferromcp's Rust-handler row), an absolute
/// ceiling per metric, and a cold start within a margin of the bare interpreter's.
struct BindingTargets {
    lang: Lang,
    title: &'static str,
    /// The rows each rate is held against (the best of them in the run), named in the prose and
    /// the table's header, and shortly in the target column ("≥ 10× official").
    reference: fn(&Spec) -> bool,
    against: &'static str,
    short: &'static str,
    /// (transport, metric, at least this many times the reference figure)
    rates: &'static [(&'static str, &'static str, f64)],
    /// (transport, metric, at most this much)
    ceilings: &'static [(&'static str, &'static str, f64)],
    /// The cold-start target: the bare interpreter's cold start (ms) and how it is named; `None`
    /// when the binding has no cold-start target (a note says why).
    cold: Result<(Option<f64>, &'static str), &'static str>,
}

/// Every rate the driver measures, each at least `factor` times the reference.
const fn all_rates(factor: f64) -> [(&'static str, &'static str, f64); 8] {
    [
        ("stdio", "seq_rate", factor),
        ("stdio", "pipe_rate", factor),
        ("http-stateful", "c1_rate", factor),
        ("http-stateful", "cN_rate", factor),
        ("http-stateless", "c1_rate", factor),
        ("http-stateless", "cN_rate", factor),
        ("http-json", "c1_rate", factor),
        ("http-json", "cN_rate", factor),
    ]
}

/// The Python targets: every rate >= 10x the best official Python SDK row of the same run, and
/// cold start within 30 ms of a bare `python -c pass`.
pub(super) fn python_targets(
    md: &mut String,
    specs: &[Spec],
    selected: &[usize],
    agg: &Agg,
    ctx: &Context,
) {
    const RATES: [(&str, &str, f64); 8] = all_rates(10.0);
    let t = BindingTargets {
        lang: Lang::Python,
        title: "Python handlers",
        reference: |s| s.kind == Kind::Official && s.lang == Lang::Python,
        against: "official Python SDK",
        short: "official",
        rates: &RATES,
        ceilings: &[],
        cold: Ok((ctx.python_pass_ms, "python -c pass")),
    };
    binding_targets(md, specs, selected, agg, ctx, &t);
}

/// The Node targets (issue 12): stdio pipelined >= 3x the TypeScript SDK, HTTP at 32 clients
/// >= 10x in every mode, cold start within 30 ms of a bare `node -e 0`, idle session <= 5 KiB.
pub(super) fn node_targets(
    md: &mut String,
    specs: &[Spec],
    selected: &[usize],
    agg: &Agg,
    ctx: &Context,
) {
    const RATES: [(&str, &str, f64); 4] = [
        ("stdio", "pipe_rate", 3.0),
        ("http-stateful", "cN_rate", 10.0),
        ("http-stateless", "cN_rate", 10.0),
        ("http-json", "cN_rate", 10.0),
    ];
    let t = BindingTargets {
        lang: Lang::TypeScript,
        title: "Node handlers",
        reference: |s| s.kind == Kind::Official && s.lang == Lang::TypeScript,
        against: "TypeScript SDK",
        short: "official",
        rates: &RATES,
        ceilings: &[("http-stateful", "idle_kib", 5.0)],
        cold: Ok((ctx.node_zero_ms, "node -e 0")),
    };
    binding_targets(md, specs, selected, agg, ctx, &t);
}

/// The Swift targets: every rate within 2x of ferromcp's Rust-handler row (Swift / Rust >= 0.5).
/// No cold-start target: on Linux the row starts through scripts/swift's chroot (see Notes).
pub(super) fn swift_targets(
    md: &mut String,
    specs: &[Spec],
    selected: &[usize],
    agg: &Agg,
    ctx: &Context,
) {
    const RATES: [(&str, &str, f64); 8] = all_rates(0.5);
    let t = BindingTargets {
        lang: Lang::Swift,
        title: "Swift handler",
        reference: |s| s.kind == Kind::Ferro && s.lang == Lang::Rust,
        against: "ferromcp Rust-handler",
        short: "Rust handler",
        rates: &RATES,
        ceilings: &[],
        cold: Err("no cold-start target (how scripts/swift starts the row: see Notes)"),
    };
    binding_targets(md, specs, selected, agg, ctx, &t);
}

/// A ratio to a reference figure: two decimals below 1 (where a 0.5× target is read), one above.
fn ratio(r: f64) -> String {
    if r < 1.0 {
        format!("{r:.2}×")
    } else {
        format!("{r:.1}×")
    }
}

/// The verdict of a target with no figure: a smoke run leaves some HTTP modes out.
fn not_measured(transport: &str, ctx: &Context) -> &'static str {
    let skipped = transport
        .strip_prefix("http-")
        .is_some_and(|m| !SMOKE_MODES.contains(&m));
    if ctx.smoke && skipped {
        "not measured (smoke run)"
    } else {
        "not measured"
    }
}

fn binding_targets(
    md: &mut String,
    specs: &[Spec],
    selected: &[usize],
    agg: &Agg,
    ctx: &Context,
    t: &BindingTargets,
) {
    let of = |kind: Kind| -> Vec<usize> {
        selected
            .iter()
            .copied()
            .filter(|&i| specs[i].kind == kind && specs[i].lang == t.lang)
            .collect()
    };
    let rows = of(Kind::Ferro);
    let refs: Vec<usize> = selected
        .iter()
        .copied()
        .filter(|&i| (t.reference)(&specs[i]))
        .collect();
    if rows.is_empty() {
        return;
    }
    let _ = writeln!(md, "### Targets (ferromcp, {})\n", t.title);
    let cold = match t.cold {
        Ok((ms, bare)) => format!(
            "cold start against a bare `{bare}` of the same interpreter ({})",
            ms.map(|v| format!("{} ms, median of 5", fmt(v)))
                .unwrap_or_else(|| "not measured".into())
        ),
        Err(why) => why.to_string(),
    };
    let _ = writeln!(md, "Each rate against the faster of the {} rows measured in this run (named in the table); {cold}.\n",
        t.against);
    let _ = writeln!(
        md,
        "| ferromcp row | transport | metric | target | measured | {} (best row) | ratio | |",
        t.against
    );
    let _ = writeln!(md, "|---|---|---|---:|---:|---:|---:|---|");
    for &i in &rows {
        let name = specs[i].name;
        if let Some(na) = &specs[i].na {
            let _ = writeln!(md, "| {name} | | | | {na} | | | not measured |");
            continue;
        }
        for &(tr, k, factor) in t.rates {
            let best = refs
                .iter()
                .filter_map(|&o| med(agg, o, tr, k).map(|v| (o, v)))
                .max_by(|a, b| a.1.partial_cmp(&b.1).unwrap());
            let v = med(agg, i, tr, k);
            let (measured, off, ratio, verdict) = match (v, best) {
                (Some(v), Some((o, b))) if b > 0.0 => (
                    fmt(v),
                    format!("{} ({})", fmt(b), specs[o].name),
                    ratio(v / b),
                    if v >= factor * b { "met" } else { "**missed**" },
                ),
                (Some(v), _) => (fmt(v), "–".into(), "–".into(), "no reference figure"),
                (None, _) => ("–".into(), "–".into(), "–".into(), not_measured(tr, ctx)),
            };
            let _ = writeln!(
                md,
                "| {name} | {tr} | {} | ≥ {factor}× {} | {measured} | {off} | {ratio} | {verdict} |",
                header(k, ctx.load),
                t.short
            );
        }
        for &(tr, k, max) in t.ceilings {
            let (measured, verdict) = match med(agg, i, tr, k) {
                Some(v) => (fmt(v), if v <= max { "met" } else { "**missed**" }),
                None => ("–".into(), not_measured(tr, ctx)),
            };
            let _ = writeln!(
                md,
                "| {name} | {tr} | {} | ≤ {} | {measured} | | | {verdict} |",
                header(k, ctx.load),
                fmt(max)
            );
        }
        let Ok((bare_ms, bare)) = t.cold else {
            continue;
        };
        let cold = med(agg, i, "stdio", "cold_ms");
        let (measured, verdict) = match (cold, bare_ms) {
            (Some(c), Some(p)) => (fmt(c), if c <= p + 30.0 { "met" } else { "**missed**" }),
            (Some(c), None) => (fmt(c), "no bare start figure"),
            _ => ("–".into(), "not measured"),
        };
        let target = bare_ms
            .map(|p| format!("≤ {} ({bare} + 30)", fmt(p + 30.0)))
            .unwrap_or_else(|| format!("{bare} + 30"));
        let _ = writeln!(
            md,
            "| {name} | stdio | cold start ms | {target} | {measured} | | | {verdict} |"
        );
    }
    let _ = writeln!(md);
}
