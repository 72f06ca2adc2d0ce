"""``python -m ferromcp._serve FILE.py[:OBJECT]``: serves the ferromcp server defined in a
Python file over stdio, for the ``ferromcp`` command. The file is imported under another module
name than ``__main__``, so its ``if __name__ == "__main__":`` block (say, ``mcp.run(transport=
"streamable-http")``) does not run; the server object is ``OBJECT``, else the module's only
:class:`ferromcp.Server` (``mcp``, ``server`` or ``app`` when there are several)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

_PREFERRED = ("mcp", "server", "app")


def load_module(path: str) -> Any:
    """Imports the file at ``path`` as the module ``__ferromcp_server__`` (its directory first
    on ``sys.path``, as ``python FILE`` would have it)."""
    import importlib.util

    file = Path(path).resolve()
    if not file.is_file():
        raise SystemExit(f"ferromcp: no such file: {path}")
    sys.path.insert(0, str(file.parent))
    spec = importlib.util.spec_from_file_location("__ferromcp_server__", file)
    if spec is None or spec.loader is None:
        raise SystemExit(f"ferromcp: cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def find_server(module: Any, name: str | None) -> Any:
    """The server object of ``module``: ``name`` if given, else its only ``Server``, else the
    first of ``mcp``, ``server``, ``app`` that is one."""
    from .server import Server

    if name is not None:
        obj = getattr(module, name, None)
        if not isinstance(obj, Server):
            raise SystemExit(f"ferromcp: {name!r} is not a ferromcp server in {module.__file__}")
        return obj
    found = {k: v for k, v in vars(module).items() if isinstance(v, Server)}
    if len(found) == 1:
        return next(iter(found.values()))
    for k in _PREFERRED:
        if k in found:
            return found[k]
    if not found:
        raise SystemExit(f"ferromcp: no ferromcp Server object in {module.__file__}")
    raise SystemExit(
        f"ferromcp: several servers in {module.__file__} ({', '.join(sorted(found))}): "
        "name one as FILE.py:NAME"
    )


def split_target(target: str) -> tuple[str, str | None]:
    """``"server.py:mcp"`` -> ``("server.py", "mcp")``; ``"server.py"`` -> ``(..., None)``."""
    path, sep, name = target.rpartition(":")
    if sep and path.endswith(".py") and name.isidentifier():
        return path, name
    return target, None


def main(argv: list[str]) -> None:
    if not argv:
        raise SystemExit("usage: python -m ferromcp._serve FILE.py[:OBJECT]")
    path, name = split_target(argv[0])
    sys.argv = [path, *argv[1:]]
    server = find_server(load_module(path), name)
    from .server import Server

    Server.run(server)  # stdio, whatever transport the file's __main__ block would pick


if __name__ == "__main__":
    main(sys.argv[1:])
