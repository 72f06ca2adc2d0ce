"""JSON Schema inference from Python type hints (for tool inputs and outputs)."""

from __future__ import annotations

import enum
import sys
import types
import typing
from typing import Any, Literal, Union, get_args, get_origin

_NoneType = type(None)


def _is_typeddict(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, dict) and hasattr(tp, "__total__")


def _is_pydantic(tp: Any) -> bool:
    return isinstance(tp, type) and hasattr(tp, "model_json_schema") and hasattr(
        tp, "model_validate"
    )


def schema_for(tp: Any) -> dict[str, Any]:
    """The JSON Schema of a Python type annotation."""
    if tp is Any or tp is object or _is_empty(tp):
        return {}
    if tp is None or tp is _NoneType:
        return {"type": "null"}
    if tp is bool:
        return {"type": "boolean"}
    if tp is int:
        return {"type": "integer"}
    if tp is float:
        return {"type": "number"}
    if tp is str:
        return {"type": "string"}
    if tp is bytes:
        return {"type": "string", "contentEncoding": "base64"}
    origin = get_origin(tp)
    args = get_args(tp)
    if origin is typing.Annotated:
        inner = schema_for(args[0])
        for extra in args[1:]:
            if isinstance(extra, str):
                inner.setdefault("description", extra)
        return inner
    if origin is Union or (hasattr(types, "UnionType") and isinstance(tp, types.UnionType)):
        non_null = [a for a in args if a is not _NoneType]
        schemas = [schema_for(a) for a in non_null]
        if len(non_null) < len(args):
            schemas.append({"type": "null"})
        return schemas[0] if len(schemas) == 1 else {"anyOf": schemas}
    if origin is Literal:
        return {"enum": list(args)}
    if origin in (list, set, frozenset, typing.Sequence) or tp in (list, set):
        s: dict[str, Any] = {"type": "array"}
        if args:
            s["items"] = schema_for(args[0])
        if origin in (set, frozenset):
            s["uniqueItems"] = True
        return s
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return {"type": "array", "items": schema_for(args[0])}
        return {
            "type": "array",
            "prefixItems": [schema_for(a) for a in args],
            "minItems": len(args),
            "maxItems": len(args),
        }
    if origin is dict or tp is dict:
        s = {"type": "object"}
        if len(args) == 2:
            s["additionalProperties"] = schema_for(args[1])
        return s
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return {"enum": [m.value for m in tp]}
    if _is_pydantic(tp):
        out: dict[str, Any] = tp.model_json_schema()
        return out
    if _is_dataclass(tp) and isinstance(tp, type):
        import dataclasses

        hints = typing.get_type_hints(tp, include_extras=True)
        props: dict[str, Any] = {}
        required: list[str] = []
        for f in dataclasses.fields(tp):
            props[f.name] = schema_for(hints.get(f.name, Any))
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                required.append(f.name)
        return _object(props, required)
    if _is_typeddict(tp):
        hints = typing.get_type_hints(tp, include_extras=True)
        req = getattr(tp, "__required_keys__", set(hints))
        props = {k: schema_for(v) for k, v in hints.items()}
        return _object(props, [k for k in hints if k in req])
    raise TypeError(f"cannot infer a JSON Schema for {tp!r}; pass input_schema= explicitly")


def _object(props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    s: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        s["required"] = required
    return s


def is_structured(tp: Any) -> bool:
    """Whether a return annotation means structured output (object-shaped)."""
    if tp is dict or get_origin(tp) is dict:
        return True
    return bool(
        _is_pydantic(tp)
        or (_is_dataclass(tp) and isinstance(tp, type))
        or _is_typeddict(tp)
    )


def to_jsonable(value: Any) -> Any:
    """Converts dataclasses, pydantic models, enums, tuples and sets into JSON-compatible data."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, enum.Enum):
        return to_jsonable(value.value)
    if _is_dataclass(value) and not isinstance(value, type):
        import dataclasses

        return {k: to_jsonable(v) for k, v in dataclasses.asdict(value).items()}
    if hasattr(value, "model_dump") and callable(value.model_dump):
        return value.model_dump(mode="json")
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [to_jsonable(v) for v in value]
    return value


def from_jsonable(tp: Any, value: Any) -> Any:
    """Converts validated JSON arguments into the annotated parameter type (dataclasses,
    pydantic models, enums); other values pass through."""
    if value is None:
        return None
    origin = get_origin(tp)
    if origin is typing.Annotated:
        return from_jsonable(get_args(tp)[0], value)
    if origin is Union or (hasattr(types, "UnionType") and isinstance(tp, types.UnionType)):
        for a in get_args(tp):
            if a is _NoneType:
                continue
            try:
                return from_jsonable(a, value)
            except (TypeError, ValueError):
                continue
        return value
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return tp(value)
    if _is_pydantic(tp):
        return tp.model_validate(value)
    if _is_dataclass(tp) and isinstance(tp, type) and isinstance(value, dict):
        hints = typing.get_type_hints(tp)
        return tp(**{k: from_jsonable(hints.get(k, Any), v) for k, v in value.items()})
    if origin is list and isinstance(value, list):
        (item,) = get_args(tp) or (Any,)
        return [from_jsonable(item, v) for v in value]
    if tp is float and isinstance(value, int):
        return float(value)
    if tp is bytes and isinstance(value, str):
        import base64

        return base64.b64decode(value)
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
