//! `ferromcp`: the proxy in front of MCP servers configured with the `mcpServers` JSON, and a
//! client for any MCP server (list, call, read, prompt, inspect). See docs/gateway.md. The
//! command itself is the library ([`ferromcp_cli::run`]), which the Python and Node packages
//! also run from their native modules.

fn main() {
    std::process::exit(ferromcp_cli::run(std::env::args().skip(1).collect()));
}
