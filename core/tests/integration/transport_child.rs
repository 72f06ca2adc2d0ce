//! Tests of the child-process client transport: framing through a real child, the MCP stdio
//! shutdown sequence (EOF, SIGTERM, SIGKILL), process-group cleanup and stderr capture.
#![cfg(unix)]

use ferromcp::codes;
use ferromcp::transport::child::spawn;
use ferromcp::transport::{ChildProcessOptions, FrameReader, FrameWriter, ReadStatus, StderrMode};
use std::os::unix::process::ExitStatusExt;
use std::time::{Duration, Instant};
use tokio::time::timeout;

const LIMIT: Duration = Duration::from_secs(20);

fn sh(script: &str) -> ChildProcessOptions {
    ChildProcessOptions::new("sh").args(["-c", script])
}

/// True when `pid` no longer runs: it does not exist, or it is a zombie waiting for a reaper
/// (PID 1 in some containers never reaps).
fn is_gone(pid: i32) -> bool {
    // SAFETY: signal 0 only checks for existence.
    let rc = unsafe { libc::kill(pid, 0) };
    if rc != 0 {
        return std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH);
    }
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rsplit_once(')')
            .map(|(_, rest)| rest.trim_start().starts_with('Z'))
            .unwrap_or(false),
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

async fn read_text(reader: &mut impl FrameReader) -> String {
    let mut buf = Vec::new();
    let status = reader.read_frame(&mut buf).await.unwrap();
    assert_eq!(status, ReadStatus::Frame);
    String::from_utf8(buf).unwrap()
}

#[tokio::test]
async fn frames_echo_through_cat() {
    timeout(LIMIT, async {
        let (mut reader, mut writer, handle) = spawn(ChildProcessOptions::new("cat")).unwrap();
        let frames = [
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            "{}",
            "[1,2,3]",
        ];
        for frame in frames {
            writer.write_frame(frame.as_bytes()).await.unwrap();
        }
        writer.flush().await.unwrap();
        for frame in frames {
            assert_eq!(read_text(&mut reader).await, frame);
        }
        writer.close().await.unwrap();
        let mut buf = Vec::new();
        assert_eq!(reader.read_frame(&mut buf).await.unwrap(), ReadStatus::Eof);
        let status = handle.shutdown().await.unwrap();
        assert!(status.success());
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn child_exiting_on_eof_needs_no_signal() {
    timeout(LIMIT, async {
        let options = sh("cat >/dev/null; exit 3").shutdown_grace(Duration::from_secs(10));
        let (_reader, mut writer, handle) = spawn(options).unwrap();
        writer.close().await.unwrap();
        let started = Instant::now();
        let status = handle.shutdown().await.unwrap();
        assert!(started.elapsed() < Duration::from_secs(5));
        assert_eq!(status.code(), Some(3));
        assert_eq!(status.signal(), None);
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn child_ignoring_eof_gets_sigterm() {
    timeout(LIMIT, async {
        let options = ChildProcessOptions::new("sleep")
            .arg("300")
            .shutdown_grace(Duration::from_millis(200))
            .term_grace(Duration::from_secs(10));
        let (_reader, mut writer, handle) = spawn(options).unwrap();
        writer.close().await.unwrap();
        let started = Instant::now();
        let status = handle.shutdown().await.unwrap();
        assert!(started.elapsed() >= Duration::from_millis(200));
        assert!(started.elapsed() < Duration::from_secs(5));
        assert_eq!(status.signal(), Some(libc::SIGTERM));
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn shutdown_works_with_stdin_still_open() {
    timeout(LIMIT, async {
        let options = ChildProcessOptions::new("cat")
            .shutdown_grace(Duration::from_millis(100))
            .term_grace(Duration::from_secs(10));
        let (_reader, _writer, handle) = spawn(options).unwrap();
        let status = handle.shutdown().await.unwrap();
        assert_eq!(status.signal(), Some(libc::SIGTERM));
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn child_trapping_sigterm_gets_sigkill() {
    timeout(LIMIT, async {
        let options = sh(r#"trap "" TERM; echo ready; while :; do sleep 0.05; done"#)
            .shutdown_grace(Duration::from_millis(100))
            .term_grace(Duration::from_millis(300));
        let (mut reader, mut writer, handle) = spawn(options).unwrap();
        assert_eq!(read_text(&mut reader).await, "ready");
        writer.close().await.unwrap();
        let started = Instant::now();
        let status = handle.shutdown().await.unwrap();
        assert!(started.elapsed() >= Duration::from_millis(400));
        assert_eq!(status.signal(), Some(libc::SIGKILL));
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn grandchild_is_gone_after_shutdown() {
    timeout(LIMIT, async {
        // The grandchild keeps running after the child exits on EOF.
        let options = sh("sleep 300 & echo $!; cat >/dev/null");
        let (mut reader, mut writer, handle) = spawn(options).unwrap();
        let grandchild: i32 = read_text(&mut reader).await.trim().parse().unwrap();
        assert!(!is_gone(grandchild));
        writer.close().await.unwrap();
        let status = handle.shutdown().await.unwrap();
        assert!(status.success());
        assert!(
            wait_gone(grandchild).await,
            "grandchild {grandchild} survived"
        );
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn dropping_the_handle_kills_the_group() {
    timeout(LIMIT, async {
        let options = sh("sleep 300 & echo $!; sleep 300");
        let (mut reader, writer, handle) = spawn(options).unwrap();
        let grandchild: i32 = read_text(&mut reader).await.trim().parse().unwrap();
        let child = handle.pid() as i32;
        assert!(!is_gone(child));
        drop(handle);
        drop(writer);
        drop(reader);
        assert!(wait_gone(child).await, "child {child} survived");
        assert!(
            wait_gone(grandchild).await,
            "grandchild {grandchild} survived"
        );
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn wait_and_try_status_report_exit() {
    timeout(LIMIT, async {
        let (_reader, _writer, mut handle) = spawn(sh("exit 7")).unwrap();
        let status = handle.wait().await.unwrap();
        assert_eq!(status.code(), Some(7));
        assert_eq!(handle.try_status().unwrap().and_then(|s| s.code()), Some(7));
        assert_eq!(handle.shutdown().await.unwrap().code(), Some(7));
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn stderr_is_captured() {
    timeout(LIMIT, async {
        let options = sh("echo one >&2; echo 'two words' >&2").stderr(StderrMode::Capture);
        let (_reader, _writer, mut handle) = spawn(options).unwrap();
        let mut lines = handle.take_stderr().expect("stderr is captured");
        assert!(handle.take_stderr().is_none());
        assert_eq!(lines.recv().await.as_deref(), Some("one"));
        assert_eq!(lines.recv().await.as_deref(), Some("two words"));
        assert_eq!(lines.recv().await, None);
        assert_eq!(handle.stderr_dropped(), 0);
        assert!(handle.shutdown().await.unwrap().success());
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn stderr_overflow_drops_lines_without_blocking_the_child() {
    timeout(LIMIT, async {
        let options =
            sh("i=0; while [ $i -lt 50 ]; do echo line$i >&2; i=$((i+1)); done; echo done")
                .stderr(StderrMode::Capture)
                .stderr_capacity(4);
        let (mut reader, _writer, mut handle) = spawn(options).unwrap();
        // The child finishes although nobody reads its stderr.
        assert_eq!(read_text(&mut reader).await, "done");
        assert!(handle.wait().await.unwrap().success());
        let mut lines = handle.take_stderr().unwrap();
        // Let the capture task read the pipe to its end before draining, so the 4-line buffer
        // is what decides what is kept (draining earlier would make room again).
        while !lines.is_closed() {
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
        let mut received = 0;
        while lines.recv().await.is_some() {
            received += 1;
        }
        assert_eq!(received, 4);
        assert_eq!(handle.stderr_dropped(), 46);
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn environment_and_cwd_are_applied() {
    timeout(LIMIT, async {
        let options = sh(r#"echo "$FERRO_TEST_VAR"; pwd; echo "${HOME:-unset}""#)
            .env("FERRO_TEST_VAR", "hello")
            .inherit_env(false)
            .cwd("/");
        let (mut reader, _writer, handle) = spawn(options).unwrap();
        assert_eq!(read_text(&mut reader).await, "hello");
        assert_eq!(read_text(&mut reader).await, "/");
        assert_eq!(read_text(&mut reader).await, "unset");
        assert!(handle.shutdown().await.unwrap().success());
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn missing_program_is_a_transport_error() {
    let Err(err) = spawn(ChildProcessOptions::new("ferromcp-no-such-program-xyz")) else {
        panic!("spawning a missing program succeeded");
    };
    assert_eq!(err.code, codes::TRANSPORT_ERROR);
    assert!(
        err.message.contains("ferromcp-no-such-program-xyz"),
        "{}",
        err.message
    );
}

#[tokio::test]
async fn oversized_line_from_child_is_reported() {
    timeout(LIMIT, async {
        let options = sh(r#"printf '%0100d\n' 0; echo '{"ok":true}'"#).max_message_size(16);
        let (mut reader, _writer, handle) = spawn(options).unwrap();
        let mut buf = Vec::new();
        assert_eq!(
            reader.read_frame(&mut buf).await.unwrap(),
            ReadStatus::Oversized(100)
        );
        assert_eq!(read_text(&mut reader).await, r#"{"ok":true}"#);
        assert_eq!(reader.read_frame(&mut buf).await.unwrap(), ReadStatus::Eof);
        assert!(handle.shutdown().await.unwrap().success());
    })
    .await
    .unwrap();
}
