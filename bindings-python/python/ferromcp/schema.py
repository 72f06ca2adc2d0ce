"""JSON Schema inference from Python type hints (for tool inputs and outputs)."""

from __future__ import annotations

import enum
import os
import sys
from typing import Any

_NoneType = type(None)


def _is_typeddict(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, dict) and hasattr(tp, "__total__")


def _is_pydantic(tp: Any) -> bool:
    return (
        isinstance(tp, type) and hasattr(tp, "model_json_schema") and hasattr(tp, "model_validate")
    )


_PRIMITIVES: dict[Any, dict[str, Any]] = {
    bool: {"type": "boolean"},
    int: {"type": "integer"},
    float: {"type": "number"},
    str: {"type": "string"},
}


def schema_for(tp: Any) -> dict[str, Any]:
    """The JSON Schema of a Python type annotation, as pydantic generates it
    (``TypeAdapter(tp).json_schema()``: nested models, dataclasses and enums are ``$ref``s into
    the document's ``$defs``; a root ``$ref`` is inlined). Primitives need no pydantic import."""
    if tp is Any or tp is object or _is_empty(tp):
        return {}
    if tp is None or tp is _NoneType:
        return {"type": "null"}
    for t, prim in _PRIMITIVES.items():
        if tp is t:  # by identity: annotations may be unhashable
            return dict(prim)
    from pydantic import TypeAdapter

    from ._func import pydantic_ready

    try:
        schema: dict[str, Any] = TypeAdapter(pydantic_ready(tp)).json_schema()
    except Exception as e:  # noqa: BLE001 - pydantic's errors, re-raised as one kind
        raise TypeError(
            f"cannot infer a JSON Schema for {tp!r} ({e}); pass input_schema= explicitly"
        ) from e
    return inline_root_ref(schema)


def inline_root_ref(schema: dict[str, Any]) -> dict[str, Any]:
    """A schema whose root is only a ``$ref`` into its ``$defs`` (pydantic's form for a
    self-referencing model) with the definition copied onto the root (``$defs`` kept)."""
    ref = schema.get("$ref")
    if not isinstance(ref, str) or not ref.startswith("#/$defs/"):
        return schema
    target = schema.get("$defs", {}).get(ref[len("#/$defs/") :])
    if not isinstance(target, dict):
        return schema
    out = {k: v for k, v in schema.items() if k != "$ref"}
    return {**target, **out}


def inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with every local ``#/$defs/...`` reference replaced by its definition and no
    ``$defs`` (for places that take no references, such as elicitation's flat schemas). A
    recursive definition raises ``TypeError``."""
    defs = schema.get("$defs", {})

    def walk(node: Any, seen: tuple[str, ...]) -> Any:
        if isinstance(node, list):
            return [walk(v, seen) for v in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            key = ref[len("#/$defs/") :]
            if key in seen or key not in defs:
                raise TypeError(f"cannot inline the reference {ref!r}")
            rest = {k: walk(v, seen) for k, v in node.items() if k != "$ref"}
            return {**walk(defs[key], (*seen, key)), **rest}
        return {k: walk(v, seen) for k, v in node.items() if k != "$defs"}

    out: dict[str, Any] = walk(schema, ())
    return out


def to_jsonable(value: Any) -> Any:
    """Converts dataclasses, pydantic models, enums, tuples, sets, dates, UUIDs and paths into
    JSON-compatible data; ``Image``/``Audio``/``File`` become their content blocks."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, enum.Enum):
        return to_jsonable(value.value)
    to_content = getattr(value, "to_content", None)
    if to_content is not None and getattr(type(value), "__mcp_content__", False) is True:
        return to_content()
    if _is_dataclass(value) and not isinstance(value, type):
        import dataclasses

        return {k: to_jsonable(v) for k, v in dataclasses.asdict(value).items()}
    if hasattr(value, "model_dump") and callable(value.model_dump):
        return value.model_dump(mode="json", by_alias=True)
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [to_jsonable(v) for v in value]
    if hasattr(value, "isoformat") and callable(value.isoformat):
        return value.isoformat()  # datetime, date, time
    if type(value).__module__ in ("uuid", "pathlib", "decimal") or isinstance(value, os.PathLike):
        return str(value)
    return value


def _is_dataclass(obj: Any) -> bool:
    """``dataclasses.is_dataclass`` without importing dataclasses (and inspect) at startup."""
    return hasattr(obj if isinstance(obj, type) else type(obj), "__dataclass_fields__")


class _Empty:
    """No default / no annotation (plays ``inspect.Parameter.empty`` without importing inspect)."""


EMPTY: Any = _Empty()


def _is_empty(tp: Any) -> bool:
    """Whether ``tp`` means "no annotation" (``inspect.Parameter.empty`` or :data:`EMPTY`)."""
    if tp is EMPTY:
        return True
    inspect = sys.modules.get("inspect")
    return inspect is not None and tp is inspect.Parameter.empty
