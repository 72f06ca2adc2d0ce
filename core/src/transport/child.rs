//! The stdio client transport: launch an MCP server as a child process and talk to it over its
//! stdin/stdout.
//!
//! The engine owns the whole life of the child: it runs in its own process group so that the
//! server *and everything it started* can be signalled together, its stderr can be captured
//! without ever blocking it, and [`ChildHandle::shutdown`] follows the MCP shutdown sequence
//! for stdio (close stdin, wait, `SIGTERM`, wait, `SIGKILL`). Dropping the handle of a child that
//! is still running kills the whole group, so a client never leaves orphans behind.

use super::{FrameReader, LineReader, LineWriter, ReadStatus};
use crate::error::McpError;
use crate::jsonrpc::DEFAULT_MAX_MESSAGE_SIZE;
use std::io;
use std::path::PathBuf;
use std::pin::Pin;
use std::process::{ExitStatus, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::AsyncWrite;
use tokio::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command};
use tokio::sync::mpsc;

/// Longest stderr line forwarded to the caller; longer lines are counted as dropped.
const MAX_STDERR_LINE: usize = 64 * 1024;

/// Reads frames from the child's stdout.
pub type ChildReader = LineReader<ChildStdout>;
/// Writes frames to the child's stdin. Closing it (see [`super::FrameWriter::close`]) gives the
/// child end of input, the first step of a graceful shutdown.
pub type ChildWriter = LineWriter<ChildStdinPipe>;

/// The child's stdin as a byte stream whose shutdown really closes the pipe.
///
/// Tokio's `ChildStdin` treats shutdown as a no-op (only dropping it closes the pipe), which
/// would leave a child waiting for end of input after [`super::FrameWriter::close`]. This wrapper
/// drops the pipe on shutdown; writing afterwards fails with `BrokenPipe`.
#[derive(Debug)]
pub struct ChildStdinPipe {
    inner: Option<ChildStdin>,
}

impl ChildStdinPipe {
    /// Wraps the child's stdin.
    pub fn new(stdin: ChildStdin) -> Self {
        Self { inner: Some(stdin) }
    }

    fn open(&mut self) -> io::Result<Pin<&mut ChildStdin>> {
        self.inner
            .as_mut()
            .map(Pin::new)
            .ok_or_else(|| io::Error::from(io::ErrorKind::BrokenPipe))
    }
}

impl AsyncWrite for ChildStdinPipe {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut().open() {
            Ok(pipe) => pipe.poll_write(cx, buf),
            Err(e) => Poll::Ready(Err(e)),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut().open() {
            Ok(pipe) => pipe.poll_write_vectored(cx, bufs),
            Err(e) => Poll::Ready(Err(e)),
        }
    }

    fn is_write_vectored(&self) -> bool {
        self.inner
            .as_ref()
            .is_some_and(AsyncWrite::is_write_vectored)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut().inner.as_mut() {
            Some(pipe) => Pin::new(pipe).poll_flush(cx),
            None => Poll::Ready(Ok(())),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if let Some(pipe) = this.inner.as_mut() {
            std::task::ready!(Pin::new(pipe).poll_flush(cx))?;
        }
        this.inner = None; // closing the descriptor is what the child sees as end of input
        Poll::Ready(Ok(()))
    }
}

/// What happens to the child's stderr.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum StderrMode {
    /// The child writes to this process's stderr (the default).
    #[default]
    Inherit,
    /// The child's stderr goes to `/dev/null`.
    Null,
    /// The child's stderr lines are delivered through [`ChildHandle::take_stderr`].
    Capture,
}

/// How to launch an MCP server as a child process. Build it with [`ChildProcessOptions::new`]
/// and the chained setters; every field is also public.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ChildProcessOptions {
    /// The program to run; looked up in `PATH` unless it contains a slash.
    pub program: String,
    /// Arguments passed to the program.
    pub args: Vec<String>,
    /// Environment variables set for the child, on top of the inherited ones (if any).
    pub env: Vec<(String, String)>,
    /// Whether the child inherits this process's environment (default `true`). When `false`,
    /// the child sees only [`Self::env`].
    pub inherit_env: bool,
    /// Working directory of the child; this process's when `None`.
    pub cwd: Option<PathBuf>,
    /// What happens to the child's stderr.
    pub stderr: StderrMode,
    /// How many captured stderr lines may wait for the caller before further lines are dropped
    /// (only with [`StderrMode::Capture`]; default 1024).
    pub stderr_capacity: usize,
    /// Largest frame accepted from the child, in bytes. [`crate::client::Client::spawn`] sets
    /// it to its session's `max_message_size`: a client has one limit.
    pub max_message_size: usize,
    /// How long [`ChildHandle::shutdown`] waits for the child to exit on its own (after stdin
    /// is closed) before sending `SIGTERM` (default 2 s).
    pub shutdown_grace: Duration,
    /// How long [`ChildHandle::shutdown`] waits after `SIGTERM` before sending `SIGKILL`
    /// (default 2 s).
    pub term_grace: Duration,
}

impl ChildProcessOptions {
    /// Options to run `program` with no arguments, the inherited environment and defaults
    /// everywhere else.
    pub fn new(program: impl Into<String>) -> Self {
        Self {
            program: program.into(),
            args: Vec::new(),
            env: Vec::new(),
            inherit_env: true,
            cwd: None,
            stderr: StderrMode::Inherit,
            stderr_capacity: 1024,
            max_message_size: DEFAULT_MAX_MESSAGE_SIZE,
            shutdown_grace: Duration::from_secs(2),
            term_grace: Duration::from_secs(2),
        }
    }

    /// Appends one argument.
    pub fn arg(mut self, arg: impl Into<String>) -> Self {
        self.args.push(arg.into());
        self
    }

    /// Appends several arguments.
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// Sets one environment variable for the child.
    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }

    /// Sets several environment variables for the child.
    pub fn envs<I, K, V>(mut self, vars: I) -> Self
    where
        I: IntoIterator<Item = (K, V)>,
        K: Into<String>,
        V: Into<String>,
    {
        self.env
            .extend(vars.into_iter().map(|(k, v)| (k.into(), v.into())));
        self
    }

    /// Chooses whether the child inherits this process's environment.
    pub fn inherit_env(mut self, inherit: bool) -> Self {
        self.inherit_env = inherit;
        self
    }

    /// Sets the child's working directory.
    pub fn cwd(mut self, dir: impl Into<PathBuf>) -> Self {
        self.cwd = Some(dir.into());
        self
    }

    /// Chooses what happens to the child's stderr.
    pub fn stderr(mut self, mode: StderrMode) -> Self {
        self.stderr = mode;
        self
    }

    /// Sets how many captured stderr lines may be queued for the caller.
    pub fn stderr_capacity(mut self, lines: usize) -> Self {
        self.stderr_capacity = lines.max(1);
        self
    }

    /// Sets the largest frame accepted from the child.
    pub fn max_message_size(mut self, bytes: usize) -> Self {
        self.max_message_size = bytes;
        self
    }

    /// Sets the wait between closing stdin and `SIGTERM` during shutdown.
    pub fn shutdown_grace(mut self, grace: Duration) -> Self {
        self.shutdown_grace = grace;
        self
    }

    /// Sets the wait between `SIGTERM` and `SIGKILL` during shutdown.
    pub fn term_grace(mut self, grace: Duration) -> Self {
        self.term_grace = grace;
        self
    }
}

/// Control over a spawned child: its pid, its exit status, its captured stderr and its
/// shutdown.
///
/// The child leads its own process group. Once the child has been seen to exit (through
/// [`Self::wait`], [`Self::try_status`] or [`Self::shutdown`]), whatever is left in its group
/// is killed with `SIGKILL`. Dropping the handle while the child is still running kills the
/// whole group with `SIGKILL`.
#[derive(Debug)]
pub struct ChildHandle {
    child: Child,
    pid: u32,
    status: Option<ExitStatus>,
    stderr: Option<mpsc::Receiver<String>>,
    stderr_dropped: Arc<AtomicU64>,
    shutdown_grace: Duration,
    term_grace: Duration,
}

/// Launches the child described by `options` and returns its stdout as a frame reader, its
/// stdin as a frame writer, and a handle to control it.
///
/// Must be called inside a Tokio runtime. Fails with a transport error naming the program if
/// it cannot be started (not found, not executable, bad working directory...).
pub fn spawn(
    options: ChildProcessOptions,
) -> Result<(ChildReader, ChildWriter, ChildHandle), McpError> {
    let mut cmd = Command::new(&options.program);
    cmd.args(&options.args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(match options.stderr {
            StderrMode::Inherit => Stdio::inherit(),
            StderrMode::Null => Stdio::null(),
            StderrMode::Capture => Stdio::piped(),
        })
        .process_group(0)
        .kill_on_drop(true);
    if !options.inherit_env {
        cmd.env_clear();
    }
    cmd.envs(options.env.iter().map(|(k, v)| (k, v)));
    if let Some(dir) = &options.cwd {
        cmd.current_dir(dir);
    }

    let mut child = cmd.spawn().map_err(|e| {
        let place = match &options.cwd {
            Some(dir) => format!(" in {}", dir.display()),
            None => String::new(),
        };
        McpError::transport(format!("failed to start `{}`{place}: {e}", options.program))
            .with_source(e)
    })?;
    // From here on `child` is owned by a value whose drop kills it (kill_on_drop), and soon by
    // the handle, whose drop kills the whole group.
    let pid = child
        .id()
        .ok_or_else(|| McpError::transport(format!("`{}` exited at once", options.program)))?;
    let stdin = child.stdin.take().expect("stdin is piped");
    let stdout = child.stdout.take().expect("stdout is piped");

    let stderr_dropped = Arc::new(AtomicU64::new(0));
    let stderr = child.stderr.take().map(|pipe| {
        let (tx, rx) = mpsc::channel(options.stderr_capacity.max(1));
        tokio::spawn(forward_stderr(pipe, tx, Arc::clone(&stderr_dropped)));
        rx
    });

    let handle = ChildHandle {
        child,
        pid,
        status: None,
        stderr,
        stderr_dropped,
        shutdown_grace: options.shutdown_grace,
        term_grace: options.term_grace,
    };
    Ok((
        LineReader::new(stdout, options.max_message_size).with_kind(super::TransportKind::Stdio),
        LineWriter::new(ChildStdinPipe::new(stdin)),
        handle,
    ))
}

/// Reads the child's stderr line by line and hands the lines over without ever waiting for the
/// receiver: when the queue is full (or nobody listens) lines are counted and dropped, so the
/// child never blocks on a full stderr pipe.
async fn forward_stderr(pipe: ChildStderr, tx: mpsc::Sender<String>, dropped: Arc<AtomicU64>) {
    let mut lines = LineReader::new(pipe, MAX_STDERR_LINE);
    let mut buf = Vec::new();
    loop {
        match lines.read_frame(&mut buf).await {
            Ok(ReadStatus::Frame) => {
                let line = String::from_utf8_lossy(&buf).into_owned();
                if tx.try_send(line).is_err() {
                    dropped.fetch_add(1, Ordering::Relaxed);
                }
            }
            Ok(ReadStatus::Oversized(_)) => {
                dropped.fetch_add(1, Ordering::Relaxed);
            }
            // A line reader delivers every line; nothing is sent on this pipe.
            Ok(ReadStatus::Undelivered) => {}
            Ok(ReadStatus::Eof) | Err(_) => return,
        }
    }
}

impl ChildHandle {
    /// The child's process id, which is also its process group id.
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// The receiver of the child's stderr lines (without line terminators, decoded lossily as
    /// UTF-8), if stderr is captured and the receiver was not taken yet. It yields `None` once
    /// the child's stderr is closed.
    pub fn take_stderr(&mut self) -> Option<mpsc::Receiver<String>> {
        self.stderr.take()
    }

    /// How many stderr lines were dropped so far because the receiver was full or gone, or
    /// because a line was longer than 64 KiB.
    pub fn stderr_dropped(&self) -> u64 {
        self.stderr_dropped.load(Ordering::Relaxed)
    }

    /// Waits for the child to exit and returns its status. Cancel-safe.
    pub async fn wait(&mut self) -> io::Result<ExitStatus> {
        if let Some(status) = self.status {
            return Ok(status);
        }
        let status = self.child.wait().await?;
        Ok(self.reaped(status))
    }

    /// The child's exit status if it has exited, without waiting.
    pub fn try_status(&mut self) -> io::Result<Option<ExitStatus>> {
        if let Some(status) = self.status {
            return Ok(Some(status));
        }
        Ok(self.child.try_wait()?.map(|status| self.reaped(status)))
    }

    /// Stops the child following the MCP stdio shutdown sequence and returns its exit status.
    ///
    /// 1. Waits up to `shutdown_grace` for the child to exit by itself. The caller should have
    ///    closed the child's stdin first by calling `close()` on (or dropping) the
    ///    [`ChildWriter`]; a well-behaved server exits on end of input. If stdin is still open,
    ///    this step just costs the grace period.
    /// 2. Sends `SIGTERM` to the child's process group and waits up to `term_grace`.
    /// 3. Sends `SIGKILL` to the group and waits for the child.
    ///
    /// The child is always reaped, and anything left in its process group (grandchildren) is
    /// killed with `SIGKILL` once the child has exited.
    pub async fn shutdown(mut self) -> io::Result<ExitStatus> {
        if let Some(status) = self.try_status()? {
            return Ok(status);
        }
        if let Ok(status) = tokio::time::timeout(self.shutdown_grace, self.wait()).await {
            return status;
        }
        tracing::debug!(
            pid = self.pid,
            "child did not exit after stdin close; SIGTERM"
        );
        self.signal_group(libc::SIGTERM);
        if let Ok(status) = tokio::time::timeout(self.term_grace, self.wait()).await {
            return status;
        }
        tracing::debug!(pid = self.pid, "child did not exit after SIGTERM; SIGKILL");
        self.signal_group(libc::SIGKILL);
        self.wait().await
    }

    /// Records the exit status and kills what the child left behind in its group.
    fn reaped(&mut self, status: ExitStatus) -> ExitStatus {
        self.status = Some(status);
        // The group id cannot be reused while any member is alive, so this reaches only the
        // child's leftovers (or nobody).
        self.signal_group(libc::SIGKILL);
        status
    }

    fn signal_group(&self, signal: libc::c_int) {
        let Ok(pgid) = libc::pid_t::try_from(self.pid) else {
            return;
        };
        if pgid <= 1 {
            return;
        }
        // SAFETY: killpg has no memory-safety preconditions; a failure (ESRCH when the group is
        // already empty) is harmless and ignored.
        unsafe {
            libc::killpg(pgid, signal);
        }
    }
}

impl Drop for ChildHandle {
    fn drop(&mut self) {
        if self.status.is_none() {
            // Not reaped, so the child's pid (and with it the group id) is still ours, even if
            // the child is a zombie. Tokio reaps the child after this (kill_on_drop + orphan
            // queue).
            self.signal_group(libc::SIGKILL);
        }
    }
}
