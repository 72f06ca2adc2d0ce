//! The one tokio runtime the Python, Node and Swift bindings run the engine on: its shape per
//! binding, the environment variables that change it, and the wait policy of its threads.
//!
//! The runtime's threads are the engine's own, so they get the engine's [`WaitPolicy`] (spinning
//! for [`WaitPolicy::DEFAULT_SPIN`] by default, see [`ferromcp::wait`]); a user's own Rust runtime
//! never goes through here and parks.
//!
//! | variable | values | default | old name still read |
//! | --- | --- | --- | --- |
//! | `FERROMCP_WORKERS` | worker threads, 1 to 64 | Python 2, Node 1, Swift 1 | `FERROMCP_TOKIO_WORKERS` (Python), `FERROMCP_NODE_WORKERS` (Node), `FERROMCP_SWIFT_WORKERS` (Swift) |
//! | `FERROMCP_WAIT_POLICY` | `park`, `spin`, `spin:<µs>` (1 to 1000) | `spin` (60 µs) | `FERROMCP_ANSWER_WAIT` (`0`: park, `1`: spin) |
//!
//! An empty variable counts as unset. A value outside these is an error naming the variable,
//! the value and what it accepts ([`RuntimeSettingsError`]); the binding reports it when it
//! loads (an exception in Python, a message and an abort in Node and Swift) rather than
//! guessing. When a new name and its old name are both set, they must agree.
//!
//! Shapes: Python and Node get a multi-threaded runtime with that many workers. Swift with one
//! worker gets a current-thread runtime driven by a thread of its own (`ferromcp-worker`; no
//! cross-worker wake-ups, bench/servers' current-thread row), with more a multi-threaded one.

use ferromcp::wait::WaitPolicy;
use std::fmt;
use std::sync::{Arc, OnceLock};
use tokio::runtime::Runtime;

/// Which binding a runtime is for: its default worker count, shape and old variable names.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Binding {
    /// ferromcp for Python (PyO3).
    Python,
    /// ferromcp for Node.js (napi-rs).
    Node,
    /// ferromcp for Swift (UniFFI).
    Swift,
}

/// The variable that sets the worker count.
pub const WORKERS_VAR: &str = "FERROMCP_WORKERS";
/// The variable that sets the wait policy of the engine's threads.
pub const WAIT_POLICY_VAR: &str = "FERROMCP_WAIT_POLICY";
/// The old name of [`WAIT_POLICY_VAR`] (`0` parks, `1` spins), still read.
pub const OLD_WAIT_VAR: &str = "FERROMCP_ANSWER_WAIT";
/// The most worker threads a runtime may have.
pub const MAX_WORKERS: usize = 64;

impl Binding {
    /// The worker count when no variable sets one.
    ///
    /// Python: 2 (one worker was measured and not kept: on the 2-core machine its 32-client HTTP
    /// rates came out lower and its 1-client rates no better, bench/results/python-rows.md).
    /// Node and Swift: 1 (a handler call already crosses threads twice; with more workers the
    /// tasks of one call also wake each other across workers, each wake-up tens of µs of CPU on
    /// a VM, while the engine's own work per call is a few µs).
    pub fn default_workers(self) -> usize {
        match self {
            Binding::Python => 2,
            Binding::Node | Binding::Swift => 1,
        }
    }

    /// The binding's old name for [`WORKERS_VAR`], still read.
    pub fn old_workers_var(self) -> &'static str {
        match self {
            Binding::Python => "FERROMCP_TOKIO_WORKERS",
            Binding::Node => "FERROMCP_NODE_WORKERS",
            Binding::Swift => "FERROMCP_SWIFT_WORKERS",
        }
    }

    /// The name of the runtime's threads.
    fn thread_name(self) -> &'static str {
        match self {
            Binding::Python => "ferromcp-tokio",
            Binding::Node | Binding::Swift => "ferromcp-worker",
        }
    }
}

/// A variable of the runtime's environment whose value it cannot use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuntimeSettingsError {
    variable: String,
    value: String,
    reason: String,
}

impl RuntimeSettingsError {
    /// The variable at fault.
    pub fn variable(&self) -> &str {
        &self.variable
    }
}

impl fmt::Display for RuntimeSettingsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}={:?}: {}", self.variable, self.value, self.reason)
    }
}

impl std::error::Error for RuntimeSettingsError {}

/// How the engine's runtime is made: its worker count and its threads' wait policy.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RuntimeSettings {
    /// Worker threads (1 to [`MAX_WORKERS`]).
    pub workers: usize,
    /// The wait policy of the runtime's threads (and of the binding's hand-over threads).
    pub wait: WaitPolicy,
}

impl RuntimeSettings {
    /// The defaults of `binding`: its worker count ([`Binding::default_workers`]) and
    /// [`WaitPolicy::spin`].
    pub fn defaults(binding: Binding) -> Self {
        RuntimeSettings {
            workers: binding.default_workers(),
            wait: WaitPolicy::spin(),
        }
    }

    /// The settings of `binding` from the process's environment (see the
    /// [module documentation](self)).
    pub fn from_env(binding: Binding) -> Result<Self, RuntimeSettingsError> {
        Self::from_lookup(binding, |name| std::env::var(name).ok())
    }

    /// The settings of `binding` from variables read through `lookup` (`None`: unset).
    pub fn from_lookup(
        binding: Binding,
        lookup: impl Fn(&str) -> Option<String>,
    ) -> Result<Self, RuntimeSettingsError> {
        let read = |name: &str| lookup(name).filter(|v| !v.trim().is_empty());
        let mut s = Self::defaults(binding);
        let workers = either(
            (WORKERS_VAR, read(WORKERS_VAR)),
            (binding.old_workers_var(), read(binding.old_workers_var())),
            parse_workers,
        )?;
        if let Some(n) = workers {
            s.workers = n;
        }
        s.wait = Self::wait_from_lookup(&lookup)?;
        Ok(s)
    }

    /// The wait policy of the engine's own threads from variables read through `lookup`
    /// (`None`, or blank: unset): [`WAIT_POLICY_VAR`] or its old name [`OLD_WAIT_VAR`], else
    /// [`WaitPolicy::spin`]. The bindings' runtimes get it through [`Self::from_lookup`]; the
    /// `ferromcp` command, whose threads are the engine's too, reads it here.
    pub fn wait_from_lookup(
        lookup: impl Fn(&str) -> Option<String>,
    ) -> Result<WaitPolicy, RuntimeSettingsError> {
        let read = |name: &str| lookup(name).filter(|v| !v.trim().is_empty());
        let wait = either(
            (WAIT_POLICY_VAR, read(WAIT_POLICY_VAR)),
            (OLD_WAIT_VAR, read(OLD_WAIT_VAR)),
            |name, v| {
                if name == OLD_WAIT_VAR {
                    parse_old_wait(v)
                } else {
                    v.parse::<WaitPolicy>().map_err(|e| e.to_string())
                }
            },
        )?;
        Ok(wait.unwrap_or_else(WaitPolicy::spin))
    }

    /// Builds `binding`'s runtime with these settings; its threads get [`Self::wait`], which
    /// [`engine_wait_policy`] also reports from now on.
    pub fn build(self, binding: Binding) -> std::io::Result<Arc<Runtime>> {
        self.build_with_park_hook(binding, None)
    }

    /// As [`Self::build`], with `on_park` run each time a runtime thread is about to park (the
    /// Swift binding notes that its thread went idle).
    pub fn build_with_park_hook(
        self,
        binding: Binding,
        on_park: Option<fn()>,
    ) -> std::io::Result<Arc<Runtime>> {
        let _ = ENGINE_WAIT.set(self.wait);
        let wait = self.wait;
        if binding == Binding::Swift && self.workers == 1 {
            let mut b = tokio::runtime::Builder::new_current_thread();
            if let Some(f) = on_park {
                b.on_thread_park(f);
            }
            let rt = Arc::new(b.enable_all().build()?);
            let driven = rt.clone();
            // The thread that runs every task spawned onto it, for the life of the process.
            std::thread::Builder::new()
                .name(binding.thread_name().into())
                .spawn(move || {
                    wait.set_for_this_thread();
                    driven.block_on(std::future::pending::<()>())
                })?;
            return Ok(rt);
        }
        let mut b = tokio::runtime::Builder::new_multi_thread();
        b.worker_threads(self.workers)
            .thread_name(binding.thread_name())
            .on_thread_start(move || wait.set_for_this_thread());
        if let Some(f) = on_park {
            b.on_thread_park(f);
        }
        Ok(Arc::new(b.enable_all().build()?))
    }

    /// A current-thread runtime for a thread the binding drives itself (Python's stdio
    /// session), with `on_park` run before its thread parks. The driving thread must call
    /// [`WaitPolicy::set_for_this_thread`] with [`Self::wait`] (it is the engine's too).
    pub fn build_current_thread(self, on_park: Option<fn()>) -> std::io::Result<Runtime> {
        let _ = ENGINE_WAIT.set(self.wait);
        let mut b = tokio::runtime::Builder::new_current_thread();
        if let Some(f) = on_park {
            b.on_thread_park(f);
        }
        b.enable_all().build()
    }
}

/// The wait policy of the engine's threads, once a binding built its runtime
/// ([`RuntimeSettings::build`]); [`WaitPolicy::Park`] before. A binding's own hand-over threads
/// (Python's sync-handler pool and its asyncio loop's inbox) wait by it.
pub fn engine_wait_policy() -> WaitPolicy {
    ENGINE_WAIT.get().copied().unwrap_or(WaitPolicy::Park)
}

static ENGINE_WAIT: OnceLock<WaitPolicy> = OnceLock::new();

/// The value of a setting named by a new variable and an old one: the one set, or both when
/// they agree; `parse` reads one (given its name), and says why a value is refused.
fn either<T: PartialEq>(
    new: (&str, Option<String>),
    old: (&str, Option<String>),
    parse: impl Fn(&str, &str) -> Result<T, String>,
) -> Result<Option<T>, RuntimeSettingsError> {
    let read = |(name, value): &(&str, Option<String>)| -> Result<Option<T>, RuntimeSettingsError> {
        value
            .as_deref()
            .map(|v| {
                parse(name, v).map_err(|reason| RuntimeSettingsError {
                    variable: name.to_string(),
                    value: v.to_string(),
                    reason,
                })
            })
            .transpose()
    };
    let a = read(&new)?;
    let b = read(&old)?;
    match (a, b) {
        (Some(a), Some(b)) if a != b => Err(RuntimeSettingsError {
            variable: new.0.to_string(),
            value: new.1.unwrap_or_default(),
            reason: format!(
                "disagrees with {}={:?} (its old name); set one of them",
                old.0,
                old.1.unwrap_or_default()
            ),
        }),
        (Some(a), _) => Ok(Some(a)),
        (None, b) => Ok(b),
    }
}

fn parse_workers(_name: &str, v: &str) -> Result<usize, String> {
    let range = format!("expected a whole number of worker threads from 1 to {MAX_WORKERS}");
    match v.trim().parse::<usize>() {
        Ok(n) if (1..=MAX_WORKERS).contains(&n) => Ok(n),
        Ok(_) => Err(format!("out of range; {range}")),
        Err(_) => Err(format!("not a whole number; {range}")),
    }
}

fn parse_old_wait(v: &str) -> Result<WaitPolicy, String> {
    match v.trim() {
        "0" => Ok(WaitPolicy::Park),
        "1" => Ok(WaitPolicy::spin()),
        _ => Err(format!(
            "expected 0 (park) or 1 (spin); {WAIT_POLICY_VAR} takes `park`, `spin` or `spin:<microseconds>`"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn settings(binding: Binding, vars: &[(&str, &str)]) -> Result<RuntimeSettings, String> {
        RuntimeSettings::from_lookup(binding, |name| {
            vars.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.to_string())
        })
        .map_err(|e| e.to_string())
    }

    #[test]
    fn unset_variables_give_each_bindings_defaults() {
        for (b, n) in [
            (Binding::Python, 2),
            (Binding::Node, 1),
            (Binding::Swift, 1),
        ] {
            let s = settings(b, &[]).unwrap();
            assert_eq!(s.workers, n);
            assert_eq!(s.wait, WaitPolicy::spin());
        }
        // Empty values count as unset.
        let s = settings(Binding::Node, &[(WORKERS_VAR, ""), (WAIT_POLICY_VAR, " ")]).unwrap();
        assert_eq!(s, RuntimeSettings::defaults(Binding::Node));
    }

    /// What the `ferromcp` command's threads get (it has no binding): unset or blank, they spin
    /// as the bindings' do; a value is read as `WaitPolicy` reads it, and a bad one is an error
    /// naming the variable.
    #[test]
    fn the_wait_policy_spins_unless_told_otherwise() {
        let wait = |value: Option<&str>| {
            RuntimeSettings::wait_from_lookup(|name| {
                (name == WAIT_POLICY_VAR).then(|| value.map(str::to_string))?
            })
            .map_err(|e| e.to_string())
        };
        assert_eq!(wait(None), Ok(WaitPolicy::spin()));
        assert_eq!(wait(Some("  ")), Ok(WaitPolicy::spin()));
        assert_eq!(wait(Some("park")), Ok(WaitPolicy::Park));
        assert_eq!(
            wait(Some("spin:200")),
            Ok(WaitPolicy::spin_for(Duration::from_micros(200)))
        );
        let err = wait(Some("sometimes")).unwrap_err();
        assert!(
            err.starts_with("FERROMCP_WAIT_POLICY=\"sometimes\": "),
            "{err}"
        );
    }

    #[test]
    fn the_workers_variable_and_each_bindings_old_name_set_the_count() {
        assert_eq!(
            settings(Binding::Python, &[("FERROMCP_WORKERS", "4")])
                .unwrap()
                .workers,
            4
        );
        assert_eq!(
            settings(Binding::Python, &[("FERROMCP_TOKIO_WORKERS", "3")])
                .unwrap()
                .workers,
            3
        );
        assert_eq!(
            settings(Binding::Node, &[("FERROMCP_NODE_WORKERS", "2")])
                .unwrap()
                .workers,
            2
        );
        assert_eq!(
            settings(Binding::Swift, &[("FERROMCP_SWIFT_WORKERS", "5")])
                .unwrap()
                .workers,
            5
        );
        // Another binding's old name is not this one's.
        assert_eq!(
            settings(Binding::Node, &[("FERROMCP_SWIFT_WORKERS", "5")])
                .unwrap()
                .workers,
            1
        );
        // Both names, agreeing.
        let both = [("FERROMCP_WORKERS", "2"), ("FERROMCP_NODE_WORKERS", " 2 ")];
        assert_eq!(settings(Binding::Node, &both).unwrap().workers, 2);
    }

    #[test]
    fn bad_worker_counts_are_refused_with_the_variable_and_the_range() {
        for (var, value, reason) in [
            ("FERROMCP_WORKERS", "abc", "not a whole number"),
            ("FERROMCP_WORKERS", "0", "out of range"),
            ("FERROMCP_WORKERS", "65", "out of range"),
            ("FERROMCP_WORKERS", "-1", "not a whole number"),
            ("FERROMCP_TOKIO_WORKERS", "2.5", "not a whole number"),
        ] {
            let e = settings(Binding::Python, &[(var, value)]).unwrap_err();
            assert!(e.starts_with(&format!("{var}={value:?}: {reason}")), "{e}");
            assert!(e.contains("from 1 to 64"), "{e}");
        }
    }

    #[test]
    fn a_new_name_and_an_old_one_that_disagree_are_refused() {
        let e = settings(
            Binding::Swift,
            &[("FERROMCP_WORKERS", "2"), ("FERROMCP_SWIFT_WORKERS", "3")],
        )
        .unwrap_err();
        assert_eq!(
            e,
            "FERROMCP_WORKERS=\"2\": disagrees with FERROMCP_SWIFT_WORKERS=\"3\" (its old name); set one of them"
        );
        let e = settings(
            Binding::Node,
            &[
                ("FERROMCP_WAIT_POLICY", "spin"),
                ("FERROMCP_ANSWER_WAIT", "0"),
            ],
        )
        .unwrap_err();
        assert!(e.contains("disagrees with FERROMCP_ANSWER_WAIT"), "{e}");
    }

    #[test]
    fn the_wait_policy_variable_and_its_old_name_set_the_policy() {
        let s = settings(Binding::Python, &[("FERROMCP_WAIT_POLICY", "park")]).unwrap();
        assert_eq!(s.wait, WaitPolicy::Park);
        let s = settings(Binding::Python, &[("FERROMCP_WAIT_POLICY", "spin:20")]).unwrap();
        assert_eq!(s.wait, WaitPolicy::spin_for(Duration::from_micros(20)));
        let s = settings(Binding::Python, &[("FERROMCP_ANSWER_WAIT", "0")]).unwrap();
        assert_eq!(s.wait, WaitPolicy::Park);
        let s = settings(Binding::Python, &[("FERROMCP_ANSWER_WAIT", "1")]).unwrap();
        assert_eq!(s.wait, WaitPolicy::spin());
    }

    #[test]
    fn bad_wait_policies_are_refused_with_the_variable() {
        let e = settings(Binding::Node, &[("FERROMCP_WAIT_POLICY", "fast")]).unwrap_err();
        assert!(e.starts_with("FERROMCP_WAIT_POLICY=\"fast\": "), "{e}");
        assert!(e.contains("`park`, `spin` or `spin:<microseconds>`"), "{e}");
        let e = settings(Binding::Node, &[("FERROMCP_ANSWER_WAIT", "off")]).unwrap_err();
        assert!(
            e.starts_with("FERROMCP_ANSWER_WAIT=\"off\": expected 0 (park) or 1 (spin)"),
            "{e}"
        );
    }

    /// The policy of the thread a task spawned on `rt` runs on (this thread never drives it).
    fn policy_of_task_on(rt: &Runtime) -> WaitPolicy {
        let (tx, rx) = std::sync::mpsc::channel();
        rt.spawn(async move { tx.send(WaitPolicy::here()).unwrap() });
        rx.recv().unwrap()
    }

    #[test]
    fn the_engines_threads_get_its_wait_policy() {
        let s = RuntimeSettings {
            workers: 2,
            wait: WaitPolicy::spin_for(Duration::from_micros(30)),
        };
        let rt = s.build(Binding::Python).unwrap();
        assert_eq!(policy_of_task_on(&rt), s.wait);
        let wait = WaitPolicy::spin_for(Duration::from_micros(40));
        let rt = RuntimeSettings { workers: 1, wait }
            .build(Binding::Swift)
            .unwrap();
        // Swift's one-worker runtime runs its tasks on its own thread.
        assert_eq!(policy_of_task_on(&rt), wait);
        // This thread is not the engine's.
        assert_eq!(WaitPolicy::here(), WaitPolicy::Park);
    }
}
