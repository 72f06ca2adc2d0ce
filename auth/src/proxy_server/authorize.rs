//! The browser legs of the flow: the authorization request of an MCP client (checked, then the
//! consent page or straight upstream), the user's decision on the consent page, and the
//! upstream's redirect back to the proxy's callback, where the upstream code is exchanged and
//! the proxy's own code is sent to the client's redirect URI.
//!
//! Errors found before the client and its redirect URI are known are answered to the browser
//! (400); later ones go back to the client's redirect URI with `state` (RFC 6749 §4.1.2.1).

use super::super::pkce::Pkce;
use super::super::url::{canonical, parts, with_query};
use super::client_document::is_url_client_id;
use super::error::{invalid_request, OAuthErrorCode, OAuthFailure};
use super::records::{
    code_key, fresh, pending_key, pkce_text, same, ClientRecord, CodeRecord, Pending,
};
use super::register::loopback_host;
use super::wire::{Params, ProxyRequest, ProxyResponse};
use super::OAuthProxy;

/// The cookie binding a pending authorization to the browser that saw its consent page.
const COOKIE: &str = "ferromcp_oauth_consent";

/// Where an error goes: to the browser, or back to the client.
enum Refusal {
    Browser(OAuthFailure),
    Client {
        redirect_uri: String,
        state: Option<String>,
        failure: OAuthFailure,
    },
}

impl OAuthProxy {
    pub(super) async fn authorize(&self, req: &ProxyRequest) -> ProxyResponse {
        match self.authorize_inner(req).await {
            Ok(r) => r,
            Err(refusal) => self.refuse(refusal),
        }
    }

    fn refuse(&self, r: Refusal) -> ProxyResponse {
        match r {
            Refusal::Browser(f) => {
                // Never 401 here: the browser has no credentials to offer.
                let status = if f.code.status() == 401 {
                    400
                } else {
                    f.code.status()
                };
                ProxyResponse::json(status, &f.body())
            }
            Refusal::Client {
                redirect_uri,
                state,
                failure,
            } => {
                let mut q = vec![
                    ("error", failure.code.as_str().to_string()),
                    ("error_description", failure.description),
                ];
                if let Some(s) = state {
                    q.push(("state", s));
                }
                q.push(("iss", self.inner.config.issuer.clone()));
                ProxyResponse::redirect(with_query(&redirect_uri, &q))
            }
        }
    }

    async fn authorize_inner(&self, req: &ProxyRequest) -> Result<ProxyResponse, Refusal> {
        let params = if req.method.eq_ignore_ascii_case("POST") {
            Params::form(req)
        } else {
            Params::parse(req.query.as_bytes())
        }
        .map_err(Refusal::Browser)?;
        let client_id = params.require("client_id").map_err(Refusal::Browser)?;
        let client: ClientRecord = self
            .client(client_id)
            .await
            .map_err(Refusal::Browser)?
            .ok_or_else(|| {
                Refusal::Browser(OAuthFailure::new(
                    OAuthErrorCode::InvalidClient,
                    format!("unknown client_id {client_id}"),
                ))
            })?;
        let given = params.get("redirect_uri");
        let redirect_uri = match given {
            Some(u) => client
                .redirect_uris
                .iter()
                .find(|r| redirect_matches(r, u))
                .map(|_| u.to_string())
                .ok_or_else(|| {
                    Refusal::Browser(invalid_request(format!(
                        "redirect_uri {u} is not registered for this client"
                    )))
                })?,
            None if client.redirect_uris.len() == 1 => client.redirect_uris[0].clone(),
            None => {
                return Err(Refusal::Browser(invalid_request(
                    "redirect_uri is required: the client registered several",
                )))
            }
        };
        let state = params.get("state").map(str::to_string);
        let back = |failure: OAuthFailure| Refusal::Client {
            redirect_uri: redirect_uri.clone(),
            state: state.clone(),
            failure,
        };
        match params.get("response_type") {
            Some("code") => {}
            Some(other) => {
                return Err(back(OAuthFailure::new(
                    OAuthErrorCode::UnsupportedResponseType,
                    format!("response_type {other} is not supported; use code"),
                )))
            }
            None => return Err(back(invalid_request("response_type is required"))),
        }
        let challenge = params
            .get("code_challenge")
            .ok_or_else(|| back(invalid_request("code_challenge is required (PKCE)")))?;
        if !pkce_text(challenge) {
            return Err(back(invalid_request(
                "code_challenge must be 43 to 128 characters of [A-Za-z0-9-._~]",
            )));
        }
        match params.get("code_challenge_method") {
            Some("S256") => {}
            Some(m) => {
                return Err(back(invalid_request(format!(
                    "code_challenge_method {m} is not supported; use S256"
                ))))
            }
            None => {
                return Err(back(invalid_request(
                    "code_challenge_method is required (S256)",
                )))
            }
        }
        let scopes: Vec<String> = params
            .get("scope")
            .map(|s| {
                s.split(' ')
                    .filter(|x| !x.is_empty())
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default();
        let supported = &self.inner.config.scopes_supported;
        let registered: Option<Vec<&str>> = client.scope.as_deref().map(|s| s.split(' ').collect());
        for s in &scopes {
            if !supported.is_empty() && !supported.contains(s) {
                return Err(back(OAuthFailure::new(
                    OAuthErrorCode::InvalidScope,
                    format!("scope {s} is not offered by this server"),
                )));
            }
            if registered
                .as_ref()
                .is_some_and(|r| !r.contains(&s.as_str()))
            {
                return Err(back(OAuthFailure::new(
                    OAuthErrorCode::InvalidScope,
                    format!("the client did not register scope {s}"),
                )));
            }
        }
        if let Some(r) = params.get("resource") {
            if canonical(r).ok().as_deref() != Some(self.inner.resource.as_str()) {
                return Err(back(OAuthFailure::new(
                    OAuthErrorCode::InvalidTarget,
                    format!(
                        "resource {r} is not served here; use {}",
                        self.inner.resource
                    ),
                )));
            }
        }
        let pkce = Pkce::generate();
        let pending = Pending {
            client_id: client.client_id.clone(),
            redirect_uri: redirect_uri.clone(),
            redirect_uri_given: given.is_some(),
            state: state.clone(),
            code_challenge: challenge.to_string(),
            scopes,
            resource: self.inner.resource.clone(),
            upstream_verifier: pkce.verifier,
            csrf: fresh(),
            approved: !self.inner.config.require_consent,
        };
        let id = fresh();
        self.save(&pending_key(&id), &pending, self.inner.config.code_ttl)
            .await
            .map_err(back)?;
        if pending.approved {
            return Ok(self.to_upstream(&id, &pending, pkce.challenge));
        }
        let mut page = ProxyResponse::html(200, self.consent_page(&id, &client, &pending));
        page.headers.push((
            "set-cookie".into(),
            format!(
                "{COOKIE}={}; Path={}/; HttpOnly; SameSite=Lax; Max-Age={}{}",
                pending.csrf,
                self.inner.base_path,
                self.inner.config.code_ttl.as_secs(),
                if self.inner.config.issuer.starts_with("https://") {
                    "; Secure"
                } else {
                    ""
                }
            ),
        ));
        Ok(page)
    }

    /// The redirect to the upstream authorization endpoint.
    fn to_upstream(&self, id: &str, pending: &Pending, challenge: String) -> ProxyResponse {
        let scopes: &[String] = if self.inner.config.forward_scopes {
            &pending.scopes
        } else {
            &[]
        };
        let url = self
            .inner
            .upstream
            .authorize_url(&self.callback_url(), id, challenge, scopes);
        ProxyResponse::redirect(url)
    }

    fn consent_page(&self, id: &str, client: &ClientRecord, p: &Pending) -> String {
        let name = client
            .client_name
            .as_deref()
            .unwrap_or("An unnamed application");
        // A client named by its metadata document: where the document is, and, when the code
        // goes to a loopback address, that any local program can claim the document's name.
        let document = if is_url_client_id(&client.client_id) {
            let host = parts(&client.client_id)
                .map(|x| x.origin)
                .unwrap_or_default();
            let mut d = format!(
                "<p>This application describes itself at <b>{}</b>.</p>",
                escape(&host)
            );
            if loopback_host(&p.redirect_uri).is_some() {
                d.push_str(&format!(
                    "<p><b>Warning:</b> the approval goes to a program on this computer \
                     (<code>{}</code>). Any program can use this application's name: approve \
                     only if you started {} yourself just now.</p>",
                    escape(&p.redirect_uri),
                    escape(name)
                ));
            }
            d
        } else {
            String::new()
        };
        let scopes = if p.scopes.is_empty() {
            "(none named)".to_string()
        } else {
            p.scopes.join(" ")
        };
        format!(
            "<!doctype html><html><head><meta charset=\"utf-8\"><title>Authorize {name_h}</title></head>\
<body style=\"font-family:sans-serif;max-width:36em;margin:3em auto\">\
<h1>Authorize {name_h}?</h1>\
<p><b>{name_h}</b> (client <code>{cid}</code>) asks to use <b>{resource}</b> on your behalf.</p>\
{document}\
<p>After you sign in with the identity provider you will be sent to <code>{redirect}</code>.</p>\
<p>Scopes: <code>{scopes}</code></p>\
<form method=\"post\" action=\"{action}\">\
<input type=\"hidden\" name=\"pending\" value=\"{id}\"><input type=\"hidden\" name=\"csrf\" value=\"{csrf}\">\
<button name=\"decision\" value=\"approve\">Approve</button> <button name=\"decision\" value=\"deny\">Deny</button>\
</form></body></html>",
            name_h = escape(name),
            cid = escape(&client.client_id),
            resource = escape(&p.resource),
            redirect = escape(&p.redirect_uri),
            scopes = escape(&scopes),
            action = escape(&format!("{}/authorize/consent", self.inner.base_path)),
            id = escape(id),
            csrf = escape(&p.csrf),
        )
    }

    pub(super) async fn consent(&self, req: &ProxyRequest) -> ProxyResponse {
        let r = async {
            let params = Params::form(req).map_err(Refusal::Browser)?;
            let id = params.require("pending").map_err(Refusal::Browser)?;
            let csrf = params.require("csrf").map_err(Refusal::Browser)?;
            let mut pending: Pending = self
                .load(&pending_key(id))
                .await
                .map_err(Refusal::Browser)?
                .ok_or_else(|| {
                    Refusal::Browser(invalid_request(
                        "this authorization is unknown or has expired; start again",
                    ))
                })?;
            let cookie = cookie(req, COOKIE);
            if !same(csrf, &pending.csrf) || !cookie.is_some_and(|c| same(c, &pending.csrf)) {
                return Err(Refusal::Browser(invalid_request(
                    "the consent form does not belong to this browser's authorization",
                )));
            }
            match params.get("decision") {
                Some("approve") => {}
                Some("deny") => {
                    let _ = self.inner.store.take(&pending_key(id)).await;
                    return Err(Refusal::Client {
                        redirect_uri: pending.redirect_uri,
                        state: pending.state,
                        failure: OAuthFailure::new(
                            OAuthErrorCode::AccessDenied,
                            "the user denied the request",
                        ),
                    });
                }
                _ => {
                    return Err(Refusal::Browser(invalid_request(
                        "decision must be approve or deny",
                    )))
                }
            }
            pending.approved = true;
            // A fresh upstream PKCE pair, so nothing shown before approval is used upstream.
            let pkce = Pkce::generate();
            pending.upstream_verifier = pkce.verifier;
            self.save(&pending_key(id), &pending, self.inner.config.code_ttl)
                .await
                .map_err(Refusal::Browser)?;
            Ok(self.to_upstream(id, &pending, pkce.challenge))
        }
        .await;
        r.unwrap_or_else(|refusal| self.refuse(refusal))
    }

    pub(super) async fn callback(&self, req: &ProxyRequest) -> ProxyResponse {
        let r = async {
            let params = Params::parse(req.query.as_bytes()).map_err(Refusal::Browser)?;
            let id = params.require("state").map_err(Refusal::Browser)?;
            let pending: Pending = self
                .take(&pending_key(id))
                .await
                .map_err(Refusal::Browser)?
                .ok_or_else(|| {
                    Refusal::Browser(invalid_request(
                        "this authorization is unknown, used or has expired; start again",
                    ))
                })?;
            if !pending.approved {
                return Err(Refusal::Browser(invalid_request(
                    "this authorization was not approved",
                )));
            }
            if self.inner.config.require_consent
                && !cookie(req, COOKIE).is_some_and(|c| same(c, &pending.csrf))
            {
                return Err(Refusal::Browser(invalid_request(
                    "the callback does not belong to this browser's authorization",
                )));
            }
            let back = |failure: OAuthFailure| Refusal::Client {
                redirect_uri: pending.redirect_uri.clone(),
                state: pending.state.clone(),
                failure,
            };
            if let Some(err) = params.get("error") {
                let code = if err == "access_denied" {
                    OAuthErrorCode::AccessDenied
                } else {
                    OAuthErrorCode::ServerError
                };
                let detail = params.get("error_description").unwrap_or("");
                return Err(back(OAuthFailure::new(
                    code,
                    format!("the upstream identity provider answered {err} {detail}")
                        .trim_end()
                        .to_string(),
                )));
            }
            let code = params.get("code").ok_or_else(|| {
                back(OAuthFailure::new(
                    OAuthErrorCode::ServerError,
                    "the upstream identity provider sent no code",
                ))
            })?;
            let grant = self
                .inner
                .upstream
                .exchange_code(code, &self.callback_url(), &pending.upstream_verifier)
                .await
                .map_err(|mut f| {
                    // The client cannot act on the upstream's invalid_grant: the proxy's leg failed.
                    if f.code == OAuthErrorCode::InvalidGrant {
                        f.code = OAuthErrorCode::ServerError;
                    }
                    back(f)
                })?;
            let ours = fresh();
            let record = CodeRecord {
                client_id: pending.client_id.clone(),
                redirect_uri: pending.redirect_uri.clone(),
                redirect_uri_given: pending.redirect_uri_given,
                code_challenge: pending.code_challenge.clone(),
                scopes: pending.scopes.clone(),
                resource: pending.resource.clone(),
                grant,
            };
            self.save(&code_key(&ours), &record, self.inner.config.code_ttl)
                .await
                .map_err(back)?;
            let mut q = vec![("code", ours)];
            if let Some(s) = &pending.state {
                q.push(("state", s.clone()));
            }
            q.push(("iss", self.inner.config.issuer.clone()));
            Ok(ProxyResponse::redirect(with_query(
                &pending.redirect_uri,
                &q,
            )))
        }
        .await;
        r.unwrap_or_else(|refusal| self.refuse(refusal))
    }
}

/// Whether a redirect URI given at authorization matches a registered one: exactly, or for
/// loopback `http://` URIs, apart from the port (RFC 8252 §7.3).
pub(super) fn redirect_matches(registered: &str, given: &str) -> bool {
    if registered == given {
        return true;
    }
    match (loopback_host(registered), loopback_host(given)) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

/// A cookie's value from the request's `Cookie` headers.
fn cookie<'a>(req: &'a ProxyRequest, name: &str) -> Option<&'a str> {
    req.headers
        .iter()
        .filter(|(k, _)| k.eq_ignore_ascii_case("cookie"))
        .flat_map(|(_, v)| v.split(';'))
        .filter_map(|c| c.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v)
}

/// HTML text escaping.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}
