//! A WebSocket transport: one MCP frame per WebSocket message, subprotocol `mcp`.
//!
//! WebSocket is not one of the transports the MCP specification defines; this is a custom
//! transport (the specification allows those) for hosts that want a long-lived bidirectional
//! connection over the network. Clients offer the subprotocol `mcp` and require the server to
//! accept it; servers accept it when it is offered.
//!
//! # Reading
//!
//! * Text messages are frames. Binary messages are frames too: their bytes go to the session
//!   layer unchanged, which rejects invalid UTF-8 or JSON with a parse error exactly as it does
//!   for any other transport.
//! * Pings are answered automatically (the answer goes out on the next read); pongs are ignored.
//! * A close frame from the peer, or the peer vanishing without one, is end of input
//!   ([`ReadStatus::Eof`]).
//! * A message larger than the configured limit is refused before it is buffered and reported
//!   as [`ReadStatus::Oversized`]. The connection cannot be resynchronised after that, so the
//!   next read closes it with status 1009 ("message too big") and reports end of input. The
//!   writer stays usable in between, so an error response can still be sent.
//!
//! # Writing
//!
//! [`FrameWriter::write_frame`] queues a text message, [`FrameWriter::flush`] sends what is
//! queued, [`FrameWriter::close`] sends a normal close frame.
//!
//! Only `ws://` URLs are connected directly; for `wss://`, establish the TLS stream yourself
//! and hand it to [`connect_stream`] (servers: [`accept_with`]).

use super::{FrameReader, FrameWriter, ReadStatus, TransportKind};
use crate::error::McpError;
use crate::jsonrpc::DEFAULT_MAX_MESSAGE_SIZE;
use futures_util::stream::{SplitSink, SplitStream};
use futures_util::{SinkExt, StreamExt};
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, TcpStream, ToSocketAddrs};
use tokio::sync::{mpsc, Mutex, Semaphore};
use tokio::task::JoinHandle;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::error::{CapacityError, ProtocolError};
use tokio_tungstenite::tungstenite::handshake::server::{ErrorResponse, Request, Response};
use tokio_tungstenite::tungstenite::http::{HeaderName, HeaderValue};
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::{CloseFrame, WebSocketConfig};
use tokio_tungstenite::tungstenite::{Error as WsError, Message};
use tokio_tungstenite::WebSocketStream;

/// The WebSocket subprotocol spoken by this transport.
pub const SUBPROTOCOL: &str = "mcp";

const PROTOCOL_HEADER: &str = "sec-websocket-protocol";

/// How long a reader keeps reading after a close frame so the closing handshake can complete.
const CLOSE_DRAIN: Duration = Duration::from_secs(2);

/// Any byte stream a WebSocket can run over (TCP, TLS, ...).
trait Io: AsyncRead + AsyncWrite + Send + Unpin + 'static {}
impl<T: AsyncRead + AsyncWrite + Send + Unpin + 'static> Io for T {}

type WsStream = WebSocketStream<Box<dyn Io>>;
type WsSink = SplitSink<WsStream, Message>;

/// Settings of WebSocket connections and listeners.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct WebSocketOptions {
    /// Largest message accepted from the peer, in bytes.
    pub max_message_size: usize,
    /// How long the opening handshake may take.
    pub handshake_timeout: Duration,
    /// How many incoming connections a [`WebSocketListener`] handshakes or holds for
    /// [`WebSocketListener::accept`] at once; further connections wait in the kernel's backlog.
    pub max_pending: usize,
}

impl Default for WebSocketOptions {
    fn default() -> Self {
        Self {
            max_message_size: DEFAULT_MAX_MESSAGE_SIZE,
            handshake_timeout: Duration::from_secs(10),
            max_pending: 64,
        }
    }
}

impl WebSocketOptions {
    /// Sets the largest message accepted from the peer.
    pub fn max_message_size(mut self, bytes: usize) -> Self {
        self.max_message_size = bytes;
        self
    }

    /// Sets how long the opening handshake may take.
    pub fn handshake_timeout(mut self, timeout: Duration) -> Self {
        self.handshake_timeout = timeout;
        self
    }

    /// Sets how many incoming connections a listener handles ahead of `accept`.
    pub fn max_pending(mut self, connections: usize) -> Self {
        self.max_pending = connections.max(1);
        self
    }

    fn config(&self) -> WebSocketConfig {
        // Frames and messages are both capped, so a peer cannot make us buffer more than the
        // limit: an oversized frame is refused from its header alone.
        WebSocketConfig::default()
            .max_message_size(Some(self.max_message_size))
            .max_frame_size(Some(self.max_message_size))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ReaderState {
    Open,
    /// An oversized message was refused; the next read closes the connection.
    Oversized,
    Done,
}

/// The receiving half of a WebSocket transport.
pub struct WebSocketReader {
    stream: SplitStream<WsStream>,
    sink: Arc<Mutex<WsSink>>,
    state: ReaderState,
}

/// The sending half of a WebSocket transport.
pub struct WebSocketWriter {
    sink: Arc<Mutex<WsSink>>,
}

fn split(ws: WsStream) -> (WebSocketReader, WebSocketWriter) {
    let (sink, stream) = ws.split();
    let sink = Arc::new(Mutex::new(sink));
    (
        WebSocketReader {
            stream,
            sink: Arc::clone(&sink),
            state: ReaderState::Open,
        },
        WebSocketWriter { sink },
    )
}

fn to_io(e: WsError) -> io::Error {
    match e {
        WsError::Io(e) => e,
        WsError::ConnectionClosed | WsError::AlreadyClosed => {
            io::Error::from(io::ErrorKind::BrokenPipe)
        }
        other => io::Error::other(other),
    }
}

impl WebSocketReader {
    /// Reads on after a close frame so the library answers it and the handshake completes;
    /// bounded so a peer that never closes the TCP connection cannot stall us.
    async fn drain_after_close(&mut self) {
        let drain = async { while let Some(Ok(_)) = self.stream.next().await {} };
        let _ = tokio::time::timeout(CLOSE_DRAIN, drain).await;
    }

    async fn close_oversized(&mut self) {
        let frame = CloseFrame {
            code: CloseCode::Size,
            reason: "message too big".into(),
        };
        let close = async {
            let mut sink = self.sink.lock().await;
            let _ = sink.send(Message::Close(Some(frame))).await;
        };
        let _ = tokio::time::timeout(CLOSE_DRAIN, close).await;
    }
}

impl FrameReader for WebSocketReader {
    fn transport_kind(&self) -> TransportKind {
        TransportKind::WebSocket
    }

    async fn read_frame(&mut self, buf: &mut Vec<u8>) -> io::Result<ReadStatus> {
        buf.clear();
        match self.state {
            ReaderState::Open => {}
            ReaderState::Done => return Ok(ReadStatus::Eof),
            ReaderState::Oversized => {
                self.state = ReaderState::Done;
                self.close_oversized().await;
                return Ok(ReadStatus::Eof);
            }
        }
        loop {
            let Some(item) = self.stream.next().await else {
                self.state = ReaderState::Done;
                return Ok(ReadStatus::Eof);
            };
            match item {
                Ok(Message::Text(text)) => {
                    buf.extend_from_slice(text.as_bytes());
                    return Ok(ReadStatus::Frame);
                }
                Ok(Message::Binary(bytes)) => {
                    buf.extend_from_slice(&bytes);
                    return Ok(ReadStatus::Frame);
                }
                Ok(Message::Ping(_) | Message::Pong(_) | Message::Frame(_)) => continue,
                Ok(Message::Close(_)) => {
                    self.state = ReaderState::Done;
                    self.drain_after_close().await;
                    return Ok(ReadStatus::Eof);
                }
                Err(WsError::Capacity(CapacityError::MessageTooLong { size, .. })) => {
                    self.state = ReaderState::Oversized;
                    return Ok(ReadStatus::Oversized(size));
                }
                Err(
                    WsError::ConnectionClosed
                    | WsError::AlreadyClosed
                    | WsError::Protocol(ProtocolError::ResetWithoutClosingHandshake),
                ) => {
                    self.state = ReaderState::Done;
                    return Ok(ReadStatus::Eof);
                }
                Err(e) => {
                    self.state = ReaderState::Done;
                    return Err(to_io(e));
                }
            }
        }
    }
}

impl FrameWriter for WebSocketWriter {
    async fn write_frame(&mut self, frame: &[u8]) -> io::Result<()> {
        let text = std::str::from_utf8(frame)
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
        let mut sink = self.sink.lock().await;
        sink.feed(Message::text(text)).await.map_err(to_io)
    }

    async fn flush(&mut self) -> io::Result<()> {
        let mut sink = self.sink.lock().await;
        sink.flush().await.map_err(to_io)
    }

    async fn close(&mut self) -> io::Result<()> {
        let mut sink = self.sink.lock().await;
        let frame = CloseFrame {
            code: CloseCode::Normal,
            reason: "".into(),
        };
        let result = match sink.feed(Message::Close(Some(frame))).await {
            Ok(()) => sink.close().await,
            Err(e) => Err(e),
        };
        match result {
            Ok(())
            | Err(
                WsError::ConnectionClosed
                | WsError::AlreadyClosed
                | WsError::Protocol(ProtocolError::SendAfterClosing),
            ) => Ok(()),
            Err(e) => Err(to_io(e)),
        }
    }
}

fn handshake_error(url: &str, e: WsError) -> McpError {
    match e {
        WsError::Http(response) => McpError::transport(format!(
            "WebSocket handshake with {url} refused: HTTP {}",
            response.status()
        )),
        other => McpError::transport(format!("WebSocket handshake with {url} failed: {other}"))
            .with_source(other),
    }
}

async fn with_timeout<T>(
    timeout: Duration,
    what: &str,
    fut: impl std::future::Future<Output = Result<T, McpError>>,
) -> Result<T, McpError> {
    tokio::time::timeout(timeout, fut).await.map_err(|e| {
        McpError::transport(format!("{what} timed out after {timeout:?}")).with_source(e)
    })?
}

/// Connects to a `ws://` URL with default options, offering the subprotocol `mcp`.
///
/// `headers` are added to the opening request (for example `Authorization`); each replaces any
/// earlier value of the same name. The server must accept the subprotocol `mcp`.
///
/// Not run here: it needs a WebSocket MCP server.
///
/// ```no_run
/// use ferromcp::client::{Client, ClientHandlers, ClientOptions};
/// use ferromcp::transport::websocket;
///
/// # #[tokio::main]
/// # async fn main() -> Result<(), ferromcp::McpError> {
/// let (reader, writer) = websocket::connect("ws://127.0.0.1:8765/mcp", &[("authorization", "Bearer s3cret")]).await?;
/// let client = Client::connect(ClientOptions::new("c", "1"), ClientHandlers::default(), reader, writer).await?;
/// println!("{:?}", client.list_all_tools().await?);
/// # Ok(())
/// # }
/// ```
pub async fn connect(
    url: &str,
    headers: &[(&str, &str)],
) -> Result<(WebSocketReader, WebSocketWriter), McpError> {
    connect_with(url, headers, WebSocketOptions::default()).await
}

/// Like [`connect`], with explicit options.
pub async fn connect_with(
    url: &str,
    headers: &[(&str, &str)],
    options: WebSocketOptions,
) -> Result<(WebSocketReader, WebSocketWriter), McpError> {
    let request = url
        .into_client_request()
        .map_err(|e| McpError::transport(format!("invalid WebSocket URL `{url}`: {e}")))?;
    let uri = request.uri();
    match uri.scheme_str() {
        Some("ws") => {}
        Some("wss") => {
            return Err(McpError::transport(format!(
                "`{url}` needs TLS: open the TLS stream yourself and use websocket::connect_stream"
            )))
        }
        _ => return Err(McpError::transport(format!("`{url}` is not a ws:// URL"))),
    }
    let host = uri
        .host()
        .ok_or_else(|| McpError::transport(format!("`{url}` has no host")))?;
    let host = host
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_owned();
    let port = uri.port_u16().unwrap_or(80);
    let tcp = with_timeout(options.handshake_timeout, "WebSocket connect", async {
        TcpStream::connect((host.as_str(), port))
            .await
            .map_err(|e| {
                McpError::transport(format!("cannot connect to {url}: {e}")).with_source(e)
            })
    })
    .await?;
    let _ = tcp.set_nodelay(true);
    connect_stream(url, headers, tcp, options).await
}

/// Performs the client handshake for `url` over an already established stream (for example
/// TLS for `wss://`), offering the subprotocol `mcp`.
pub async fn connect_stream<S>(
    url: &str,
    headers: &[(&str, &str)],
    stream: S,
    options: WebSocketOptions,
) -> Result<(WebSocketReader, WebSocketWriter), McpError>
where
    S: AsyncRead + AsyncWrite + Send + Unpin + 'static,
{
    let mut request = url
        .into_client_request()
        .map_err(|e| McpError::transport(format!("invalid WebSocket URL `{url}`: {e}")))?;
    let request_headers = request.headers_mut();
    request_headers.insert(PROTOCOL_HEADER, HeaderValue::from_static(SUBPROTOCOL));
    for (name, value) in headers {
        let name = HeaderName::from_bytes(name.as_bytes())
            .map_err(|e| McpError::transport(format!("invalid header name `{name}`: {e}")))?;
        let value = HeaderValue::from_str(value)
            .map_err(|e| McpError::transport(format!("invalid value for header `{name}`: {e}")))?;
        request_headers.insert(name, value);
    }
    let stream: Box<dyn Io> = Box::new(stream);
    let config = options.config();
    let (ws, _response) = with_timeout(options.handshake_timeout, "WebSocket handshake", async {
        tokio_tungstenite::client_async_with_config(request, stream, Some(config))
            .await
            .map_err(|e| handshake_error(url, e))
    })
    .await?;
    Ok(split(ws))
}

/// Whether the client's opening request offers the subprotocol `mcp`.
fn offers_mcp(request: &Request) -> bool {
    request
        .headers()
        .get_all(PROTOCOL_HEADER)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .any(|protocol| protocol.trim() == SUBPROTOCOL)
}

/// The server handshake callback: answers with the subprotocol `mcp` when it is offered.
// The error type is dictated by tungstenite's callback signature, and this never fails.
#[allow(clippy::result_large_err)]
fn negotiate(request: &Request, mut response: Response) -> Result<Response, ErrorResponse> {
    if offers_mcp(request) {
        response
            .headers_mut()
            .insert(PROTOCOL_HEADER, HeaderValue::from_static(SUBPROTOCOL));
    }
    Ok(response)
}

/// Performs the server handshake on an accepted TCP connection with default options,
/// answering with the subprotocol `mcp` when the client offers it.
pub async fn accept(stream: TcpStream) -> Result<(WebSocketReader, WebSocketWriter), McpError> {
    let _ = stream.set_nodelay(true);
    accept_with(stream, WebSocketOptions::default()).await
}

/// Performs the server handshake over any stream (for example TLS), with explicit options.
pub async fn accept_with<S>(
    stream: S,
    options: WebSocketOptions,
) -> Result<(WebSocketReader, WebSocketWriter), McpError>
where
    S: AsyncRead + AsyncWrite + Send + Unpin + 'static,
{
    let stream: Box<dyn Io> = Box::new(stream);
    let config = options.config();
    let ws = with_timeout(options.handshake_timeout, "WebSocket handshake", async {
        tokio_tungstenite::accept_hdr_async_with_config(stream, negotiate, Some(config))
            .await
            .map_err(|e| handshake_error("client", e))
    })
    .await?;
    Ok(split(ws))
}

/// A connection accepted by a [`WebSocketListener`]: the transport halves and the peer's
/// address.
pub type Accepted = (WebSocketReader, WebSocketWriter, SocketAddr);

/// A WebSocket server socket. Handshakes run concurrently in the background (a slow or
/// failing client never holds up the others); [`Self::accept`] hands out the connections that
/// completed theirs.
pub struct WebSocketListener {
    local_addr: SocketAddr,
    incoming: mpsc::Receiver<Accepted>,
    task: JoinHandle<()>,
}

impl WebSocketListener {
    /// Binds to `addr` with default options. Must be called inside a Tokio runtime.
    pub async fn bind(addr: impl ToSocketAddrs) -> io::Result<Self> {
        Self::bind_with(addr, WebSocketOptions::default()).await
    }

    /// Binds to `addr` with explicit options.
    pub async fn bind_with(
        addr: impl ToSocketAddrs,
        options: WebSocketOptions,
    ) -> io::Result<Self> {
        Self::from_listener(TcpListener::bind(addr).await?, options)
    }

    /// Serves WebSocket connections on an already bound TCP listener.
    pub fn from_listener(listener: TcpListener, options: WebSocketOptions) -> io::Result<Self> {
        let local_addr = listener.local_addr()?;
        let (tx, incoming) = mpsc::channel(options.max_pending.max(1));
        let task = tokio::spawn(accept_loop(listener, tx, options));
        Ok(Self {
            local_addr,
            incoming,
            task,
        })
    }

    /// The address the listener is bound to (useful after binding port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The next connection that completed its handshake. Failed handshakes are logged and
    /// skipped. Cancel-safe.
    pub async fn accept(&mut self) -> io::Result<Accepted> {
        self.incoming
            .recv()
            .await
            .ok_or_else(|| io::Error::other("WebSocket listener stopped"))
    }
}

impl Drop for WebSocketListener {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn accept_loop(listener: TcpListener, tx: mpsc::Sender<Accepted>, options: WebSocketOptions) {
    let pending = Arc::new(Semaphore::new(options.max_pending.max(1)));
    loop {
        let Ok(permit) = Arc::clone(&pending).acquire_owned().await else {
            return;
        };
        let (tcp, peer) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(e) => {
                // Usually transient (out of descriptors, aborted connection): back off a bit.
                tracing::warn!(error = %e, "WebSocket listener accept failed");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        if tx.is_closed() {
            return;
        }
        let tx = tx.clone();
        let options = options.clone();
        tokio::spawn(async move {
            let _ = tcp.set_nodelay(true);
            match accept_with(tcp, options).await {
                Ok((reader, writer)) => {
                    let _ = tx.send((reader, writer, peer)).await;
                }
                Err(e) => tracing::debug!(%peer, error = %e, "WebSocket handshake failed"),
            }
            drop(permit);
        });
    }
}
