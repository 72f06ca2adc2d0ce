"""The results of tools whose return annotation is wrapped as ``{"result": ...}`` (``-> str``,
``-> int``, ``-> list[int]``, ...): the engine builds their text and ``structuredContent`` from
the bare return value. Checked on the wire, byte for byte: against fixed lines, and against a
server that answers each value as the Python side built it before (the full result dict)."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

# One server, two ways: "new" registers annotated tools (the engine wraps their values); "ref"
# registers the same tools with the same outputSchema given explicitly, answering what the
# Python side built before the engine did it (`_plain_wrapped`'s and the pydantic path's
# finish, copied as they were), which the engine passes through as it is.
SERVER = textwrap.dedent(
    """
    import json, sys
    from typing import Any, Optional
    from pydantic import TypeAdapter
    from ferromcp import Server

    VALUES = json.loads(sys.argv[2])
    server = Server("wrapped", version="1")

    def compact(v):
        return json.dumps(v, separators=(",", ":"), ensure_ascii=False)

    def old_plain(value, expected):
        if expected is None:
            if value is not None:
                return value
            return {"content": [], "structuredContent": {"result": None}}
        if not (isinstance(value, expected) or (expected is float and type(value) is int)):
            return value
        text = value if isinstance(value, str) else compact(value)
        return {"content": [{"type": "text", "text": text}], "structuredContent": {"result": value}}

    def old_list(ann):
        adapter = TypeAdapter(ann)
        return lambda v: old_dumped(adapter.dump_python(adapter.validate_python(v), mode="json"))

    def old_dumped(value):
        if value is None:
            return {"content": [], "structuredContent": {"result": None}}
        text = value if isinstance(value, str) else compact(value)
        return {"content": [{"type": "text", "text": text}], "structuredContent": {"result": value}}

    def schema(name, inner):
        return {"properties": {"result": {"title": "Result", **inner}}, "required": ["result"],
                "title": f"{name}Output", "type": "object"}

    def add(name, ann, ref, inner, asynchronous):
        def pick(case: int) -> Any:
            return VALUES[name][case]
        if sys.argv[1] == "new":
            if asynchronous:
                async def f(case: int):
                    return pick(case)
            else:
                def f(case: int):
                    return pick(case)
            f.__name__ = name
            f.__annotations__ = {"case": int, "return": ann}
            server.tool()(f)
        else:
            def g(case: int) -> Any:
                return ref(pick(case))
            g.__name__ = name
            server.tool(output_schema=schema(name, inner))(g)

    for is_async in (False, True):
        sfx = "_async" if is_async else ""
        add("s" + sfx, str, lambda v: old_plain(v, str), {"type": "string"}, is_async)
        add("i" + sfx, int, lambda v: old_plain(v, int), {"type": "integer"}, is_async)
        add("f" + sfx, float, lambda v: old_plain(v, float), {"type": "number"}, is_async)
        add("b" + sfx, bool, lambda v: old_plain(v, bool), {"type": "boolean"}, is_async)
        add("n" + sfx, None, lambda v: old_plain(v, None), {"type": "null"}, is_async)
        add("li" + sfx, list[int], old_list(list[int]), {"type": "array", "items": {"type": "integer"}}, is_async)
        add("lf" + sfx, list[float], old_list(list[float]), {"type": "array", "items": {"type": "number"}}, is_async)
        add("os" + sfx, Optional[str], old_list(Optional[str]),
            {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None}, is_async)

    server.run()
    """
)

_rng = random.Random(18)
_FLOATS = (
    [
        0.0,
        -0.0,
        0.1,
        1 / 3,
        2.5,
        100.0,
        1e-4,
        9.999999999999999e-05,
        1e-5,
        1.5e-7,
        1e15,
        9999999999999998.0,
        1e16,
        1.5e16,
        1e22,
        5e-324,
        1.7976931348623157e308,
        -123.456,
    ]
    + [_rng.choice((-1, 1)) * 10 ** _rng.uniform(-9, 21) for _ in range(150)]
    + [_rng.uniform(-1000, 1000) for _ in range(50)]
)
_STRINGS = ["", "hi", 'héllo "q"\n\t\\ /', "\x00\x1f\x7f", "日本語 🦀", "a" * 5000]
_INTS = [0, -1, 42, 2**53 + 1, 2**63 - 1, -(2**63), 2**64 - 1, 2**64, -(2**63) - 1, 10**30]
VALUES: dict[str, list[Any]] = {
    "s": _STRINGS + [7, None, ["x"]],  # the last three are not strings: not wrapped
    "i": _INTS + [True, 1.5, "3"],
    "f": _FLOATS + [3, True, "x"],
    "b": [True, False, 1],
    "n": [None, "x"],
    "li": [[], [1, 2, 3], [2**64, -5], list(range(100))],
    "lf": [[0.5, 1e16, 1e-5], [1.0, 2.25], [], [3]],
    "os": ["x", None, "日本"],
}
VALUES.update({k + "_async": v for k, v in list(VALUES.items())})


def _session(mode: str, tmp: Path, calls: list[tuple[str, int]]) -> list[str]:
    """The raw answer lines of the `tools/call`s of `calls` ((tool, case)) on a fresh server."""
    script = tmp / "wrapped_server.py"
    script.write_text(SERVER)
    lines = [
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "t", "version": "1"},
                },
            }
        ),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    ] + [
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": name, "arguments": {"case": case}},
            }
        )
        for name, case in calls
    ]
    # One request at a time (same id): answers are read in order.
    proc = subprocess.Popen(
        [sys.executable, str(script), mode, json.dumps(VALUES)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        encoding="utf-8",
    )
    assert proc.stdin is not None and proc.stdout is not None
    out: list[str] = []
    try:
        for i, line in enumerate(lines):
            proc.stdin.write(line + "\n")
            proc.stdin.flush()
            if i != 1:
                out.append(proc.stdout.readline().rstrip("\n"))
    finally:
        proc.stdin.close()
        proc.wait(timeout=10)
    return out[1:]


@pytest.fixture(scope="module")
def answers(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[tuple[str, int], str]]:
    tmp = tmp_path_factory.mktemp("wrapped")
    calls = [(name, i) for name, vals in VALUES.items() for i in range(len(vals))]
    return {
        mode: dict(zip(calls, _session(mode, tmp, calls), strict=True)) for mode in ("new", "ref")
    }


def _result(line: str) -> str:
    prefix = '{"jsonrpc":"2.0","id":1,"result":'
    assert line.startswith(prefix) and line.endswith("}"), line
    return line[len(prefix) : -1]


@pytest.mark.parametrize("sfx", ["", "_async"])
def test_exact_results(answers: dict[str, dict[tuple[str, int], str]], sfx: str) -> None:
    new = answers["new"]
    assert _result(new[("s" + sfx, 2)]) == (
        '{"content":[{"text":"héllo \\"q\\"\\n\\t\\\\ /","type":"text"}],'
        '"structuredContent":{"result":"héllo \\"q\\"\\n\\t\\\\ /"}}'
    )
    assert _result(new[("i" + sfx, 2)]) == (
        '{"content":[{"text":"42","type":"text"}],"structuredContent":{"result":42}}'
    )
    assert _result(new[("li" + sfx, 1)]) == (
        '{"content":[{"text":"[1,2,3]","type":"text"}],"structuredContent":{"result":[1,2,3]}}'
    )
    assert _result(new[("li" + sfx, 0)]) == (
        '{"content":[{"text":"[]","type":"text"}],"structuredContent":{"result":[]}}'
    )
    assert _result(new[("n" + sfx, 0)]) == '{"content":[],"structuredContent":{"result":null}}'
    assert _result(new[("f" + sfx, 12)]) == (  # 1e16 (Python's text)
        '{"content":[{"text":"1e+16","type":"text"}],"structuredContent":{"result":1e+16}}'
    )


def test_same_bytes_as_the_python_built_results(
    answers: dict[str, dict[tuple[str, int], str]],
) -> None:
    new, ref = answers["new"], answers["ref"]
    differ = [(call, new[call], ref[call]) for call in new if new[call] != ref[call]]
    assert not differ, differ[:5]
    assert len(new) == sum(len(v) for v in VALUES.values())


def test_the_engine_wraps_bare_values() -> None:
    """The bytes above are the engine's own wrapping: the Python side hands over the bare value
    (no result dict) for the values whose text the engine writes as Python does."""
    from ferromcp._func import output_for

    def plain(v: Any) -> Any:
        return v

    for ann, value in [(str, "x"), (int, 42), (list[int], [1, 2]), (float, 0.5), (None, None)]:
        out = output_for(ann, "t", None, None, plain)
        assert out.wrapped is True
        assert out.finish(value) == value and type(out.finish(value)) is type(value)
    out = output_for(float, "t", None, None, plain)
    assert out.finish(1e-5) == {  # Python writes 1e-05, the engine 0.00001: Python builds it
        "content": [{"type": "text", "text": "1e-05"}],
        "structuredContent": {"result": 1e-5},
    }
    assert out.finish(1e16) == 1e16
    assert output_for(dict[str, int], "t", None, None, plain).wrapped is False
    assert output_for(str, "t", False, None, plain).wrapped is False
