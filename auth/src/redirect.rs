//! The user-facing step of the authorization code flow: sending the user to the authorization
//! URL and receiving the redirect back. [`RedirectHandler`] is the hook; [`LoopbackRedirect`]
//! serves desktop hosts (a one-shot listener on 127.0.0.1), [`AutoApprove`] serves tests and
//! authorization servers that approve without a user.

use super::http::AuthHttp;
use super::AuthError;
use futures_util::future::BoxFuture;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Sends the user to the authorization URL and returns the URL the authorization server
/// redirected back to (carrying `code`, `state` and maybe `iss`, or `error`).
pub trait RedirectHandler: Send + Sync {
    /// The `redirect_uri` registered for and sent with the authorization request.
    fn redirect_uri(&self) -> String;
    /// Shows `authorization_url` to the user (browser, QR code...) and resolves with the full
    /// redirect URL once the authorization server sent the user back.
    fn authorize(&self, authorization_url: String)
        -> BoxFuture<'static, Result<String, AuthError>>;
}

/// A redirect handler from a redirect URI and a function; handy for hosts with their own
/// callback route.
pub struct FnRedirect<F> {
    redirect_uri: String,
    f: F,
}

impl<F> FnRedirect<F>
where
    F: Fn(String) -> BoxFuture<'static, Result<String, AuthError>> + Send + Sync,
{
    /// `f` receives the authorization URL and resolves with the redirect URL.
    pub fn new(redirect_uri: impl Into<String>, f: F) -> Self {
        Self {
            redirect_uri: redirect_uri.into(),
            f,
        }
    }
}

impl<F> RedirectHandler for FnRedirect<F>
where
    F: Fn(String) -> BoxFuture<'static, Result<String, AuthError>> + Send + Sync,
{
    fn redirect_uri(&self) -> String {
        self.redirect_uri.clone()
    }
    fn authorize(
        &self,
        authorization_url: String,
    ) -> BoxFuture<'static, Result<String, AuthError>> {
        (self.f)(authorization_url)
    }
}

/// Requests the authorization URL itself and takes the `Location` the authorization server
/// redirects to, without a user. Only for authorization servers that approve at once (test
/// servers, the conformance suite's mock); a real server would show a login page instead,
/// which is reported as an error.
#[derive(Clone)]
pub struct AutoApprove {
    redirect_uri: String,
    http: AuthHttp,
}

impl AutoApprove {
    /// Uses `redirect_uri` as the registered redirect URI (nothing listens there).
    pub fn new(redirect_uri: impl Into<String>) -> Self {
        Self {
            redirect_uri: redirect_uri.into(),
            http: AuthHttp::default(),
        }
    }
}

impl RedirectHandler for AutoApprove {
    fn redirect_uri(&self) -> String {
        self.redirect_uri.clone()
    }
    fn authorize(
        &self,
        authorization_url: String,
    ) -> BoxFuture<'static, Result<String, AuthError>> {
        let http = self.http.clone();
        Box::pin(async move {
            let answer = http.get(&authorization_url).await?;
            if !answer.status.is_redirection() {
                return Err(AuthError::Redirect(format!(
                    "the authorization endpoint answered HTTP {} instead of redirecting",
                    answer.status
                )));
            }
            answer
                .headers
                .get("location")
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
                .ok_or_else(|| AuthError::Redirect("redirect without a Location".into()))
        })
    }
}

type Opener = Arc<dyn Fn(&str) -> Result<(), String> + Send + Sync>;

/// Receives the redirect on a loopback listener (`http://127.0.0.1:PORT/callback`), for
/// desktop hosts: `open` shows the authorization URL (typically by launching the browser), the
/// listener waits for the browser to come back and answers it with a short page.
pub struct LoopbackRedirect {
    listener: Mutex<Option<std::net::TcpListener>>,
    port: u16,
    path: String,
    open: Opener,
    timeout: Duration,
}

impl LoopbackRedirect {
    /// Binds `127.0.0.1:port` (0: any free port) now, so the redirect URI is known before
    /// registration. `open` receives the authorization URL.
    pub fn bind(
        port: u16,
        open: impl Fn(&str) -> Result<(), String> + Send + Sync + 'static,
    ) -> std::io::Result<Self> {
        let listener = std::net::TcpListener::bind(("127.0.0.1", port))?;
        listener.set_nonblocking(true)?;
        let port = listener.local_addr()?.port();
        Ok(Self {
            listener: Mutex::new(Some(listener)),
            port,
            path: "/callback".into(),
            open: Arc::new(open),
            timeout: Duration::from_secs(300),
        })
    }

    /// How long to wait for the browser (default 5 minutes).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }
}

impl RedirectHandler for LoopbackRedirect {
    fn redirect_uri(&self) -> String {
        format!("http://127.0.0.1:{}{}", self.port, self.path)
    }

    fn authorize(
        &self,
        authorization_url: String,
    ) -> BoxFuture<'static, Result<String, AuthError>> {
        let listener = self
            .listener
            .lock()
            .unwrap()
            .as_ref()
            .map(|l| l.try_clone());
        let open = self.open.clone();
        let (port, path, timeout) = (self.port, self.path.clone(), self.timeout);
        Box::pin(async move {
            let listener = match listener {
                Some(Ok(l)) => tokio::net::TcpListener::from_std(l)
                    .map_err(|e| AuthError::Redirect(format!("loopback listener: {e}")))?,
                Some(Err(e)) => return Err(AuthError::Redirect(format!("loopback listener: {e}"))),
                None => return Err(AuthError::Redirect("loopback listener closed".into())),
            };
            open(&authorization_url).map_err(AuthError::Redirect)?;
            let wait = async {
                loop {
                    let (mut sock, _) = listener
                        .accept()
                        .await
                        .map_err(|e| AuthError::Redirect(format!("loopback accept: {e}")))?;
                    let mut buf = Vec::new();
                    let mut chunk = [0u8; 2048];
                    let head = loop {
                        let n = match tokio::time::timeout(
                            Duration::from_secs(10),
                            sock.read(&mut chunk),
                        )
                        .await
                        {
                            Ok(Ok(n)) if n > 0 => n,
                            _ => break None,
                        };
                        buf.extend_from_slice(&chunk[..n]);
                        if buf.windows(4).any(|w| w == b"\r\n\r\n") || buf.len() > 16 * 1024 {
                            break Some(String::from_utf8_lossy(&buf).into_owned());
                        }
                    };
                    let target = head.as_deref().and_then(|h| {
                        let line = h.lines().next()?;
                        let mut it = line.split(' ');
                        (it.next()? == "GET").then_some(())?;
                        it.next().map(str::to_string)
                    });
                    match target {
                        Some(t) if t.split('?').next() == Some(path.as_str()) => {
                            let page = "<!doctype html><title>Authorized</title>\
                                <p>Authorization finished; you can close this window.</p>";
                            let resp = format!(
                                "HTTP/1.1 200 OK\r\ncontent-type: text/html; charset=utf-8\r\n\
                                 content-length: {}\r\nconnection: close\r\n\r\n{page}",
                                page.len()
                            );
                            let _ = sock.write_all(resp.as_bytes()).await;
                            return Ok(format!("http://127.0.0.1:{port}{t}"));
                        }
                        _ => {
                            let _ = sock
                                .write_all(
                                    b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
                                )
                                .await;
                        }
                    }
                }
            };
            tokio::time::timeout(timeout, wait).await.map_err(|_| {
                AuthError::Redirect(format!(
                    "no redirect to the loopback listener within {}s",
                    timeout.as_secs()
                ))
            })?
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    #[tokio::test]
    async fn loopback_returns_the_callback_url_and_ignores_other_paths() {
        let lb = LoopbackRedirect::bind(0, |url: &str| {
            // The "browser": checks the URL it was given, then comes back twice.
            assert_eq!(url, "http://as.example/authorize?x=1");
            Ok(())
        })
        .unwrap();
        let redirect_uri = lb.redirect_uri();
        let port = redirect_uri
            .strip_prefix("http://127.0.0.1:")
            .and_then(|r| r.strip_suffix("/callback"))
            .unwrap()
            .to_string();
        let browser = std::thread::spawn(move || {
            let mut pages = Vec::new();
            for target in ["/favicon.ico", "/callback?code=c%201&state=s"] {
                let mut sock = std::net::TcpStream::connect(format!("127.0.0.1:{port}")).unwrap();
                write!(sock, "GET {target} HTTP/1.1\r\nhost: x\r\n\r\n").unwrap();
                let mut page = String::new();
                sock.read_to_string(&mut page).unwrap();
                pages.push(page);
            }
            pages
        });
        let got = lb
            .authorize("http://as.example/authorize?x=1".into())
            .await
            .unwrap();
        assert_eq!(got, format!("{}?code=c%201&state=s", redirect_uri));
        let pages = browser.join().unwrap();
        assert!(pages[0].starts_with("HTTP/1.1 404"), "{}", pages[0]);
        assert!(pages[1].starts_with("HTTP/1.1 200"), "{}", pages[1]);
    }

    #[tokio::test]
    async fn loopback_times_out_and_open_errors_surface() {
        let lb = LoopbackRedirect::bind(0, |_: &str| Ok(()))
            .unwrap()
            .timeout(Duration::from_millis(100));
        let e = lb.authorize("http://as/a".into()).await.unwrap_err();
        assert!(
            matches!(e, AuthError::Redirect(ref d) if d.contains("within")),
            "{e}"
        );
        let lb = LoopbackRedirect::bind(0, |_: &str| Err("no browser".into())).unwrap();
        let e = lb.authorize("http://as/a".into()).await.unwrap_err();
        assert_eq!(e, AuthError::Redirect("no browser".into()));
    }
}
