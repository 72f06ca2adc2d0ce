//! The driver for message-oriented transports: one task reads frames, runs handlers
//! concurrently and writes answers, with no thread hop per message.
//!
//! Handlers run as futures inside this task (`FuturesUnordered`), so a slow asynchronous handler
//! never delays other requests and a fast one costs no spawn. A handler is polled once as soon as
//! its request is read, so one that does not wait is answered without entering that set. Frames
//! the transport already holds are handled in one pass, and output is buffered and flushed when
//! nothing else is ready, so pipelined requests share system calls.
//!
//! A server's connection reads `tools/call` requests on a lane of their own: params straight
//! from the frame into what the call uses, one future per call, and the tool's result written
//! out without first becoming a JSON value (see [`Session::start_tool_call`]). What a frame is,
//! which lane it takes and whether a batch is served are decided in [`super::inbound`], for
//! Streamable HTTP alike; this driver keeps the framing and the I/O.

use super::core::{Incoming, LaneAnswer};
use super::inbound::{self, Inbound};
use super::{Outbound, OutboundMessage, Peer, Role, Service, Session, SessionConfig};
use super::{ToolCallParams, ToolLane};
use crate::frame_io::{FrameReader, FrameWriter, ReadStatus, TransportKind};
use crate::jsonrpc::{ErrorResponse, Message, RequestId};
use crate::McpError;
use futures_util::future::{join_all, BoxFuture};
use futures_util::stream::{FuturesUnordered, StreamExt};
use std::future::Future;
use std::sync::Arc;
use std::task::Poll;
use tokio::sync::mpsc;

/// What an in-flight entry produces: nothing, one message, or a batch answer.
enum Answer {
    Nothing,
    One(Message),
    Batch(Vec<Message>),
    /// The answer of a `tools/call` of the typed lane (a tool's result is written without
    /// building its JSON value).
    Lane(LaneAnswer),
}

/// A session bound to a message transport. Create it, keep the [`Peer`], and `run()` it.
pub struct Connection<R: FrameReader, W: FrameWriter> {
    session: Arc<Session>,
    reader: R,
    writer: W,
    outbound_rx: mpsc::Receiver<OutboundMessage>,
    /// The `tools/call` lane of the session's service, when it has one (a server).
    lane: Option<Arc<dyn StartLane>>,
    /// Told how long the session lived when it ends ([`Self::on_session_end`]).
    on_end: Option<SessionEndHook>,
}

/// Told, when a session served over a message transport ends, how long it lived, the revision
/// it negotiated and what carried it (the OpenTelemetry layer's `mcp.server.session.duration`).
pub(crate) type SessionEndHook = Arc<
    dyn Fn(std::time::Duration, Option<crate::protocol::ProtocolVersion>, TransportKind)
        + Send
        + Sync,
>;

/// Tells a [`SessionEndHook`] once, when dropped: the connection's run ended (the peer hung
/// up, the session closed or shut down, or its future was dropped).
struct SessionTimer {
    hook: SessionEndHook,
    session: Arc<Session>,
    started: std::time::Instant,
    kind: TransportKind,
}

impl Drop for SessionTimer {
    fn drop(&mut self) {
        let version = self.session.negotiated().map(|n| n.version);
        (self.hook)(self.started.elapsed(), version, self.kind);
    }
}

/// Starts a `tools/call` read on the typed lane: a [`ToolLane`] seen through one virtual call
/// per request, so that the connection's type does not name the server's.
trait StartLane: Send + Sync {
    fn start(
        &self,
        session: &Arc<Session>,
        id: RequestId,
        params: ToolCallParams<'_>,
    ) -> FrameOutcome;
}

impl<S: ToolLane> StartLane for S {
    fn start(
        &self,
        session: &Arc<Session>,
        id: RequestId,
        params: ToolCallParams<'_>,
    ) -> FrameOutcome {
        match session.start_tool_call(self, id, params, lane_answer) {
            Ok(fut) => FrameOutcome::Later(fut),
            Err(answer) => FrameOutcome::Now(answer),
        }
    }
}

impl<R: FrameReader, W: FrameWriter> Connection<R, W> {
    /// Binds a new session playing `role`, answering with `service`, to a transport.
    pub fn new(
        role: Role,
        service: Arc<dyn Service>,
        config: SessionConfig,
        reader: R,
        writer: W,
    ) -> Self {
        let (outbound, outbound_rx) = Outbound::channel(config.outbound_capacity);
        let session = Session::new(role, service, config, outbound, None);
        Connection {
            session,
            reader,
            writer,
            outbound_rx,
            lane: None,
            on_end: None,
        }
    }

    /// The same connection, telling `hook` how long its session lived when its run ends.
    pub(crate) fn on_session_end(mut self, hook: SessionEndHook) -> Self {
        self.on_end = Some(hook);
        self
    }

    /// A server's connection: `service` answers its session and its `tools/call` requests take
    /// their own lane, `lane` (the same server, seen as its [`ToolLane`]).
    pub(crate) fn with_tool_lane<S: ToolLane>(
        service: Arc<dyn Service>,
        lane: S,
        config: SessionConfig,
        reader: R,
        writer: W,
    ) -> Self {
        let mut conn = Self::new(Role::Server, service, config, reader, writer);
        conn.lane = Some(Arc::new(lane));
        conn
    }

    /// The session (for handles: `session().peer()`).
    pub fn session(&self) -> &Arc<Session> {
        &self.session
    }

    /// A handle for sending to the peer.
    pub fn peer(&self) -> Peer {
        self.session.peer()
    }

    /// Runs until the peer hangs up or the session is closed. In-flight handlers get
    /// `drain_timeout` to finish after the peer's end closes; their answers are still written.
    /// Open `subscriptions/listen` requests are answered with their completion result once the
    /// peer's end closes (they have no end of their own).
    pub async fn run(self) -> Result<(), McpError> {
        self.run_until(std::future::pending()).await
    }

    /// [`Self::run`], winding down gracefully when `shutdown` completes: no further message is
    /// read, each open `subscriptions/listen` is answered with its completion result
    /// (`{resultType: "complete", _meta: {subscriptionId}}`, 2026-07-28's "Graceful Closure"),
    /// requests being served get `drain_timeout` to finish and their answers are written, then
    /// the transport is closed.
    pub async fn run_until(self, shutdown: impl Future<Output = ()>) -> Result<(), McpError> {
        let Connection {
            session,
            mut reader,
            mut writer,
            mut outbound_rx,
            lane,
            on_end,
        } = self;
        let _timer = on_end.map(|hook| SessionTimer {
            hook,
            session: session.clone(),
            started: std::time::Instant::now(),
            kind: reader.transport_kind(),
        });
        let mut in_flight: FuturesUnordered<BoxFuture<'static, Answer>> = FuturesUnordered::new();
        let mut frame = Vec::with_capacity(4096);
        let mut out = Vec::with_capacity(4096);
        let mut dirty = false;
        let mut reading = true;
        let mut result = Ok(());
        let mut drain_deadline: Option<tokio::time::Instant> = None;
        let closed = session.closed.clone();
        // Waited on across iterations, so its registration is made once, not per select.
        let mut closed_wait = std::pin::pin!(closed.cancelled());
        let mut shutdown = std::pin::pin!(shutdown);

        'conn: loop {
            macro_rules! emit {
                // A queued message: written, then whoever waits for it is told.
                (queued $ob:expr) => {{
                    let mut ob = $ob;
                    emit!(&ob.message);
                    ob.written();
                }};
                ($msg:expr) => {{
                    out.clear();
                    serde_json::to_writer(&mut out, $msg).expect("messages always serialize");
                    emit!();
                }};
                () => {{
                    if let Err(e) = writer.write_frame(&out).await {
                        result = Err(McpError::from(e));
                        break 'conn;
                    }
                    dirty = true;
                }};
            }
            // An answer is written after whatever its handler queued (progress, logs).
            macro_rules! answer {
                ($answer:expr) => {{
                    while let Ok(ob) = outbound_rx.try_recv() {
                        emit!(queued ob);
                    }
                    match $answer {
                        Answer::Nothing => {}
                        Answer::One(m) => emit!(&m),
                        Answer::Batch(ms) => {
                            if !ms.is_empty() {
                                emit!(&ms)
                            }
                        }
                        Answer::Lane(a) => {
                            out.clear();
                            a.write(&mut out);
                            emit!();
                        }
                    }
                }};
            }

            if !reading && in_flight.is_empty() {
                break;
            }
            let drain_sleep = async {
                match drain_deadline {
                    Some(d) => tokio::time::sleep_until(d).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                biased;
                Some(answer) = in_flight.next(), if !in_flight.is_empty() => answer!(answer),
                Some(ob) = outbound_rx.recv() => emit!(queued ob),
                r = reader.read_frame(&mut frame), if reading => {
                    // Handle this frame and every further one the transport already holds
                    // without going back to the select: a pipelined batch costs one pass.
                    let mut r = r;
                    loop {
                        match r {
                            // The session's limit applies whatever limit the transport itself enforces.
                            Ok(ReadStatus::Frame) if frame.len() > session.config.max_message_size => {
                                let refusal = refuse_oversized(&session, &frame, frame.len());
                                frame.clear();
                                if let Some(m) = refusal {
                                    emit!(&m);
                                }
                            }
                            Ok(ReadStatus::Frame) => match on_frame(&session, lane.as_deref(), &frame) {
                                FrameOutcome::Now(a) => answer!(a),
                                // Most handlers finish without waiting: poll once here and
                                // answer at once; only a handler that waits joins `in_flight`.
                                FrameOutcome::Later(mut fut) => match poll_once(fut.as_mut()).await {
                                    Poll::Ready(a) => answer!(a),
                                    Poll::Pending => in_flight.push(fut),
                                },
                            },
                            Ok(ReadStatus::Oversized(size)) => {
                                // `frame` holds the message's first bytes when the transport kept them.
                                if let Some(m) = refuse_oversized(&session, &frame, size) {
                                    emit!(&m);
                                }
                            }
                            Ok(ReadStatus::Undelivered) => {
                                // Requests the transport could not deliver: their callers get
                                // the transport's error, kind and source kept.
                                if let Some(u) = reader.take_undelivered() {
                                    for id in &u.ids {
                                        session.fail_request(id, u.error.clone());
                                    }
                                }
                            }
                            Ok(ReadStatus::Eof) | Err(_) => {
                                // The peer can no longer answer anything we asked; what the
                                // transport reported is the error's source.
                                let source = match r {
                                    Err(e) => {
                                        tracing::debug!(error = %e, "transport read failed");
                                        e
                                    }
                                    _ => std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "the peer closed its end of the transport"),
                                };
                                reading = false;
                                session.fail_pending(McpError::connection_closed("peer closed the connection").with_source(source));
                                // Nor send another request: its subscriptions end now, not
                                // at the drain timeout.
                                session.end_child_listens();
                                drain_deadline = Some(tokio::time::Instant::now() + session.config.drain_timeout);
                                break;
                            }
                        }
                        // `read_frame` is cancel-safe, so a pending poll loses nothing.
                        match poll_once(reader.read_frame(&mut frame)).await {
                            Poll::Ready(next) => r = next,
                            Poll::Pending => {
                                // Input drained: the batch's answers leave in one write.
                                if dirty {
                                    dirty = false;
                                    if let Err(e) = writer.flush().await {
                                        result = Err(McpError::from(e));
                                        break 'conn;
                                    }
                                }
                                break;
                            }
                        }
                    }
                },
                _ = &mut closed_wait, if reading => {
                    reading = false;
                    drain_deadline = Some(tokio::time::Instant::now() + session.config.drain_timeout);
                }
                _ = &mut shutdown, if reading => {
                    reading = false;
                    session.end_child_listens();
                    drain_deadline = Some(tokio::time::Instant::now() + session.config.drain_timeout);
                }
                _ = drain_sleep => {
                    tracing::warn!(count = in_flight.len(), "handlers still running after the drain timeout; cancelling them");
                    break;
                }
                _ = std::future::ready(()), if dirty => {
                    dirty = false;
                    if let Err(e) = writer.flush().await {
                        result = Err(McpError::from(e));
                        break;
                    }
                }
            }
        }
        // Deliver whatever was queued, then hang up.
        while let Ok(mut ob) = outbound_rx.try_recv() {
            out.clear();
            serde_json::to_writer(&mut out, &ob.message).expect("messages always serialize");
            if writer.write_frame(&out).await.is_err() {
                break;
            }
            ob.written();
        }
        let _ = writer.close().await;
        drop(in_flight);
        session.close();
        result
    }
}

/// Polls `fut` once with the current task's context and reports what it gave.
///
/// A future left pending has registered this task's waker; it may be polled again later with
/// another one (e.g. inside `FuturesUnordered`), which is all the `Future` contract requires.
async fn poll_once<F: Future>(fut: F) -> Poll<F::Output> {
    let mut fut = std::pin::pin!(fut);
    std::future::poll_fn(|cx| Poll::Ready(fut.as_mut().poll(cx))).await
}

/// Handles one frame; an answer that needs handlers to finish is pushed by the caller.
/// `lane` is the `tools/call` lane of the session's service when it has one (a server).
fn on_frame(session: &Arc<Session>, lane: Option<&dyn StartLane>, frame: &[u8]) -> FrameOutcome {
    match inbound::read(frame, lane.is_some()) {
        Err(ErrorResponse { id, error }) => {
            FrameOutcome::Now(Answer::One(Message::error(id, error)))
        }
        Ok(Inbound::Call(id, params)) => {
            let lane = lane.expect("the lane is read for servers only");
            lane.start(session, id, params)
        }
        Ok(Inbound::One(msg)) => on_message(session, msg),
        Ok(Inbound::Batch(items)) => {
            if let Err(e) = inbound::check_batch(
                session.batch_scope(&items),
                inbound::carries_initialize(&items),
            ) {
                return FrameOutcome::Now(Answer::One(Message::error(None, e)));
            }
            let (mut ready, messages) = inbound::split_batch(items);
            let mut waiting = Vec::new();
            for msg in messages {
                match session.handle_incoming(msg) {
                    Incoming::Nothing => {}
                    Incoming::Reply(m) => ready.push(m),
                    Incoming::Pending(f) => waiting.push(f),
                }
            }
            if waiting.is_empty() {
                return FrameOutcome::Now(Answer::Batch(ready));
            }
            FrameOutcome::Later(Box::pin(async move {
                ready.extend(join_all(waiting).await.into_iter().flatten());
                Answer::Batch(ready)
            }))
        }
    }
}

/// Handles one message that came alone in its frame.
fn on_message(session: &Arc<Session>, msg: Message) -> FrameOutcome {
    match session.handle_incoming(msg) {
        Incoming::Nothing => FrameOutcome::Now(Answer::Nothing),
        Incoming::Reply(m) => FrameOutcome::Now(Answer::One(m)),
        Incoming::Pending(fut) => FrameOutcome::Later(Box::pin(async move {
            match fut.await {
                Some(m) => Answer::One(m),
                None => Answer::Nothing,
            }
        })),
    }
}

/// The answer to a `tools/call` of the typed lane (`None`: cancelled, nothing is sent).
fn lane_answer(answer: Option<LaneAnswer>) -> Answer {
    match answer {
        None => Answer::Nothing,
        Some(LaneAnswer::Msg(m)) => Answer::One(m),
        Some(a) => Answer::Lane(a),
    }
}

enum FrameOutcome {
    Now(Answer),
    Later(BoxFuture<'static, Answer>),
}

/// A message over the size limit (`prefix` holds its first bytes, or all of it): what to answer.
///
/// A request gets its error with its own id (found in the first bytes), so the peer can match
/// it; a response fails the request waiting for it at once, with a clear error, instead of
/// leaving it to wait forever; a notification (seen whole, without id) is dropped (nothing may
/// answer it); a message whose first bytes do not reach its id gets an error without id.
fn refuse_oversized(session: &Session, prefix: &[u8], size: usize) -> Option<Message> {
    let max = session.config.max_message_size;
    let env = crate::jsonrpc::scan_envelope(prefix);
    match (env.id, env.method, env.answer) {
        (Some(id), false, true) => {
            session.fail_request(
                &id,
                McpError::internal(format!(
                    "the response of {size} bytes exceeds the limit of {max} bytes (max_message_size)"
                )),
            );
            None
        }
        (None, true, _) if env.complete => {
            tracing::warn!(size, max, "notification over the size limit dropped");
            None
        }
        (id, _, _) => Some(Message::error(
            id,
            McpError::invalid_request(format!(
                "message of {size} bytes exceeds the limit of {max} bytes"
            )),
        )),
    }
}
