"""No import circle in the package's own modules (issue 35: layers import downward only).

Every ``import`` of the package is read with ``ast``, wherever it stands: at the top, under
``if TYPE_CHECKING:``, inside a function (a lazy import) or a ``try``. A circle hidden by a lazy
or a type-only import is still a circle: the lower module then names the higher one, and the two
can no longer be read, tested or changed apart. A lower module that needs something of a higher
one types it by a ``typing.Protocol`` declared below both (as ``asgi.py`` does for its server).

The native module counts by its stub (``_native.pyi``) and by the modules its Rust code imports
by name (``py.import("ferromcp._bridge")``). The one dynamic import,
``ferromcp/__init__.py``'s ``import_module`` of its lazily loaded names,
is the package's face: nothing inside the package imports ``ferromcp`` itself (checked below), so
it closes no circle.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = "ferromcp"
ROOT = Path(__file__).resolve().parent.parent / "python" / PACKAGE
#: The native module's Rust sources: what it imports of the package at run time
#: (``py.import("ferromcp._bridge")``) counts as that module's imports.
NATIVE_SOURCES = Path(__file__).resolve().parent.parent / "src"
NATIVE = f"{PACKAGE}._native"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def package_modules() -> dict[str, Path]:
    """Every module: its ``.py`` file, or for the native extension its ``.pyi`` stub."""
    modules: dict[str, Path] = {}
    for path in sorted(ROOT.rglob("*.py*")):
        if "__pycache__" in path.parts or path.suffix not in (".py", ".pyi"):
            continue
        modules.setdefault(module_name(path), path)
    return modules


def imported_modules(name: str, is_package: bool, text: str, known: set[str]) -> set[str]:
    """The package's modules (``known``) that module ``name`` imports anywhere in ``text``."""
    found: set[str] = set()

    def innermost_known(dotted: str) -> str | None:
        # `import ferromcp.client.session` runs that module; `from .x import Y` reaches `.x`.
        parts = dotted.split(".")
        while parts:
            candidate = ".".join(parts)
            if candidate in known:
                return candidate
            parts.pop()
        return None

    for node in ast.walk(ast.parse(text, name)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                target = innermost_known(alias.name)
                if target is not None:
                    found.add(target)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".")
                if not is_package:
                    base.pop()
                base = base[: len(base) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            for alias in node.names:
                # `from . import x` and `from .pkg import sub` import a module by its name.
                target = innermost_known(f"{source}.{alias.name}") or innermost_known(source)
                if target is not None:
                    found.add(target)
    found.discard(name)
    return found


def native_imports(known: set[str]) -> set[str]:
    """The package's modules the Rust code of the native module imports by name."""
    found: set[str] = set()
    for path in sorted(NATIVE_SOURCES.rglob("*.rs")):
        for name in re.findall(r'import\(\s*"([\w.]+)"\s*\)', path.read_text(encoding="utf-8")):
            if name in known:
                found.add(name)
    return found


def import_graph() -> dict[str, set[str]]:
    modules = package_modules()
    known = set(modules)
    graph = {
        name: imported_modules(
            name, path.name == "__init__.py", path.read_text(encoding="utf-8"), known
        )
        for name, path in modules.items()
    }
    graph[NATIVE] |= native_imports(known)
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for successor in sorted(graph.get(node, ())):
            if successor not in index:
                visit(successor)
                low[node] = min(low[node], low[successor])
            elif successor in on_stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component: list[str] = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def describe(graph: dict[str, set[str]], component: list[str]) -> str:
    members = set(component)
    edges = [
        f"  {source} -> {target}"
        for source in component
        for target in sorted(graph[source] & members)
    ]
    return "circle among " + ", ".join(component) + ":\n" + "\n".join(edges)


def test_the_scan_reads_every_kind_of_import() -> None:
    # The scan itself, on a made-up module: top-level, relative, TYPE_CHECKING and lazy imports.
    text = (
        "from typing import TYPE_CHECKING\n"
        "from .a import A\n"
        "import ferromcp.b\n"
        "if TYPE_CHECKING:\n"
        "    from .c import C\n"
        "def f():\n"
        "    from . import d\n"
        "    from .pkg import sub\n"
    )
    known = {"ferromcp.a", "ferromcp.b", "ferromcp.c", "ferromcp.d", "ferromcp.pkg"}
    known |= {"ferromcp.pkg.sub", "ferromcp.m"}
    found = imported_modules("ferromcp.m", False, text, known)
    assert found == {"ferromcp.a", "ferromcp.b", "ferromcp.c", "ferromcp.d", "ferromcp.pkg.sub"}
    # In a package's __init__, `from .x` is the package's own child.
    found = imported_modules("ferromcp.pkg", True, "from .sub import S\nfrom .. import a\n", known)
    assert found == {"ferromcp.pkg.sub", "ferromcp.a"}


def test_the_circle_finder_finds_a_circle_hidden_in_a_longer_chain() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"e"}}
    assert circles(graph) == [["a", "b", "c"]]


def test_the_native_modules_own_imports_are_read() -> None:
    # The Rust code imports the bridges it calls into; they must stay below it.
    assert {f"{PACKAGE}._bridge", f"{PACKAGE}._logbridge"} <= import_graph()[NATIVE]


def test_no_module_imports_the_package_face() -> None:
    graph = import_graph()
    assert PACKAGE in graph, "the scan found no ferromcp/__init__.py"
    importers = sorted(name for name, targets in graph.items() if PACKAGE in targets)
    assert importers == [], f"modules importing the package face {PACKAGE!r}: {importers}"


def test_the_package_has_no_import_circle() -> None:
    graph = import_graph()
    assert len(graph) > 30, f"the scan found only {len(graph)} modules under {ROOT}"
    found = circles(graph)
    assert found == [], "import circles (type-only and lazy imports count):\n" + "\n".join(
        describe(graph, component) for component in found
    )
