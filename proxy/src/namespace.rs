//! How one backend's names appear through the proxy, and back.
//!
//! With several backends, tool and prompt names get the backend's name and an underscore in
//! front (`weather_forecast`), and resource URIs and URI templates get it as a URI scheme
//! prefix joined with `+` (`weather+file:///data.csv`): a valid URI still (the scheme grows),
//! and reversible, since a backend's name holds no `+` ([`crate::config::check_namespace`]).
//! With one backend nothing is renamed, so the proxy is transparent.

/// One backend's namespace: `None` leaves names as they are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Namespace {
    prefix: Option<String>,
}

impl Namespace {
    /// The namespace of backend `name` (`namespaced` false: names pass unchanged).
    pub fn new(name: &str, namespaced: bool) -> Self {
        Self {
            prefix: namespaced.then(|| name.to_string()),
        }
    }

    /// The name a backend's tool or prompt has through the proxy.
    pub fn name(&self, original: &str) -> String {
        match &self.prefix {
            Some(p) => format!("{p}_{original}"),
            None => original.to_string(),
        }
    }

    /// The URI (or URI template) a backend's resource has through the proxy.
    pub fn uri(&self, original: &str) -> String {
        match &self.prefix {
            Some(p) => format!("{p}+{original}"),
            None => original.to_string(),
        }
    }

    /// The backend's own URI for a proxy URI of this namespace; `None` if it is another's.
    pub fn original_uri<'a>(&self, uri: &'a str) -> Option<&'a str> {
        match &self.prefix {
            Some(p) => uri.strip_prefix(p.as_str())?.strip_prefix('+'),
            None => Some(uri),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_namespaced_uri_maps_back_to_the_backends_own() {
        let ns = Namespace::new("files", true);
        assert_eq!(ns.uri("git+https://x/y"), "files+git+https://x/y");
        assert_eq!(
            ns.original_uri("files+git+https://x/y"),
            Some("git+https://x/y")
        );
        assert_eq!(ns.original_uri("filesx+a:b"), None);
        assert_eq!(ns.original_uri("other+a:b"), None);
        assert_eq!(ns.name("read"), "files_read");
    }

    #[test]
    fn without_a_namespace_names_pass_unchanged() {
        let ns = Namespace::new("files", false);
        assert_eq!(ns.uri("test://a"), "test://a");
        assert_eq!(ns.original_uri("test://a"), Some("test://a"));
        assert_eq!(ns.name("read"), "read");
    }
}
