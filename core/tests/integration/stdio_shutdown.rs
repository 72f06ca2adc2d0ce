//! Proves the stdio shutdown sequence of the spec through `Client::spawn` / `Client::close`:
//! close the server's stdin, wait, SIGTERM, wait, SIGKILL, within the configured graces; the
//! server's whole process group (a grandchild) is gone afterwards; a server dying mid-request
//! fails the pending call promptly with a connection-closed error, and other clients in the
//! process are unaffected.

use crate::support;

use ferromcp::client::{Client, ClientHandlers, ClientOptions};
use ferromcp::codes;
use ferromcp::transport::{ChildProcessOptions, StderrMode};
use serde_json::json;
use std::path::PathBuf;
use std::time::{Duration, Instant};

const GRACE: Duration = Duration::from_millis(300);
const TERM_GRACE: Duration = Duration::from_millis(400);

/// A minimal MCP server in POSIX sh: answers initialize, ping and tools/list; on tools/call it
/// runs `on_call`; after stdin ends it runs `after_eof`.
fn sh_server(on_call: &str, after_eof: &str) -> ChildProcessOptions {
    let script = format!(
        r#"
respond() {{ printf '{{"jsonrpc":"2.0","id":%s,"result":%s}}\n' "$1" "$2"; }}
while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed -n 's/.*"id":\([^,}}]*\).*/\1/p')
  case "$line" in
    *'"method":"initialize"'*) respond "$id" '{{"protocolVersion":"2025-11-25","capabilities":{{"tools":{{}}}},"serverInfo":{{"name":"sh","version":"1"}}}}' ;;
    *'"method":"ping"'*) respond "$id" '{{}}' ;;
    *'"method":"tools/list"'*) respond "$id" '{{"tools":[]}}' ;;
    *'"method":"tools/call"'*) {on_call} ;;
  esac
done
{after_eof}
"#
    );
    ChildProcessOptions::new("sh")
        .args(["-c", &script])
        .stderr(StderrMode::Null)
        .shutdown_grace(GRACE)
        .term_grace(TERM_GRACE)
}

fn temp(name: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!(
        "ferromcp-stdio-shutdown-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_file(&p);
    p
}

/// True when `pid` no longer runs (absent, or a zombie nobody reaps).
fn is_gone(pid: i32) -> bool {
    // SAFETY: signal 0 only checks for existence.
    if unsafe { libc::kill(pid, 0) } != 0 {
        return std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH);
    }
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
        Err(_) => true,
    }
}

async fn wait_gone(pid: i32) -> bool {
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline {
        if is_gone(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    false
}

async fn spawn(process: ChildProcessOptions) -> Client {
    let mut o = ClientOptions::new("shutdown-test", "1");
    o.session.request_timeout = Some(Duration::from_secs(60));
    o.session.drain_timeout = Duration::from_millis(100);
    support::within(Client::spawn(process, o, ClientHandlers::default()))
        .await
        .expect("spawn")
}

/// Spawns, checks the session works, closes; returns the pid, how long `close()` took and what
/// the server logged.
async fn close_timing(after_eof: &str) -> (i32, Duration, String) {
    let log = temp(&format!("log-{}", after_eof.len()));
    let after_eof = after_eof.replace("$LOG", &log.display().to_string());
    let c = spawn(sh_server(":", &after_eof)).await;
    support::within(c.ping()).await.unwrap();
    let pid = c.child_pid().unwrap() as i32;
    let started = Instant::now();
    support::within(c.close()).await;
    let took = started.elapsed();
    assert!(c.child_pid().is_none());
    let logged = std::fs::read_to_string(&log).unwrap_or_default();
    let _ = std::fs::remove_file(&log);
    (pid, took, logged)
}

#[tokio::test]
async fn server_exiting_on_eof_needs_no_signal() {
    let (pid, took, logged) = close_timing("trap 'echo term >> $LOG' TERM; exit 0").await;
    assert!(took < GRACE, "close took {took:?}");
    assert_eq!(logged, "");
    assert!(wait_gone(pid).await);
}

#[tokio::test]
async fn server_ignoring_eof_gets_sigterm_after_the_grace() {
    let (pid, took, logged) =
        close_timing("trap 'echo term >> $LOG; exit 0' TERM; while :; do sleep 0.02; done").await;
    assert!(took >= GRACE, "SIGTERM came too early: {took:?}");
    assert!(took < GRACE + TERM_GRACE, "no SIGTERM in time: {took:?}");
    assert_eq!(logged.trim(), "term");
    assert!(wait_gone(pid).await);
}

#[tokio::test]
async fn server_ignoring_sigterm_gets_sigkill_after_both_graces() {
    let (pid, took, logged) =
        close_timing("trap 'echo term >> $LOG' TERM; while :; do sleep 0.02; done").await;
    assert!(
        took >= GRACE + TERM_GRACE,
        "SIGKILL came too early: {took:?}"
    );
    assert!(
        took < GRACE + TERM_GRACE + Duration::from_secs(2),
        "close took {took:?}"
    );
    assert!(logged.contains("term"), "SIGTERM was not sent first");
    assert!(wait_gone(pid).await, "server survived SIGKILL");
}

#[tokio::test]
async fn whole_process_group_is_gone_after_close() {
    let pidfile = temp("grandchild");
    // The server starts a grandchild (in its group) and then ignores stdin EOF.
    let process = sh_server(
        ":",
        &format!(
            "sleep 300 & echo $! > {}; while :; do sleep 0.02; done",
            pidfile.display()
        ),
    );
    let c = spawn(process).await;
    support::within(c.ping()).await.unwrap();
    let server_pid = c.child_pid().unwrap() as i32;
    support::within(c.close()).await;
    let grandchild: i32 = std::fs::read_to_string(&pidfile)
        .expect("grandchild pid written")
        .trim()
        .parse()
        .unwrap();
    let _ = std::fs::remove_file(&pidfile);
    assert!(wait_gone(server_pid).await, "server still running");
    assert!(
        wait_gone(grandchild).await,
        "grandchild {grandchild} survived"
    );
}

#[tokio::test]
async fn server_dying_mid_request_fails_the_call_promptly() {
    let bystander = spawn(sh_server(":", "exit 0")).await;
    let dying = spawn(sh_server("exit 1", "exit 0")).await;
    let started = Instant::now();
    let err = support::within(dying.call_tool("anything", json!({})))
        .await
        .unwrap_err();
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "the call failed only after {:?} (request timeout is 60 s)",
        started.elapsed()
    );
    assert_eq!(err.code, codes::CONNECTION_CLOSED, "{err:?}");
    // Later calls fail at once too.
    let again = support::within(dying.ping()).await.unwrap_err();
    assert_eq!(again.code, codes::CONNECTION_CLOSED, "{again:?}");
    // Another client in the same process is unaffected.
    support::within(bystander.ping()).await.unwrap();
    assert!(support::within(bystander.list_tools(None))
        .await
        .unwrap()
        .tools
        .is_empty());
    support::within(dying.close()).await;
    support::within(bystander.close()).await;
}
