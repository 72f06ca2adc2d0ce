//! Which rows and transports a run measures: `--only` / `--row` ([`RowFilter`]) and
//! `--transports` ([`transports`]). Both refuse what would select nothing, since a misspelt
//! name would otherwise measure nothing and the report would not say so.

/// The rows `--only` and `--row` select, ignoring case. `--only a,b` gives patterns split at
/// commas, each selecting the rows whose name contains it (the older form, kept for the commands
/// already written down); `--row NAME` names one row whole, commas included, and selects that
/// row alone. As `--only`, "ferromcp (Python handler, sync def)" is two patterns, "ferromcp
/// (Python handler" and " sync def)", the first matching every Python-handler row, and "FastMCP
/// 4.1.6" also matches "FastMCP 4.1.6 (1 FastMCP middleware)". Both options may be given more
/// than once and add up.
#[derive(Debug, Default, PartialEq)]
pub struct RowFilter {
    /// From `--only`: substrings.
    patterns: Vec<String>,
    /// From `--row`: whole names.
    names: Vec<String>,
}

impl RowFilter {
    /// `--only LIST`: each comma-separated part of LIST is a pattern. Empty parts are left out
    /// (an empty pattern would select every row).
    pub fn add_list(&mut self, list: &str) {
        self.patterns.extend(
            list.split(',')
                .filter(|p| !p.is_empty())
                .map(str::to_string),
        );
    }

    /// `--row NAME`: the row named NAME, the whole name.
    pub fn add_whole(&mut self, name: &str) {
        self.names.push(name.to_string());
    }

    /// Whether the row named `name` is selected.
    pub fn selects(&self, name: &str) -> bool {
        let name = name.to_lowercase();
        self.names.iter().any(|n| n.to_lowercase() == name)
            || self
                .patterns
                .iter()
                .any(|p| name.contains(&p.to_lowercase()))
    }

    /// The `--only` patterns that select none of `rows` (a misspelt one would silently leave
    /// its rows out of the run).
    pub fn unmatched_patterns<'a>(&'a self, rows: &[&str]) -> Vec<&'a str> {
        self.patterns
            .iter()
            .filter(|p| {
                let p = p.to_lowercase();
                !rows.iter().any(|r| r.to_lowercase().contains(&p))
            })
            .map(String::as_str)
            .collect()
    }

    /// The `--row` names that are no row's name in `rows`.
    pub fn unknown_names<'a>(&'a self, rows: &[&str]) -> Vec<&'a str> {
        self.names
            .iter()
            .filter(|n| !rows.iter().any(|r| r.eq_ignore_ascii_case(n)))
            .map(String::as_str)
            .collect()
    }

    /// Refuses a filter that names a row that does not exist or has a pattern that selects
    /// none of `rows` (a misspelt one would silently leave its rows out of the run); the
    /// message lists the rows.
    pub fn check(&self, rows: &[&str]) -> Result<(), String> {
        let unknown = self.unknown_names(rows);
        let unmatched = self.unmatched_patterns(rows);
        let what = if !unknown.is_empty() {
            format!("no row is named {unknown:?}; --row takes a whole name, one of")
        } else if !unmatched.is_empty() {
            format!("--only {unmatched:?} selects no row; the rows")
        } else {
            return Ok(());
        };
        Err(format!("{what}:\n  {}", rows.join("\n  ")))
    }
}

/// The names `--transports` takes: `stdio` and `http-MODE` for every HTTP mode.
pub fn transport_names() -> Vec<String> {
    std::iter::once("stdio".to_string())
        .chain(crate::MODES.iter().map(|m| format!("http-{m}")))
        .collect()
}

/// The `--transports` list `list` (comma-separated), or why it is refused: a name that is not
/// one of [`transport_names`].
pub fn transports(list: &str) -> Result<Vec<String>, String> {
    let known = transport_names();
    let list: Vec<String> = list.split(',').map(str::to_string).collect();
    match list.iter().find(|t| !known.contains(t)) {
        Some(bad) => Err(format!(
            "unknown transport {bad:?} in --transports (known: {})",
            known.join(",")
        )),
        None => Ok(list),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_splits_at_commas_and_row_takes_its_value_whole() {
        let mut f = RowFilter::default();
        f.add_list("floor,ferromcp (Rust handler)");
        f.add_whole("ferromcp (Python handler, sync def)");
        f.add_list("Node,,");
        assert_eq!(f.patterns, ["floor", "ferromcp (Rust handler)", "Node"]);
        assert_eq!(f.names, ["ferromcp (Python handler, sync def)"]);
        // --only: substrings, ignoring case.
        assert!(f.selects("FLOOR (serde_json, no MCP lib)"));
        assert!(f.selects("ferromcp (node handler, 1 JavaScript middleware)"));
        assert!(!f.selects("ferromcp (Rust handler, compression off)"));
        assert!(!f.selects("rmcp 3.9.0"));
        // --row: the whole name, ignoring case.
        assert!(f.selects("ferromcp (python handler, SYNC DEF)"));
        assert!(!f.selects("ferromcp (Python handler, sync def, 1 Python middleware)"));
        assert!(!f.selects("ferromcp (Python handler, async def)"));
        // With neither option given, nothing is filtered (main's `None`); an empty filter
        // (`--only ,`) selects no row.
        assert!(!RowFilter::default().selects("floor (serde_json, no MCP lib)"));
        // An --only pattern that selects no row is reported (main exits 2), ignoring case.
        assert_eq!(
            f.unmatched_patterns(&["FLOOR (serde_json)", "ferromcp (node handler)"]),
            ["ferromcp (Rust handler)"]
        );
        assert_eq!(
            f.check(&[
                "floor",
                "ferromcp (Rust handler)",
                "Node",
                "ferromcp (Python handler, sync def)"
            ]),
            Ok(())
        );
        let err = f
            .check(&[
                "FLOOR (serde_json)",
                "ferromcp (node handler)",
                "ferromcp (Python handler, sync def)",
            ])
            .unwrap_err();
        assert!(
            err.starts_with("--only [\"ferromcp (Rust handler)\"] selects no row"),
            "{err}"
        );
        // A --row name that is no row's is reported (main exits 2).
        f.add_whole("ferromcp (Python handler");
        assert_eq!(
            f.unknown_names(&["ferromcp (Python handler, sync def)", "rmcp 3.9.0"]),
            ["ferromcp (Python handler"]
        );
    }

    /// `--transports` takes `stdio` and one `http-MODE` per HTTP mode, the names the run loop
    /// compares with.
    #[test]
    fn transport_names_are_the_ones_the_run_loop_checks() {
        assert_eq!(
            transport_names(),
            [
                "stdio",
                "http-stateful",
                "http-stateless",
                "http-json",
                "http-per-request"
            ]
        );
        // The list is taken whole when every name is known, else refused with the first that is not.
        assert_eq!(
            transports("stdio,http-per-request"),
            Ok(vec!["stdio".to_string(), "http-per-request".to_string()])
        );
        let err = transports("stdio,per-request").unwrap_err();
        assert!(
            err.starts_with("unknown transport \"per-request\""),
            "{err}"
        );
    }
}
