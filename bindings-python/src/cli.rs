//! `ferromcp._native.cli_main`: the `ferromcp` command (the crate `ferromcp-cli`) run in this
//! process, for the package's console script and `python -m ferromcp` (`python/ferromcp/cli.py`):
//! the command ships inside the native module instead of as a second binary in the wheel.

use pyo3::prelude::*;

/// Runs the `ferromcp` command with `argv` (without the program name) and returns its exit
/// status. The GIL is released while it runs; it prints to the process's stdout and stderr.
#[pyfunction]
pub fn cli_main(py: Python<'_>, argv: Vec<String>) -> i32 {
    py.allow_threads(move || ferromcp_cli::run(argv))
}
