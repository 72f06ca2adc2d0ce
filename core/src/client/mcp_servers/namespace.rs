//! How one server's names appear when several servers are seen as one (the proxy, the
//! multi-server clients of every binding), and back.
//!
//! With several servers, tool and prompt names get the server's name and an underscore in
//! front (`weather_forecast`), and resource URIs and URI templates get it as a URI scheme
//! prefix joined with `+` (`weather+file:///data.csv`): a valid URI still (the scheme grows),
//! and reversible, since a server's name holds no `+` ([`super::check_namespace`]). With one
//! server nothing is renamed, so the proxy is transparent.

/// One server's namespace: `None` leaves names as they are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Namespace {
    prefix: Option<String>,
}

impl Namespace {
    /// The namespace of server `name` (`namespaced` false: names pass unchanged).
    pub fn new(name: &str, namespaced: bool) -> Self {
        Self {
            prefix: namespaced.then(|| name.to_string()),
        }
    }

    /// What goes in front of a tool or prompt name (`"NAME_"`, or empty).
    pub fn name_prefix(&self) -> String {
        self.prefix
            .as_deref()
            .map(|p| format!("{p}_"))
            .unwrap_or_default()
    }

    /// What goes in front of a resource URI or URI template (`"NAME+"`, or empty).
    pub fn uri_prefix(&self) -> String {
        self.prefix
            .as_deref()
            .map(|p| format!("{p}+"))
            .unwrap_or_default()
    }

    /// The name a server's tool or prompt has in the combined view.
    pub fn name(&self, original: &str) -> String {
        match &self.prefix {
            Some(p) => format!("{p}_{original}"),
            None => original.to_string(),
        }
    }

    /// The URI (or URI template) a server's resource has in the combined view.
    pub fn uri(&self, original: &str) -> String {
        match &self.prefix {
            Some(p) => format!("{p}+{original}"),
            None => original.to_string(),
        }
    }

    /// The server's own name for a combined-view name of this namespace; `None` if it is
    /// another's (or the prefix alone).
    pub fn original_name<'a>(&self, name: &'a str) -> Option<&'a str> {
        match &self.prefix {
            Some(p) => name
                .strip_prefix(p.as_str())?
                .strip_prefix('_')
                .filter(|rest| !rest.is_empty()),
            None => Some(name),
        }
    }

    /// The server's own URI for a combined-view URI of this namespace; `None` if it is
    /// another's.
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
    fn a_namespaced_uri_maps_back_to_the_servers_own() {
        let ns = Namespace::new("files", true);
        assert_eq!(ns.uri("git+https://x/y"), "files+git+https://x/y");
        assert_eq!(
            ns.original_uri("files+git+https://x/y"),
            Some("git+https://x/y")
        );
        assert_eq!(ns.original_uri("filesx+a:b"), None);
        assert_eq!(ns.original_uri("other+a:b"), None);
        assert_eq!(ns.name("read"), "files_read");
        assert_eq!(ns.original_name("files_read"), Some("read"));
        assert_eq!(ns.original_name("files_"), None);
        assert_eq!(ns.original_name("filesread"), None);
        assert_eq!(
            (ns.name_prefix(), ns.uri_prefix()),
            ("files_".into(), "files+".into())
        );
    }

    #[test]
    fn without_a_namespace_names_pass_unchanged() {
        let ns = Namespace::new("files", false);
        assert_eq!(ns.uri("test://a"), "test://a");
        assert_eq!(ns.original_uri("test://a"), Some("test://a"));
        assert_eq!(ns.name("read"), "read");
        assert_eq!(ns.original_name("read"), Some("read"));
        assert_eq!(
            (ns.name_prefix(), ns.uri_prefix()),
            (String::new(), String::new())
        );
    }
}
