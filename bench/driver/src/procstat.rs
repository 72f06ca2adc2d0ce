//! Server-side CPU time and memory from /proc, and stopping a server process.

/// CPU time (ns) of all live threads of `pid`, from /proc/PID/task/*/schedstat; falls back to
/// utime+stime of /proc/PID/stat (10 ms ticks) when schedstat is unavailable.
pub fn cpu_ns(pid: u32) -> Option<u64> {
    let mut total = 0u64;
    let mut any = false;
    if let Ok(dir) = std::fs::read_dir(format!("/proc/{pid}/task")) {
        for e in dir.flatten() {
            if let Ok(s) = std::fs::read_to_string(e.path().join("schedstat")) {
                if let Some(ns) = s
                    .split_whitespace()
                    .next()
                    .and_then(|x| x.parse::<u64>().ok())
                {
                    total += ns;
                    any = true;
                }
            }
        }
    }
    if any {
        return Some(total);
    }
    let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &s[s.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?;
    Some(ticks * 10_000_000)
}

/// Voluntary context switches of all live threads of `pid` (/proc/PID/task/*/status): each is a
/// thread going to sleep to wait (for input, a lock, another thread), so per call it counts the
/// hand-overs a call costs, whatever else runs on the machine.
pub fn voluntary_switches(pid: u32) -> Option<u64> {
    let mut total = 0u64;
    let mut any = false;
    for e in std::fs::read_dir(format!("/proc/{pid}/task"))
        .ok()?
        .flatten()
    {
        let Ok(s) = std::fs::read_to_string(e.path().join("status")) else {
            continue;
        };
        if let Some(n) = s
            .lines()
            .find_map(|l| l.strip_prefix("voluntary_ctxt_switches:"))
            .and_then(|v| v.trim().parse::<u64>().ok())
        {
            total += n;
            any = true;
        }
    }
    any.then_some(total)
}

/// Resident set size of `pid` in KiB.
pub fn rss_kib(pid: u32) -> Option<u64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    s.lines()
        .find(|l| l.starts_with("VmRSS:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

/// The 1-minute load average.
pub fn loadavg() -> f64 {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().and_then(|x| x.parse().ok()))
        .unwrap_or(f64::NAN)
}

/// How idle CPUs wait, as one line for the report: the cpuidle driver and governor, and on a KVM
/// guest with the haltpoll driver its `guest_halt_poll_ns`.
///
/// On a VM this decides what a round trip between two processes costs: an idle vCPU that halts
/// at once must be woken by the host (tens of microseconds here), one that polls first picks the
/// hand-over up in a few. Every sequential and 1-client figure depends on it, for every server.
pub fn cpu_idle() -> String {
    let read = |p: &str| {
        std::fs::read_to_string(p)
            .ok()
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
    };
    let driver = read("/sys/devices/system/cpu/cpuidle/current_driver");
    let governor = read("/sys/devices/system/cpu/cpuidle/current_governor")
        .or_else(|| read("/sys/devices/system/cpu/cpuidle/current_governor_ro"));
    let mut out = match (driver, governor) {
        (Some(d), Some(g)) => format!("cpuidle driver `{d}`, governor `{g}`"),
        (Some(d), None) => format!("cpuidle driver `{d}`"),
        (None, _) => "no cpuidle driver reported".to_string(),
    };
    if let Some(ns) = read("/sys/module/haltpoll/parameters/guest_halt_poll_ns") {
        out.push_str(&format!(", `guest_halt_poll_ns` {ns}"));
    }
    out
}

/// Pins the calling thread and every thread of `pid` to CPU `cpu` (`None`: back to every CPU).
///
/// The sequential-latency phases run once more pinned: on this kind of VM an idle vCPU's
/// wake-up costs microseconds, and with the client and the server on one CPU each hand-over is
/// a local switch, so what remains is the software path. False if any thread could not be set.
pub fn pin(pid: u32, cpu: Option<usize>) -> bool {
    // SAFETY: cpu_set_t is plain data; the CPU_* helpers write within it.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // Not available_parallelism(): that follows this thread's affinity, which an earlier pin
    // has narrowed.
    // SAFETY: sysconf only reads a system setting.
    let all = usize::try_from(unsafe { libc::sysconf(libc::_SC_NPROCESSORS_CONF) })
        .unwrap_or(1)
        .clamp(1, 1024);
    for c in 0..all {
        if cpu.is_none_or(|want| want == c) {
            // SAFETY: `c` is below the number of CPUs, well within CPU_SETSIZE.
            unsafe { libc::CPU_SET(c, &mut set) };
        }
    }
    let set_tid = |tid: i32| {
        // SAFETY: `set` is a valid cpu_set_t of the size passed.
        unsafe { libc::sched_setaffinity(tid, std::mem::size_of::<libc::cpu_set_t>(), &set) == 0 }
    };
    let mut ok = set_tid(0);
    if let Ok(dir) = std::fs::read_dir(format!("/proc/{pid}/task")) {
        for e in dir.flatten() {
            if let Some(tid) = e.file_name().to_str().and_then(|t| t.parse::<i32>().ok()) {
                ok &= set_tid(tid);
            }
        }
    }
    ok
}

/// The CPU the calling thread runs on now.
pub fn current_cpu() -> usize {
    // SAFETY: sched_getcpu takes no arguments and returns -1 on failure.
    let c = unsafe { libc::sched_getcpu() };
    usize::try_from(c).unwrap_or(0)
}

/// Stops a server process: SIGTERM first (lets a profiler wrapper write its data), SIGKILL if it
/// is still running after 3 s; reaps it either way.
pub fn terminate(child: &mut std::process::Child) {
    // SAFETY: kill(2) on our own child's pid; no memory is shared.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(3);
    while std::time::Instant::now() < deadline {
        if let Ok(Some(_)) = child.try_wait() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let _ = child.kill();
    let _ = child.wait();
}
