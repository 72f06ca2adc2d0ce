"""The ``ferromcp`` command: the engine's own command (the Rust crate ``ferromcp-cli``), compiled
into ``ferromcp._native`` and run in this process, so that ``pip install ferromcp`` gives the
same command as every other package of the project without a second binary in the wheel.

    ferromcp proxy --config mcp.json --stdio | --port N [HTTP options]
    ferromcp list SERVER [tools|resources|templates|prompts] [--json]
    ferromcp call SERVER TOOL [JSON-OBJECT | KEY=VALUE ...] [--json]
    ferromcp read SERVER URI [--json]
    ferromcp prompt SERVER NAME [KEY=VALUE ...] [--json]
    ferromcp inspect SERVER [--json]

SERVER is a command line in one argument (``"node server.js"``, run over stdio) or an
``http(s)://`` URL; ``ferromcp --help`` prints the whole usage (docs/gateway.md).

What this Python package adds: a SERVER naming a ``.py`` file (``FILE.py`` or
``FILE.py:OBJECT``) is served by this Python, as the command line
``python -m ferromcp._serve FILE.py[:OBJECT]`` (the file is imported under another module name
than ``__main__``, so its ``if __name__ == "__main__":`` block does not run, and its server
object is served over stdio).

Exit status: 0; 1 when the server answered with an error or the tool reported one; 2 on usage
errors; 130 on Ctrl-C (the signal's default action: the command runs in native code, where
Python's ``KeyboardInterrupt`` could not stop it)."""

from __future__ import annotations

import shlex
import signal
import sys
import threading
from pathlib import Path

# The subcommands whose first operand is a SERVER.
_CLIENT_COMMANDS = ("list", "call", "read", "prompt", "inspect")


def _is_python_file(server: str) -> bool:
    """``FILE.py`` or ``FILE.py:OBJECT``: an existing file, or a path without spaces (a command
    line such as ``"python server.py"`` is left to the command)."""
    if server.endswith(".py"):
        path = server
    elif ".py:" in server:
        path = server[: server.rindex(".py:") + 3]
    else:
        return False
    return Path(path).is_file() or not any(c.isspace() for c in server)


def python_servers(argv: list[str]) -> list[str]:
    """``argv`` with a ``.py`` SERVER operand replaced by the command line that serves it with
    this interpreter; everything else unchanged (the Rust command parses it)."""
    if not argv or argv[0] not in _CLIENT_COMMANDS:
        return list(argv)
    out = list(argv)
    only_operands = False
    for i in range(1, len(out)):
        arg = out[i]
        if not only_operands and arg == "--":
            only_operands = True
            continue
        if not only_operands and arg.startswith("--"):
            continue  # an option (--json): the Rust parser reports unknown ones
        if _is_python_file(arg):
            out[i] = shlex.join([sys.executable, "-m", "ferromcp._serve", arg])
        return out  # the first operand is the SERVER
    return out


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``ferromcp`` command (console script and ``python -m ferromcp``):
    runs the engine's command with ``argv`` (default ``sys.argv[1:]``) and returns its exit
    status."""
    from . import _native

    if not hasattr(_native, "cli_main"):
        print(
            "ferromcp: this build of the package has no command (built without the cli feature)",
            file=sys.stderr,
        )
        return 2
    args = python_servers(list(sys.argv[1:] if argv is None else argv))
    if threading.current_thread() is threading.main_thread():
        # Ctrl-C ends the command as it ends the native binary; `proxy` installs its own
        # handler and closes its backends first.
        signal.signal(signal.SIGINT, signal.SIG_DFL)
    sys.stdout.flush()
    sys.stderr.flush()
    return int(_native.cli_main(args))


if __name__ == "__main__":
    sys.exit(main())
