//! `ferromcp proxy`'s OAuth protection of its HTTP endpoint (the engine's resource server,
//! `HttpServerOptions::auth`): from the `--auth-*` flags (JWT access tokens checked against
//! an issuer's JWKS) or from `--auth JSON|@FILE`, the protection options the bindings take
//! (`ferromcp_embed::ProtectionSettings`: `jwt` or `introspection`), so the option names and
//! checks are the ones every language has; or from the `"auth"` key of the `--config` file, the
//! same JSON as `--auth`, used when no `--auth*` option is given (the command line wins; an
//! `--auth-resource` then replaces the file's `"resource"`).

use crate::args::AuthArgs;
use crate::middleware::json_argument;
use ferromcp::auth::ResourceAuth;
use ferromcp_embed::ProtectionSettings;
use serde_json::{json, Value};
use std::sync::Arc;

/// The protection the options ask for (`None`: no `--auth*` option and no `"auth"` in the
/// config). `default_resource` is the endpoint's own URL when it can be known from the command
/// line (`http://HOST:PORT/PATH`), used when neither `--auth-resource` nor the JSON's `resource`
/// gives it. `file` is the config file's `"auth"` value with the file's path, used when no
/// `--auth*` option but `--auth-resource` is given; its errors start with `PATH: auth:`.
pub fn protection(
    a: &AuthArgs,
    default_resource: Option<String>,
    file: Option<(&str, &Value)>,
) -> Result<Option<Arc<ResourceAuth>>, String> {
    let flags_given = !a.issuers.is_empty()
        || a.jwks_url.is_some()
        || a.audience.is_some()
        || !a.scopes.is_empty();
    let file_origin;
    let (mut settings, origin) = match (&a.json, file) {
        (Some(_), _) if flags_given => {
            return Err(
                "--auth and --auth-issuer/--auth-jwks-url/--auth-audience/--auth-scopes exclude each other: put everything in --auth's JSON".into(),
            )
        }
        (Some(text), _) => (checked_json(json_argument("--auth", text)?, "--auth")?, "--auth"),
        (None, Some((path, v))) if !flags_given => {
            file_origin = format!("{path}: auth");
            let mut v = checked_json(v.clone(), &file_origin)?;
            if let (Some(r), Value::Object(m)) = (&a.resource, &mut v) {
                // The command line wins over the file.
                m.insert("resource".into(), json!(r));
            }
            (v, file_origin.as_str())
        }
        (None, _) if !flags_given => {
            if a.resource.is_some() {
                return Err("--auth-resource needs --auth-issuer and --auth-jwks-url".into());
            }
            return Ok(None);
        }
        (None, _) => {
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
    let flag_resource = if origin == "--auth-issuer" || origin == "--auth" {
        a.resource.as_ref()
    } else {
        None // already put in the file's settings
    };
    let resource = match (flag_resource, settings.get("resource")) {
        (Some(_), Some(_)) => {
            return Err(
                "--auth-resource and --auth's \"resource\" exclude each other: give one".into(),
            )
        }
        (Some(r), None) => Some(r.clone()),
        (None, Some(_)) => None,
        (None, None) => Some(default_resource.ok_or_else(|| {
            let why = "--auth-resource URL is required with --port 0 or an unspecified --host (the URL clients reach this endpoint at: the audience tokens must carry)";
            if origin.starts_with("--") {
                why.to_string()
            } else {
                format!("{origin}: \"resource\" or {why}")
            }
        })?),
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

/// The JSON form's shape: an object with `jwt` or `introspection` (the rest is checked by
/// `ProtectionSettings`). `origin` starts the error (`--auth`, or `PATH: auth`).
fn checked_json(v: Value, origin: &str) -> Result<Value, String> {
    if !v.is_object() {
        return Err(format!("{origin}: must be a JSON object (resource, authorizationServers, requiredScopes, jwt or introspection)"));
    }
    if v.get("jwt").is_none() && v.get("introspection").is_none() {
        return Err(format!(
            "{origin}: needs \"jwt\" ({{\"jwksUrl\": ...}}) or \"introspection\" ({{\"endpoint\": ...}}) to check tokens with"
        ));
    }
    Ok(v)
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
        assert!(protection(&args(), Some(HERE.into()), None)
            .unwrap()
            .is_none());
        let mut a = args();
        a.issuers = vec!["https://as.example".into()];
        a.jwks_url = Some("https://as.example/jwks".into());
        a.scopes = vec!["mcp:tools".into()];
        let p = protection(&a, Some(HERE.into()), None).unwrap().unwrap();
        assert_eq!(p.resource, HERE);
        assert_eq!(p.authorization_servers, ["https://as.example"]);
        assert_eq!(p.required_scopes, ["mcp:tools"]);
        assert_eq!(
            p.metadata_url(),
            "http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp"
        );
        a.resource = Some("https://mcp.example.com/mcp".into());
        let p = protection(&a, None, None).unwrap().unwrap();
        assert_eq!(p.resource, "https://mcp.example.com/mcp");
    }

    #[test]
    fn incomplete_or_conflicting_auth_options_are_refused() {
        let mut a = args();
        a.jwks_url = Some("https://as.example/jwks".into());
        let e = protection(&a, Some(HERE.into()), None).unwrap_err();
        assert!(e.starts_with("--auth-issuer URL is required"), "{e}");
        a.jwks_url = None;
        a.issuers = vec!["https://as.example".into()];
        let e = protection(&a, Some(HERE.into()), None).unwrap_err();
        assert!(e.starts_with("--auth-issuer needs --auth-jwks-url"), "{e}");
        a.jwks_url = Some("https://as.example/jwks".into());
        let e = protection(&a, None, None).unwrap_err();
        assert!(e.starts_with("--auth-resource URL is required"), "{e}");
        a.json = Some("{}".into());
        let e = protection(&a, Some(HERE.into()), None).unwrap_err();
        assert!(e.contains("exclude each other"), "{e}");
        let mut a = args();
        a.json = Some(r#"{"authorizationServers": ["https://as"]}"#.into());
        let e = protection(&a, Some(HERE.into()), None).unwrap_err();
        assert!(e.starts_with("--auth: needs \"jwt\""), "{e}");
        a.json = Some(r#"{"authorizationServers": ["https://as"], "jwt": {}}"#.into());
        let e = protection(&a, Some(HERE.into()), None).unwrap_err();
        assert_eq!(e, "--auth: jwt needs exactly one of jwksUrl and jwks");
        a.json = Some(r#"{"authorizationServers": [], "jwt": {"jwks": {"keys": []}}}"#.into());
        let e = protection(&a, Some(HERE.into()), None).unwrap_err();
        assert_eq!(
            e,
            "--auth: authorizationServers must name at least one issuer"
        );
        a.json = Some(r#"{"authorizationServers": ["https://as"], "jwks": 1, "jwt": {}}"#.into());
        let e = protection(&a, Some(HERE.into()), None).unwrap_err();
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
        let p = protection(&a, None, None).unwrap().unwrap();
        assert_eq!(p.resource, "https://mcp.example.com/mcp");
        assert!(p.check_audience);
    }

    #[test]
    fn the_config_files_auth_is_used_unless_the_command_line_gives_auth() {
        let file = json!({ "authorizationServers": ["https://file-as"],
                           "jwt": { "jwksUrl": "https://file-as/jwks" } });
        let p = protection(&args(), Some(HERE.into()), Some(("mcp.json", &file)))
            .unwrap()
            .unwrap();
        assert_eq!(p.authorization_servers, ["https://file-as"]);
        assert_eq!(p.resource, HERE);
        // --auth-resource alone keeps the file's settings and replaces their resource.
        let mut a = args();
        a.resource = Some("https://mcp.example.com/mcp".into());
        let with_resource = json!({ "resource": "https://old/mcp", "authorizationServers": ["https://file-as"],
                                    "jwt": { "jwksUrl": "https://file-as/jwks" } });
        let p = protection(&a, None, Some(("mcp.json", &with_resource)))
            .unwrap()
            .unwrap();
        assert_eq!(p.resource, "https://mcp.example.com/mcp");
        // Flags win: the file's settings are not used.
        let mut a = args();
        a.issuers = vec!["https://flag-as".into()];
        a.jwks_url = Some("https://flag-as/jwks".into());
        let p = protection(&a, Some(HERE.into()), Some(("mcp.json", &file)))
            .unwrap()
            .unwrap();
        assert_eq!(p.authorization_servers, ["https://flag-as"]);
        let mut a = args();
        a.json = Some(
            r#"{"authorizationServers": ["https://json-as"], "jwt": {"jwksUrl": "https://j"}}"#
                .into(),
        );
        let p = protection(&a, Some(HERE.into()), Some(("mcp.json", &file)))
            .unwrap()
            .unwrap();
        assert_eq!(p.authorization_servers, ["https://json-as"]);
        // Bad values name the file and the key.
        let e = |v: Value, here: Option<String>| {
            protection(&args(), here, Some(("mcp.json", &v))).unwrap_err()
        };
        assert_eq!(
            e(json!("x"), Some(HERE.into())),
            "mcp.json: auth: must be a JSON object (resource, authorizationServers, requiredScopes, jwt or introspection)"
        );
        assert_eq!(
            e(
                json!({"authorizationServers": ["https://as"], "jwt": {}}),
                Some(HERE.into())
            ),
            "mcp.json: auth: jwt needs exactly one of jwksUrl and jwks"
        );
        assert!(e(file.clone(), None)
            .starts_with("mcp.json: auth: \"resource\" or --auth-resource URL is required"));
    }
}
