//! `cliMain(argv)`: the `ferromcp` command (the crate `ferromcp-cli`) run in this process, for
//! the package's `bin` launcher (`bin/ferromcp.js`): the command ships inside the addon instead of
//! as a second binary in each platform package.

use napi_derive::napi;

/// Runs the `ferromcp` command with `argv` (without the program name) and returns its exit
/// status. It blocks the calling thread until the command ends (the launcher has nothing else to
/// do) and prints to the process's stdout and stderr.
#[napi]
pub fn cli_main(argv: Vec<String>) -> i32 {
    ferromcp_cli::run(argv)
}
