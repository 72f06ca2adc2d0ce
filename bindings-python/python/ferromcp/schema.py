"""JSON Schema inference from Python type hints (for tool inputs and outputs)."""

from __future__ import annotations

import enum
import os
import sys
import types
import typing
from typing import Any, Literal, Union, get_args, get_origin

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


# ---- stdlib TypedDict on Python < 3.12 ---------------------------------------------------------
_rebuilt: dict[Any, Any] = {}


def pydantic_ready(tp: Any) -> Any:
    """``tp`` with every ``typing.TypedDict`` in it rebuilt as a ``typing_extensions.TypedDict``:
    pydantic refuses the former below Python 3.12. Other types come back unchanged."""
    if sys.version_info >= (3, 12):
        return tp
    return _ready(tp)


def _ready(tp: Any) -> Any:
    if _is_typeddict(tp) and type(tp).__module__ == "typing":
        return _rebuild_typeddict(tp)
    origin = get_origin(tp)
    args = get_args(tp)
    if origin is None or not args or origin is Literal:
        return tp
    new = tuple(_ready(a) if not isinstance(a, (list, str, int)) else a for a in args)
    if all(a is b for a, b in zip(new, args)):
        return tp
    if origin is typing.Annotated:
        return typing.Annotated[(new[0], *tp.__metadata__)]
    if origin is Union or (hasattr(types, "UnionType") and isinstance(tp, types.UnionType)):
        return Union[new]
    try:
        return origin[new if len(new) > 1 else new[0]]
    except TypeError:
        return tp


def _rebuild_typeddict(td: Any) -> Any:
    done = _rebuilt.get(td)
    if done is not None:
        return done
    import typing_extensions as te

    hints = typing.get_type_hints(td, include_extras=True)
    required = getattr(td, "__required_keys__", frozenset(hints))
    items: dict[str, Any] = {}
    for key, hint in hints.items():
        if getattr(get_origin(hint), "_name", None) in ("Required", "NotRequired"):
            hint = get_args(hint)[0]
        inner = _ready(hint)
        items[key] = te.Required[inner] if key in required else te.NotRequired[inner]
    make: Any = te.TypedDict  # the functional form, which type checkers cannot follow
    rebuilt: Any = make(td.__name__, items)
    rebuilt.__doc__ = td.__doc__
    rebuilt.__module__ = td.__module__
    rebuilt.__qualname__ = getattr(td, "__qualname__", td.__name__)
    _rebuilt[td] = rebuilt
    return rebuilt
