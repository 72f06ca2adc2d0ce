//! What travels on a stream's queue: SSE frames ready to write and answers kept as messages
//! (or as JSON text already written), plus the bodies of JSON responses built from them.

use super::super::queue::{stream_queue_bytes, Refused, StreamRx, StreamTx};
use crate::jsonrpc::{self, ErrorResponse, Message, RequestId};
use bytes::Bytes;

/// What a stream's receiver gets.
pub(super) enum Frame {
    Sse(Bytes),
    Msg(Out),
}

/// A message on its way to a stream: as a [`Message`], or an answer already written as JSON
/// text (a `tools/call` result goes from the tool's output to text without a JSON value tree,
/// by the same writer the stdio connection uses).
pub(super) enum Out {
    Msg(Message),
    /// A `tools/call` answer written as JSON text by the engine's writer (valid UTF-8 by
    /// construction, so it is not checked again per call).
    Written(RequestId, Vec<u8>),
}

impl Out {
    /// Whether this answers a request (a response, or an error with an id).
    pub(super) fn is_answer(&self) -> bool {
        match self {
            Out::Msg(m) => matches!(
                m,
                Message::Response(_) | Message::Error(ErrorResponse { id: Some(_), .. })
            ),
            Out::Written(..) => true,
        }
    }

    /// The id of the request this answers or makes, if any.
    pub(super) fn id(&self) -> Option<&RequestId> {
        match self {
            Out::Msg(m) => m.id(),
            Out::Written(id, _) => Some(id),
        }
    }

    /// The message as JSON text.
    pub(super) fn text(&self) -> std::borrow::Cow<'_, str> {
        match self {
            Out::Msg(m) => serde_json::to_string(m).expect("messages serialize").into(),
            Out::Written(_, t) => std::str::from_utf8(t)
                .expect("a written answer is JSON text")
                .into(),
        }
    }

    /// The message as JSON text, taken (a written answer is not copied).
    pub(super) fn into_bytes(self) -> Vec<u8> {
        match self {
            Out::Msg(m) => serde_json::to_vec(&m).expect("messages serialize"),
            Out::Written(_, t) => t,
        }
    }

    /// The message as a [`Message`] (a written answer is read back: only for the rare paths
    /// that keep messages, such as a legacy stream's backlog).
    pub(super) fn into_message(self) -> Message {
        match self {
            Out::Msg(m) => m,
            Out::Written(_, t) => match jsonrpc::parse(&t) {
                Ok(jsonrpc::Incoming::Single(m)) => m,
                _ => panic!("a written answer is one message"),
            },
        }
    }
}

impl From<crate::session::LaneAnswer> for Out {
    /// A `tools/call` answer of the engine's lane: a tool's result written as text now (by
    /// the writer the stdio connection uses), anything else kept as a message.
    fn from(a: crate::session::LaneAnswer) -> Out {
        match a {
            crate::session::LaneAnswer::Msg(m) => Out::Msg(m),
            crate::session::LaneAnswer::Tool(id, result, server) => {
                let mut text = Vec::new();
                crate::session::LaneAnswer::Tool(id.clone(), result, server).write(&mut text);
                Out::Written(id, text)
            }
        }
    }
}

/// The body of a JSON response: one message, or a batch's answers as an array.
pub(super) fn json_body(out: &[Out], batch: bool) -> Vec<u8> {
    if !batch {
        return out
            .first()
            .map_or_else(Vec::new, |o| o.text().into_owned().into_bytes());
    }
    let mut body = vec![b'['];
    for (i, o) in out.iter().enumerate() {
        if i > 0 {
            body.push(b',');
        }
        body.extend_from_slice(o.text().as_bytes());
    }
    body.push(b']');
    body
}

/// The sending side of a stream's bounded queue.
pub(super) type Tx = StreamTx<Frame>;
/// The receiving side of a stream's bounded queue.
pub(super) type Rx = StreamRx<Frame>;

/// A stream's queue: at most `cap` frames and `max_bytes` of them waiting for the reader
/// ([`crate::transport::http::HttpServerOptions::max_stream_buffered_bytes`]), and within the
/// budget `session` its session's streams share
/// ([`crate::transport::http::HttpServerOptions::max_session_buffered_bytes`]). An encoded
/// event or a written answer weighs its length; an answer kept as a message (for a JSON body,
/// which is written once complete) weighs nothing here: those are bounded by the POST's own
/// requests.
pub(super) fn frame_queue(
    cap: usize,
    max_bytes: usize,
    session: Option<(std::sync::Arc<std::sync::atomic::AtomicUsize>, usize)>,
) -> (Tx, Rx) {
    stream_queue_bytes(cap, max_bytes, weigh, session)
}

/// The bytes a frame holds while queued.
fn weigh(f: &Frame) -> usize {
    match f {
        Frame::Sse(b) => b.len(),
        Frame::Msg(Out::Written(_, t)) => t.len(),
        Frame::Msg(Out::Msg(_)) => 0,
    }
}

/// Offers a frame to a stream without waiting. False when the stream is gone or its reader has
/// fallen a whole queue (in frames or bytes) behind; the caller then drops the sender, which
/// ends that stream (its
/// events stay in the event store for resumption) rather than blocking the session.
pub(super) fn offer(tx: &Tx, frame: Frame) -> bool {
    match tx.try_send(frame) {
        Ok(()) => true,
        Err(Refused::Full) => {
            tracing::warn!("an SSE stream's reader is too slow; closing that stream");
            false
        }
        Err(Refused::Closed) => false,
    }
}
