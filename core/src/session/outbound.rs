//! The bounded queue of messages a session wants sent that are not direct responses.
//!
//! Notifications and server-to-client (or client-to-server) requests go through here; each
//! carries the id of the incoming request it relates to, so that the HTTP transport can route it
//! onto that request's SSE stream. Message transports ignore the relation.
//!
//! Two kinds of outbound exist: a bounded queue drained by the transport's writer task (message
//! transports), or a synchronous [`OutboundSink`] that routes each message the moment it is sent
//! (the HTTP server, whose per-stream queues are bounded themselves): no task, no queue per
//! session, and a request's messages keep their order without a pump in between.

use crate::jsonrpc::{Message, RequestId};
use crate::McpError;
use std::sync::{Arc, Weak};
use tokio::sync::{mpsc, oneshot};

/// A message queued for sending, with the incoming request it belongs to (if any).
#[derive(Debug)]
#[non_exhaustive]
pub struct OutboundMessage {
    /// The message.
    pub message: Message,
    /// The incoming request this message was produced while serving.
    pub related: Option<RequestId>,
    /// Told once the transport has written the message (see [`Outbound::send_written`]).
    pub(crate) written: Option<oneshot::Sender<()>>,
}

impl OutboundMessage {
    /// Tells whoever waits for this message (if anyone) that the transport has written it.
    pub(crate) fn written(&mut self) {
        if let Some(tx) = self.written.take() {
            let _ = tx.send(());
        }
    }
}

/// Where a session's outbound messages go when the transport routes them itself, synchronously.
pub trait OutboundSink: Send + Sync + 'static {
    /// Routes one message now; must not block. Fails when the transport no longer takes messages.
    fn deliver(&self, message: OutboundMessage) -> Result<(), McpError>;
    /// Whether the transport has stopped taking messages.
    fn is_closed(&self) -> bool;
    /// The session closed: end whatever the transport still holds open for it.
    fn session_closed(&self) {}
    /// Closes the stream carrying request `id`'s messages (SSE polling); whether there was one.
    fn close_request_stream(&self, _id: &RequestId) -> bool {
        false
    }
    /// Whether server-wide notifications for this session should be sent from this process;
    /// false when another replica holds the session's stream and delivers them there.
    fn takes_broadcasts(&self) -> bool {
        true
    }
}

#[derive(Clone)]
enum Target {
    Queue(mpsc::Sender<OutboundMessage>),
    Sink(Weak<dyn OutboundSink>),
    /// Nowhere: a request answered with one JSON body that asked for no other message.
    Discard,
}

/// The sending end of a session's outbound queue.
#[derive(Clone)]
pub struct Outbound {
    target: Target,
}

impl std::fmt::Debug for Outbound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match self.target {
            Target::Queue(_) => "queue",
            Target::Sink(_) => "sink",
            Target::Discard => "discard",
        };
        f.debug_struct("Outbound").field("kind", &kind).finish()
    }
}

impl Outbound {
    /// A queue holding at most `capacity` messages; the receiver goes to the transport.
    pub fn channel(capacity: usize) -> (Outbound, mpsc::Receiver<OutboundMessage>) {
        let (tx, rx) = mpsc::channel(capacity);
        (
            Outbound {
                target: Target::Queue(tx),
            },
            rx,
        )
    }

    /// Whether server-wide notifications should be sent from this process (see
    /// [`OutboundSink::takes_broadcasts`]).
    pub(crate) fn takes_broadcasts(&self) -> bool {
        match &self.target {
            Target::Queue(_) => true,
            Target::Sink(s) => s.upgrade().is_some_and(|s| s.takes_broadcasts()),
            Target::Discard => false,
        }
    }

    /// An outbound that hands every message to `sink` as it is sent. The sink is held weakly (it
    /// usually owns the session): once it is gone, sending fails as on a closed connection.
    pub fn sink(sink: Weak<dyn OutboundSink>) -> Outbound {
        Outbound {
            target: Target::Sink(sink),
        }
    }

    /// An outbound that drops every message: for a session serving one request whose answer is
    /// its only message (Streamable HTTP's per-request era answered with one JSON body, where
    /// a stateless session's other messages would be dropped all the same). Sending succeeds.
    pub(crate) fn discard() -> Outbound {
        Outbound {
            target: Target::Discard,
        }
    }

    fn live_sink(sink: &Weak<dyn OutboundSink>) -> Result<Arc<dyn OutboundSink>, McpError> {
        sink.upgrade()
            .ok_or_else(|| McpError::connection_closed("connection closed"))
    }

    /// Queues a message, waiting for room (back-pressure from a slow peer).
    pub async fn send(&self, message: Message, related: Option<RequestId>) -> Result<(), McpError> {
        match &self.target {
            Target::Queue(tx) => tx
                .send(OutboundMessage {
                    message,
                    related,
                    written: None,
                })
                .await
                .map_err(|_| McpError::connection_closed("connection closed")),
            Target::Sink(s) => Self::live_sink(s)?.deliver(OutboundMessage {
                message,
                related,
                written: None,
            }),
            Target::Discard => Ok(()),
        }
    }

    /// [`Self::send`], returning once the transport has written the message, not when it was
    /// queued: over Streamable HTTP once the server answered its POST (a notification is
    /// handled before the answer), so what the message changes on the server has happened.
    /// A sink routes the message as it is sent; a discarding outbound drops it.
    pub(crate) async fn send_written(&self, message: Message) -> Result<(), McpError> {
        let Target::Queue(tx) = &self.target else {
            return self.send(message, None).await;
        };
        let (written, done) = oneshot::channel();
        tx.send(OutboundMessage {
            message,
            related: None,
            written: Some(written),
        })
        .await
        .map_err(|_| McpError::connection_closed("connection closed"))?;
        done.await.map_err(|_| {
            McpError::connection_closed("connection closed before the message was written")
        })
    }

    /// Queues a message without waiting; fails if the queue is full or closed.
    pub fn try_send(&self, message: Message, related: Option<RequestId>) -> Result<(), McpError> {
        match &self.target {
            Target::Queue(tx) => tx
                .try_send(OutboundMessage {
                    message,
                    related,
                    written: None,
                })
                .map_err(|e| match e {
                    mpsc::error::TrySendError::Full(_) => {
                        McpError::transport("outbound queue full")
                    }
                    mpsc::error::TrySendError::Closed(_) => {
                        McpError::connection_closed("connection closed")
                    }
                }),
            Target::Sink(s) => Self::live_sink(s)?.deliver(OutboundMessage {
                message,
                related,
                written: None,
            }),
            Target::Discard => Ok(()),
        }
    }

    /// Whether the transport has stopped taking messages.
    pub fn is_closed(&self) -> bool {
        match &self.target {
            Target::Queue(tx) => tx.is_closed(),
            Target::Sink(s) => s.upgrade().is_none_or(|s| s.is_closed()),
            Target::Discard => false,
        }
    }

    /// Whether this is a queue (a message-stream transport's), not a sink.
    pub(crate) fn is_queue(&self) -> bool {
        matches!(self.target, Target::Queue(_))
    }

    /// Tells a sink that its session closed (queues notice by themselves).
    pub(crate) fn session_closed(&self) {
        if let Target::Sink(s) = &self.target {
            if let Some(s) = s.upgrade() {
                s.session_closed();
            }
        }
    }

    /// Asks a sink to close request `id`'s stream; false for queues.
    pub(crate) fn close_request_stream(&self, id: &RequestId) -> bool {
        match &self.target {
            Target::Sink(s) => s.upgrade().is_some_and(|s| s.close_request_stream(id)),
            Target::Queue(_) | Target::Discard => false,
        }
    }
}
