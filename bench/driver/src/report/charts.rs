//! The report's SVG bar charts (stdio latency, stdio pipelined rate, HTTP rate at 32 clients),
//! drawn by hand so the benchmark needs no plotting dependency. Kept apart from the Markdown
//! tables in `report.rs`, which only calls [`charts`].

use super::{fmt, med, Agg};
use crate::{Spec, MODES};
use std::fmt::Write as _;
use std::path::Path;

/// Horizontal bar chart with a log scale (values span two to three orders of magnitude).
fn bar_chart(title: &str, unit: &str, bars: &[(String, f64)], better: &str) -> String {
    let w = 860.0;
    let left = 330.0;
    let bar_h = 22.0;
    let gap = 8.0;
    let top = 50.0;
    let h = top + bars.len() as f64 * (bar_h + gap) + 40.0;
    let maxv = bars.iter().map(|b| b.1).fold(1.0f64, f64::max);
    let minv = bars
        .iter()
        .map(|b| b.1)
        .filter(|v| *v > 0.0)
        .fold(maxv, f64::min);
    let lo = 10f64.powf((minv.log10() - 0.3).floor());
    let hi = 10f64.powf(maxv.log10().ceil().max(lo.log10() + 1.0));
    let x = |v: f64| {
        left + (v.max(lo).log10() - lo.log10()) / (hi.log10() - lo.log10()) * (w - left - 90.0)
    };
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="13">"#
    );
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="10" y="22" font-size="16" font-weight="bold">{}</text>"#,
        esc(title)
    );
    let _ = writeln!(
        s,
        r##"<text x="10" y="40" fill="#555">{} — log scale, {}</text>"##,
        esc(unit),
        esc(better)
    );
    let mut d = lo;
    while d <= hi * 1.001 {
        let xx = x(d);
        let _ = writeln!(
            s,
            r##"<line x1="{xx:.1}" y1="{top}" x2="{xx:.1}" y2="{:.1}" stroke="#ddd"/>"##,
            h - 30.0
        );
        let _ = writeln!(
            s,
            r##"<text x="{xx:.1}" y="{:.1}" text-anchor="middle" fill="#555">{}</text>"##,
            h - 14.0,
            fmt(d)
        );
        d *= 10.0;
    }
    for (k, (label, v)) in bars.iter().enumerate() {
        let y = top + k as f64 * (bar_h + gap);
        let color = if label.starts_with("ferromcp") {
            "#d9480f"
        } else if label.starts_with("floor") {
            "#868e96"
        } else {
            "#1c7ed6"
        };
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
            left - 8.0,
            y + 16.0,
            esc(label)
        );
        let _ = writeln!(
            s,
            r#"<rect x="{left}" y="{y:.1}" width="{:.1}" height="{bar_h}" fill="{color}"/>"#,
            (x(*v) - left).max(1.0)
        );
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}">{}</text>"#,
            x(*v) + 5.0,
            y + 16.0,
            fmt(*v)
        );
    }
    s.push_str("</svg>\n");
    s
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

pub(super) fn charts(out: &Path, specs: &[Spec], selected: &[usize], agg: &Agg) {
    let collect = |t: &str, k: &str| -> Vec<(String, f64)> {
        selected
            .iter()
            .filter_map(|&i| med(agg, i, t, k).map(|v| (specs[i].name.to_string(), v)))
            .collect()
    };
    let _ = std::fs::write(
        out.join("stdio_latency.svg"),
        bar_chart(
            "stdio: sequential tools/call latency (p50)",
            "µs",
            &collect("stdio", "seq_p50_us"),
            "shorter is better",
        ),
    );
    let _ = std::fs::write(
        out.join("stdio_throughput.svg"),
        bar_chart(
            "stdio: pipelined tools/call rate (64 in flight)",
            "calls/s",
            &collect("stdio", "pipe_rate"),
            "longer is better",
        ),
    );
    let mut bars = Vec::new();
    for mode in MODES {
        for (n, v) in collect(&format!("http-{mode}"), "cN_rate") {
            bars.push((format!("{n} [{mode}]"), v));
        }
    }
    let _ = std::fs::write(
        out.join("http_throughput.svg"),
        bar_chart(
            "Streamable HTTP: tools/call rate at 32 clients",
            "calls/s",
            &bars,
            "longer is better",
        ),
    );
}
