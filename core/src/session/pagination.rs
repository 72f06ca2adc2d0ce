//! Opaque cursors for the list methods.
//!
//! A cursor encodes an offset into the (stable, insertion-ordered) registry. Clients must treat
//! it as opaque; a cursor we did not issue is rejected with -32602.

use crate::McpError;

const PREFIX: &str = "fmc1.";

/// Splits `items` into the page starting at `cursor`, returning the page and the next cursor.
pub fn paginate<T: Clone>(
    items: &[T],
    cursor: Option<&str>,
    page_size: usize,
) -> Result<(Vec<T>, Option<String>), McpError> {
    let start = match cursor {
        None => 0,
        Some(c) => decode(c).filter(|&o| o <= items.len()).ok_or_else(|| {
            McpError::invalid_params(format!("invalid cursor {c:?}"))
                .with_data(serde_json::json!({ "cursor": c }))
        })?,
    };
    let page_size = page_size.max(1);
    let end = (start + page_size).min(items.len());
    let next = (end < items.len()).then(|| encode(end));
    Ok((items[start..end].to_vec(), next))
}

fn encode(offset: usize) -> String {
    format!("{PREFIX}{offset:x}")
}

fn decode(cursor: &str) -> Option<usize> {
    usize::from_str_radix(cursor.strip_prefix(PREFIX)?, 16).ok()
}
