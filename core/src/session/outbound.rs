//! The bounded queue of messages a session wants sent that are not direct responses.
//!
//! Notifications and server-to-client (or client-to-server) requests go through here; each
//! carries the id of the incoming request it relates to, so that the HTTP transport can route it
//! onto that request's SSE stream. Message transports ignore the relation.

use crate::jsonrpc::{Message, RequestId};
use crate::McpError;
use tokio::sync::mpsc;

/// A message queued for sending, with the incoming request it belongs to (if any).
#[derive(Debug)]
pub struct OutboundMessage {
    /// The message.
    pub message: Message,
    /// The incoming request this message was produced while serving.
    pub related: Option<RequestId>,
}

/// The sending end of a session's outbound queue.
#[derive(Clone, Debug)]
pub struct Outbound {
    tx: mpsc::Sender<OutboundMessage>,
}

impl Outbound {
    /// A queue holding at most `capacity` messages; the receiver goes to the transport.
    pub fn channel(capacity: usize) -> (Outbound, mpsc::Receiver<OutboundMessage>) {
        let (tx, rx) = mpsc::channel(capacity);
        (Outbound { tx }, rx)
    }

    /// Queues a message, waiting for room (back-pressure from a slow peer).
    pub async fn send(&self, message: Message, related: Option<RequestId>) -> Result<(), McpError> {
        self.tx
            .send(OutboundMessage { message, related })
            .await
            .map_err(|_| McpError::connection_closed("connection closed"))
    }

    /// Queues a message without waiting; fails if the queue is full or closed.
    pub fn try_send(&self, message: Message, related: Option<RequestId>) -> Result<(), McpError> {
        self.tx
            .try_send(OutboundMessage { message, related })
            .map_err(|e| match e {
                mpsc::error::TrySendError::Full(_) => McpError::transport("outbound queue full"),
                mpsc::error::TrySendError::Closed(_) => {
                    McpError::connection_closed("connection closed")
                }
            })
    }

    /// Whether the transport has stopped taking messages.
    pub fn is_closed(&self) -> bool {
        self.tx.is_closed()
    }
}
