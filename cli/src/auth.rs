//! `ferromcp proxy`'s OAuth protection of its HTTP endpoint (the engine's resource server,
//! `HttpServerOptions::auth`): from the `--auth-*` flags (JWT access tokens checked against
//! an issuer's JWKS) or from `--auth JSON|@FILE`, the protection options the bindings take
//! (`ferromcp_embed::ProtectionSettings`: `jwt` or `introspection`), so the option names and
//! checks are the ones every language has.

use crate::args::AuthArgs;
use crate::middleware::json_argument;
use ferromcp::auth::ResourceAuth;
use ferromcp_embed::ProtectionSettings;
use serde_json::{json, Value};
use std::sync::Arc;

/// The protection the options ask for (`None`: no `--auth*` option). `default_resource` is
/// the endpoint's own URL when it can be known from the command line (`http://HOST:PORT/PATH`),
/// used when neither `--auth-resource` nor the JSON's `resource` gives it.
pub fn protection(
    a: &AuthArgs,
    default_resource: Option<String>,
) -> Result<Option<Arc<ResourceAuth>>, String> {
    let flags_given = !a.issuers.is_empty()
        || a.jwks_url.is_some()
        || a.audience.is_some()
        || !a.scopes.is_empty();
    let (mut settings, origin) = match &a.json {
        Some(_) if flags_given => {
            return Err(
                "--auth and --auth-issuer/--auth-jwks-url/--auth-audience/--auth-scopes exclude each other: put everything in --auth's JSON".into(),
            )
        }
        Some(text) => {
            let v = json_argument("--auth", text)?;
            if !v.is_object() {
                return Err("--auth: must be a JSON object (resource, authorizationServers, requiredScopes, jwt or introspection)".into());
            }
            if v.get("jwt").is_none() && v.get("introspection").is_none() {
                return Err(
                    "--auth: needs \"jwt\" ({\"jwksUrl\": ...}) or \"introspection\" ({\"endpoint\": ...}) to check tokens with".into(),
                );
            }
            (v, "--auth")
        }
        None if !flags_given => {
            if a.resource.is_some() {
                return Err("--auth-resource needs --auth-issuer and --auth-jwks-url".into());
            }
            return Ok(None);
        }
        None => {
            if a.issuers.is_empty() {
                return Err("--auth-issuer URL is required with the other --auth-* options (the authorization server whose tokens are accepted)".into());
            }
            let Some(jwks_url) = &a.jwks_url else {
                return Err("--auth-issuer needs --auth-jwks-url URL (the issuer's keys, to check token signatures); for opaque tokens use --auth with \"introspection\"".into());
            };
            let mut jwt = json!({ "jwksUrl": jwks_url });
            if let Some(aud) = &a.audience {
                jwt["audience"] = json!(aud);
            }
            let v = json!({
                "authorizationServers": a.issuers,
                "requiredScopes": a.scopes,
                "jwt": jwt,
            });
            (v, "--auth-issuer")
        }
    };
    let resource = match (&a.resource, settings.get("resource")) {
        (Some(_), Some(_)) => {
            return Err(
                "--auth-resource and --auth's \"resource\" exclude each other: give one".into(),
            )
        }
        (Some(r), None) => Some(r.clone()),
        (None, Some(_)) => None,
        (None, None) => Some(default_resource.ok_or(
            "--auth-resource URL is required with --port 0 or an unspecified --host (the URL clients reach this endpoint at: the audience tokens must carry)",
        )?),
    };
    if let (Some(r), Value::Object(m)) = (resource, &mut settings) {
        m.insert("resource".into(), json!(r));
    }
    let settings =
        ProtectionSettings::from_json(settings).map_err(|e| format!("{origin}: {}", e.message))?;
    settings
        .build(None)
        .map(Some)
        .map_err(|e| format!("{origin}: {}", e.message))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args() -> AuthArgs {
        AuthArgs::default()
    }

    const HERE: &str = "http://127.0.0.1:8080/mcp";

    #[test]
    fn flags_make_a_jwt_protection_for_the_endpoint() {
        assert!(protection(&args(), Some(HERE.into())).unwrap().is_none());
        let mut a = args();
        a.issuers = vec!["https://as.example".into()];
        a.jwks_url = Some("https://as.example/jwks".into());
        a.scopes = vec!["mcp:tools".into()];
        let p = protection(&a, Some(HERE.into())).unwrap().unwrap();
        assert_eq!(p.resource, HERE);
        assert_eq!(p.authorization_servers, ["https://as.example"]);
        assert_eq!(p.required_scopes, ["mcp:tools"]);
        assert_eq!(
            p.metadata_url(),
            "http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp"
        );
        a.resource = Some("https://mcp.example.com/mcp".into());
        let p = protection(&a, None).unwrap().unwrap();
        assert_eq!(p.resource, "https://mcp.example.com/mcp");
    }

    #[test]
    fn incomplete_or_conflicting_auth_options_are_refused() {
        let mut a = args();
        a.jwks_url = Some("https://as.example/jwks".into());
        let e = protection(&a, Some(HERE.into())).unwrap_err();
        assert!(e.starts_with("--auth-issuer URL is required"), "{e}");
        a.jwks_url = None;
        a.issuers = vec!["https://as.example".into()];
        let e = protection(&a, Some(HERE.into())).unwrap_err();
        assert!(e.starts_with("--auth-issuer needs --auth-jwks-url"), "{e}");
        a.jwks_url = Some("https://as.example/jwks".into());
        let e = protection(&a, None).unwrap_err();
        assert!(e.starts_with("--auth-resource URL is required"), "{e}");
        a.json = Some("{}".into());
        let e = protection(&a, Some(HERE.into())).unwrap_err();
        assert!(e.contains("exclude each other"), "{e}");
        let mut a = args();
        a.json = Some(r#"{"authorizationServers": ["https://as"]}"#.into());
        let e = protection(&a, Some(HERE.into())).unwrap_err();
        assert!(e.starts_with("--auth: needs \"jwt\""), "{e}");
        a.json = Some(r#"{"authorizationServers": ["https://as"], "jwt": {}}"#.into());
        let e = protection(&a, Some(HERE.into())).unwrap_err();
        assert_eq!(e, "--auth: jwt needs exactly one of jwksUrl and jwks");
        a.json = Some(r#"{"authorizationServers": [], "jwt": {"jwks": {"keys": []}}}"#.into());
        let e = protection(&a, Some(HERE.into())).unwrap_err();
        assert_eq!(
            e,
            "--auth: authorizationServers must name at least one issuer"
        );
        a.json = Some(r#"{"authorizationServers": ["https://as"], "jwks": 1, "jwt": {}}"#.into());
        let e = protection(&a, Some(HERE.into())).unwrap_err();
        assert!(
            e.starts_with("--auth: protection options: unknown field `jwks`"),
            "{e}"
        );
    }

    #[test]
    fn the_json_form_takes_introspection() {
        let mut a = args();
        a.json = Some(
            r#"{"resource": "https://mcp.example.com/mcp", "authorizationServers": ["https://as"],
                "introspection": {"endpoint": "https://as/introspect"}}"#
                .into(),
        );
        let p = protection(&a, None).unwrap().unwrap();
        assert_eq!(p.resource, "https://mcp.example.com/mcp");
        assert!(p.check_audience);
    }
}
