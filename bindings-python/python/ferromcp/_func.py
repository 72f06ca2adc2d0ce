"""What a handler's signature means on the wire: the input schema of its parameters, converting
arguments to the annotated types, and the output schema of its return annotation. Private.

Schemas and conversions are pydantic's (a model built from the signature with ``create_model``,
a ``TypeAdapter`` for the return type), so ``Field(...)``, ``Annotated[..., Field(...)]``, nested
models, dataclasses, TypedDicts, enums, datetimes and the rest behave as in pydantic. Signatures
made only of ``str``/``int``/``float``/``bool`` (the common case) take a path that does not import
pydantic (its import alone costs ~150 ms of a server's cold start) and gives the same schema."""

from __future__ import annotations

import types
import typing
from collections.abc import Callable
from typing import Any, Union, get_args, get_origin

from .schema import (
    EMPTY,
    _is_empty,
    _is_pydantic,
    _is_typeddict,
    inline_root_ref,
    pydantic_ready,
    to_jsonable,
)

_PLAIN_TYPES: dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}
_PLAIN_DEFAULTS = (str, int, float, bool, type(None))
_NoneType = type(None)


class ArgumentError(ValueError):
    """Arguments that do not convert to the annotated types (a tool answers ``isError``)."""


def _title(name: str) -> str:
    """pydantic's default title of a field."""
    return name.title().replace("_", " ")


def _plain_type(tp: Any) -> str | None:
    """The JSON type of ``str``/``int``/``float``/``bool`` (by identity: annotations may be
    unhashable, e.g. ``Annotated`` with a dict)."""
    for t, name in _PLAIN_TYPES.items():
        if tp is t:
            return name
    return None


def _plain(tp: Any) -> bool:
    return tp is Any or _is_empty(tp) or _plain_type(tp) is not None


class Params:
    """The parameters of a handler (less the ``Context`` one) as a JSON Schema and a converter
    from JSON arguments (or URI/prompt strings) to keyword arguments of the annotated types.

    ``names``: parameter name -> (annotation, default); ``var_kw``: the function takes
    ``**kwargs`` (unknown arguments go there; otherwise they are dropped); ``lax_strings``: the
    values are strings (URI template variables, prompt arguments) to be parsed into the types."""

    def __init__(
        self,
        model_name: str,
        names: dict[str, tuple[Any, Any]],
        *,
        var_kw: bool = False,
        strings: bool = False,
    ) -> None:
        self.names = names
        self.var_kw = var_kw
        self.strings = strings
        self._model: Any = None
        self._aliases: list[tuple[str, str]] = []
        # The names of a converter that changes nothing in arguments that have only these
        # (None: arguments always go through ``convert``); lets a handler skip the call.
        self.known_only: frozenset[str] | None = None
        if all(
            _plain(tp) and (d is EMPTY or type(d) in _PLAIN_DEFAULTS) for tp, d in names.values()
        ) and not (
            strings and any(tp not in (str, Any) and not _is_empty(tp) for tp, _ in names.values())
        ):
            self.schema = self._plain_schema(model_name)
            floats = [n for n, (tp, _) in names.items() if tp is float]
            if not floats and not var_kw:
                self.known_only = frozenset(names)
            # ``convert(arguments, *ignored)``: extra positional arguments (the native context)
            # are accepted so that it can serve as a handler's prepare step directly.
            self.convert: Callable[..., dict[str, Any]] = self._plain_converter(floats)
        else:
            self._build_model(model_name)
            self.convert = self._model_convert

    # ---- without pydantic --------------------------------------------------------------------
    def _plain_schema(self, model_name: str) -> dict[str, Any]:
        props: dict[str, Any] = {}
        required: list[str] = []
        for n, (tp, default) in self.names.items():
            s: dict[str, Any] = {"title": _title(n)}
            json_type = _plain_type(tp)
            if json_type is not None:
                s["type"] = json_type
            if default is EMPTY:
                required.append(n)
            else:
                s["default"] = default
            props[n] = s
        schema: dict[str, Any] = {"properties": props}
        if required:
            schema["required"] = required
        schema["title"] = model_name
        schema["type"] = "object"
        return schema

    def _plain_converter(self, floats: list[str]) -> Callable[..., dict[str, Any]]:
        known = set(self.names)
        var_kw = self.var_kw

        if not floats and not var_kw:

            def convert_plain(arguments: dict[str, Any], *_: Any) -> dict[str, Any]:
                if arguments.keys() <= known:
                    return dict(arguments)
                return {k: v for k, v in arguments.items() if k in known}

            return convert_plain

        def convert(arguments: dict[str, Any], *_: Any) -> dict[str, Any]:
            if var_kw or arguments.keys() <= known:
                kwargs = dict(arguments)
            else:
                kwargs = {k: v for k, v in arguments.items() if k in known}
            for n in floats:
                v = kwargs.get(n)
                if type(v) is int:
                    kwargs[n] = float(v)
            return kwargs

        return convert

    # ---- with pydantic -----------------------------------------------------------------------
    def _build_model(self, model_name: str) -> None:
        from pydantic import BaseModel, ConfigDict, Field, create_model
        from pydantic.fields import FieldInfo

        fields: dict[str, Any] = {}
        for n, (tp, default) in self.names.items():
            ann = pydantic_ready(Any if _is_empty(tp) else tp)
            internal = n
            if n.startswith("_") or hasattr(BaseModel, n):
                # A name pydantic reserves (private attribute, BaseModel attribute): an alias.
                internal = f"field_{n.lstrip('_')}_"
                ann = typing.Annotated[ann, Field(alias=n)]
            self._aliases.append((internal, n))
            if default is EMPTY:
                fields[internal] = (ann, ...)
            elif isinstance(default, FieldInfo):
                fields[internal] = (ann, default)
            else:
                fields[internal] = (ann, default)
        config = ConfigDict(arbitrary_types_allowed=True, protected_namespaces=())
        self._model = create_model(model_name, __config__=config, **fields)
        try:
            self.schema = self._model.model_json_schema()
        except Exception as e:  # noqa: BLE001 - pydantic's errors, re-raised as one kind
            raise TypeError(
                f"cannot infer a JSON Schema for the parameters of {model_name!r}: {e}; "
                "annotate them with JSON-compatible types or pass input_schema= explicitly"
            ) from e

    def _model_convert(self, arguments: dict[str, Any], *_: Any) -> dict[str, Any]:
        from pydantic import ValidationError

        known = self.names
        data = {k: v for k, v in arguments.items() if k in known}
        if self.strings:
            data = {k: _parse_json_string(known[k][0], v) for k, v in data.items()}
        try:
            model = self._model.model_validate(data)
        except ValidationError as e:
            raise ArgumentError(_validation_message(e)) from None
        kwargs = {name: getattr(model, internal) for internal, name in self._aliases}
        if self.var_kw:
            kwargs.update((k, v) for k, v in arguments.items() if k not in known)
        return kwargs

    def descriptions(self) -> dict[str, str]:
        """Each parameter's description (from ``Field(description=...)``)."""
        props = self.schema.get("properties", {})
        return {
            n: props[n]["description"]
            for n in self.names
            if isinstance(props.get(n), dict) and isinstance(props[n].get("description"), str)
        }


def _parse_json_string(tp: Any, value: Any) -> Any:
    """A string argument for a parameter that is not a string: JSON text of a list or object is
    parsed (clients send those as strings); anything else is left to pydantic's lax parsing."""
    if not isinstance(value, str) or tp is str or _is_empty(tp) or tp is Any:
        return value
    text = value.lstrip()
    if not text.startswith(("[", "{")):
        return value
    import json

    try:
        return json.loads(value)
    except ValueError:
        return value


def _validation_message(e: Any) -> str:
    parts = []
    for err in e.errors(include_url=False):
        loc = ".".join(str(x) for x in err.get("loc", ()))
        parts.append(f"{loc}: {err.get('msg')}" if loc else str(err.get("msg")))
    return "; ".join(parts) or str(e)


# ---- return annotations ----------------------------------------------------------------------
def _compact(value: Any) -> str:
    import json

    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _is_full_result(value: Any) -> bool:
    return (isinstance(value, dict) and isinstance(value.get("content"), list)) or (
        _is_call_tool_result(type(value))
    )


def _is_call_tool_result(tp: Any) -> bool:
    """Whether ``tp`` is a ``CallToolResult`` class: ``ferromcp.types.CallToolResult``, the
    official SDK's ``mcp.types.CallToolResult``, or the client's ``ferromcp.CallToolResult``
    (a dict), told apart by name so the official SDK need not be imported."""
    return isinstance(tp, type) and tp.__name__ == "CallToolResult" and tp is not dict


_RESULT_KEYS = {"structured_content": "structuredContent", "is_error": "isError", "meta": "_meta"}


def full_result(value: Any) -> Any:
    """A ``CallToolResult`` returned by a tool (a model, ours or the official SDK's, or a dict)
    as the wire dict the engine sends as it is; any other value unchanged."""
    from .types import to_wire

    if not isinstance(value, dict):
        if not _is_call_tool_result(type(value)):
            return value
        value = to_wire(value)
        if not isinstance(value, dict):
            return value
    out = {_RESULT_KEYS.get(k, k): v for k, v in value.items() if v is not None}
    out["content"] = [to_jsonable(to_wire(c)) for c in out.get("content") or []]
    if out.get("isError") is False:
        del out["isError"]
    return to_jsonable(out)


class Output:
    """How a tool's return value becomes its result: ``schema`` is its ``outputSchema`` (``None``:
    unstructured), ``finish(value, *ignored)`` the JSON the engine shapes into a
    ``CallToolResult`` (extra positional arguments, the native ones, are ignored so that it
    can serve as a handler's finish step directly). ``wrapped``: the schema wraps the value as
    ``{"result": ...}`` and the tool is registered with the native ``wrap_result``, so a
    ``finish`` answer that is not a dict is the bare return value, from which the engine builds
    the text and ``structuredContent`` (``embed::shape::wrapped_tool_result``).
    ``passthrough``: a type whose values (of exactly that type) ``finish`` returns unchanged,
    so that a handler may skip the call for them (None: always call it)."""

    def __init__(
        self,
        schema: dict[str, Any] | None,
        finish: Callable[[Any], Any],
        wrapped: bool = False,
        passthrough: type | None = None,
    ) -> None:
        self.schema = schema
        self.finish = finish
        self.wrapped = wrapped
        self.passthrough = passthrough


def output_for(
    ret: Any,
    name: str,
    structured_output: bool | None,
    output_schema: dict[str, Any] | None,
    unstructured: Callable[[Any], Any],
) -> Output:
    """The output plan for the return annotation ``ret`` of the function ``name``:

    - no annotation, ``Any``, ``structured_output=False``, or content (``Image``/``Audio``/``File``):
      unstructured (``unstructured(value)``), unless ``structured_output=True`` (then an error
      without an annotation);
    - an object-shaped type (pydantic model, dataclass, TypedDict, ``dict[str, T]``): its schema,
      the value as ``structuredContent``;
    - anything else (``str``, ``int``, lists, unions, ``None``, enums, ...): the schema wrapped as
      ``{"result": ...}`` (as the official SDK does), the value as ``{"result": value}`` and as text.

    A full ``CallToolResult`` dict (a ``content`` list) returned by the tool passes through."""
    if output_schema is not None:
        return Output(output_schema, _structured_passthrough)
    result_schema = _call_tool_result_output(ret, name, structured_output, unstructured)
    if result_schema is not None:
        return result_schema
    if structured_output is False:
        return Output(None, unstructured)
    if _is_empty(ret):
        if structured_output:
            raise TypeError(f"{name}: structured_output=True needs a return annotation")
        return Output(None, unstructured)
    if structured_output is None and (_returns_content(ret) or ret is Any or ret is object):
        return Output(None, unstructured)
    if _plain_type(ret) is not None or ret is None or ret is _NoneType:
        return _plain_wrapped(ret, name, unstructured)
    try:
        return _pydantic_output(ret, name, unstructured)
    except Exception as e:  # noqa: BLE001 - pydantic cannot describe it
        if structured_output:
            raise TypeError(
                f"{name}: the return type {ret!r} cannot be structured output: {e}"
            ) from e
        return Output(None, unstructured)


def _structured_passthrough(value: Any, *_: Any) -> Any:
    if _is_full_result(value):
        return full_result(value)
    return to_jsonable(value)


def _result_passthrough(value: Any, *_: Any) -> Any:
    return full_result(value) if _is_full_result(value) else to_jsonable(value)


def _call_tool_result_output(
    ret: Any, name: str, structured_output: bool | None, unstructured: Callable[[Any], Any]
) -> Output | None:
    """The plan of a tool annotated ``-> CallToolResult`` (the result is sent as the tool built
    it, with no ``outputSchema``) or ``-> Annotated[CallToolResult, Model]`` (``Model``'s schema
    is the ``outputSchema``, the engine checks ``structuredContent`` against it), as in the
    official SDK; ``None`` for any other annotation."""
    if _is_call_tool_result(ret):
        return Output(None, _result_passthrough)
    if get_origin(ret) is not typing.Annotated:
        return None
    base, *metadata = get_args(ret)
    if not _is_call_tool_result(base):
        return None
    if not metadata:
        return Output(None, _result_passthrough)
    model = metadata[0] if len(metadata) == 1 else typing.Annotated[(metadata[0], *metadata[1:])]
    inner = output_for(model, name, structured_output, None, unstructured)
    return Output(inner.schema, _result_passthrough)


def _plain_wrapped(ret: Any, name: str, unstructured: Callable[[Any], Any]) -> Output:
    null = ret is None or ret is _NoneType
    inner: dict[str, Any] = {"title": "Result", "type": "null" if null else _plain_type(ret)}
    schema = {
        "properties": {"result": inner},
        "required": ["result"],
        "title": f"{name}Output",
        "type": "object",
    }
    expected: Any = ret

    def finish(value: Any, *_: Any) -> Any:
        # A bare value is wrapped by the engine (see Output); anything else is a full result.
        if type(value) is expected and expected is str:
            return value
        if null:
            return value if value is None else _shaped(unstructured(value))
        if not (isinstance(value, expected) or (expected is float and type(value) is int)):
            return _shaped(unstructured(value))
        if _engine_text_is_ours(value):
            return value
        text = value if isinstance(value, str) else _compact(value)
        return {"content": [{"type": "text", "text": text}], "structuredContent": {"result": value}}

    return Output(schema, finish, wrapped=True, passthrough=str if expected is str else None)


def _shaped(answer: Any) -> Any:
    """``answer`` (what an unstructured tool would answer) as the full result the engine makes
    of it for a tool with an ``outputSchema``: the answer of a wrapped tool whose value is not
    of its annotated type, which the engine must not wrap. An answer that is not JSON stays as
    it is, for the engine to refuse as it refuses any such answer."""
    from ._native import shape_tool_result

    try:
        return shape_tool_result(answer, True)
    except (TypeError, ValueError):
        return answer


_I64_MIN = -(1 << 63)
_U64_END = 1 << 64
_INF = float("inf")


def _engine_text_is_ours(value: Any) -> bool:
    """Whether the engine's JSON text of ``value`` (``serde_json``) is ``_compact(value)``, so
    that it may build a wrapped result's text: strings, booleans, ``None``, integers that fit
    64 bits, finite floats from 1e-4 up and 0 (below 1e-4 ``repr`` writes ``1e-05`` where the
    engine writes ``0.00001``), and lists and tuples of those. Dicts are not (the engine sorts
    their keys)."""
    tp = type(value)
    if tp is str or tp is bool or value is None:
        return True
    if tp is int:
        return bool(_I64_MIN <= value < _U64_END)
    if tp is float:
        return bool(value == 0.0 or 1e-4 <= abs(value) < _INF)
    if tp is list or tp is tuple:
        return all(map(_engine_text_is_ours, value))
    return isinstance(value, str)  # a str subclass is the text itself; other subclasses: no


def _pydantic_output(ret: Any, name: str, unstructured: Callable[[Any], Any]) -> Output:
    from pydantic import TypeAdapter, create_model

    tp = pydantic_ready(ret)
    base = get_args(tp)[0] if get_origin(tp) is typing.Annotated else tp
    origin = get_origin(base)
    if _is_plain_class(base) and _class_hints(base):
        return _class_output(base, _class_hints(base), unstructured)
    object_shaped = (
        base is dict
        or (origin is dict and (not get_args(base) or get_args(base)[0] is str))
        or _is_pydantic(base)
        or _is_typeddict(base)
        or (isinstance(base, type) and hasattr(base, "__dataclass_fields__"))
    )
    if object_shaped:
        adapter: Any = TypeAdapter(tp)
        schema = inline_root_ref(adapter.json_schema())
        if schema.get("type") != "object":
            schema = {**schema, "type": "object"}

        def finish(value: Any, *_: Any) -> Any:
            if _is_full_result(value):
                return full_result(value)
            try:
                return adapter.dump_python(adapter.validate_python(value), mode="json")
            except Exception:  # noqa: BLE001 - not of the annotated type: as it is
                return to_jsonable(value)

        return Output(schema, finish)
    wrapper: Any = create_model(f"{name}Output", result=(tp, ...))
    schema = wrapper.model_json_schema()

    def finish_wrapped(value: Any, *_: Any) -> Any:
        if _is_full_result(value):
            return full_result(value)
        if _returns_content_value(value):
            # Image/Audio/File in a value of a data type (``list[Any]``): the blocks are the
            # content, their JSON the structured result.
            shaped = unstructured(value)
            blocks = shaped["content"] if _is_full_result(shaped) else [shaped]
            return {"content": blocks, "structuredContent": {"result": to_jsonable(value)}}
        dumped = wrapper.model_validate({"result": value}).model_dump(mode="json")
        result = dumped["result"]
        if _engine_text_is_ours(result):
            return result  # the engine wraps it (see Output)
        content = [
            {"type": "text", "text": result if isinstance(result, str) else _compact(result)}
        ]
        return {"content": content, "structuredContent": dumped}

    return Output(schema, finish_wrapped, wrapped=True)


def _is_plain_class(tp: Any) -> bool:
    """An ordinary class (not a builtin, enum, pydantic model, dataclass or TypedDict)."""
    if not isinstance(tp, type) or tp.__module__ == "builtins" or _is_typeddict(tp):
        return False
    if (
        _is_pydantic(tp)
        or hasattr(tp, "__dataclass_fields__")
        or getattr(tp, "__mcp_content__", False)
    ):
        return False
    import enum

    return not issubclass(
        tp, (enum.Enum, dict, list, tuple, set, frozenset, str, bytes, int, float)
    )


def _class_hints(cls: type) -> dict[str, Any]:
    """The public annotated attributes of a class (empty when it has none or they do not
    resolve: such a class is not structured output)."""
    try:
        hints = typing.get_type_hints(cls)
    except Exception:  # noqa: BLE001 - unresolvable annotations
        return {}
    return {k: v for k, v in hints.items() if not k.startswith("_")}


def _class_output(cls: type, hints: dict[str, Any], unstructured: Callable[[Any], Any]) -> Output:
    """An ordinary class with annotations (``name: str``, ``age: int``) as structured output,
    as the official SDK does: a model of its annotated attributes (defaults from the class,
    values read from the instance's attributes) gives the ``outputSchema`` and the
    ``structuredContent``."""
    from pydantic import ConfigDict, create_model

    fields: dict[str, Any] = {}
    for field_name, field_type in hints.items():
        default = getattr(cls, field_name, EMPTY)
        fields[field_name] = (pydantic_ready(field_type), ... if default is EMPTY else default)
    model: Any = create_model(
        cls.__name__,
        __config__=ConfigDict(from_attributes=True, arbitrary_types_allowed=True),
        **fields,
    )
    schema = inline_root_ref(model.model_json_schema())

    def finish(value: Any, *_: Any) -> Any:
        if _is_full_result(value):
            return full_result(value)
        try:
            return model.model_validate(value).model_dump(mode="json")
        except Exception:  # noqa: BLE001 - not of the annotated type: as it is
            return unstructured(value)

    return Output(schema, finish)


def _is_content_type(tp: Any) -> bool:
    return isinstance(tp, type) and getattr(tp, "__mcp_content__", False) is True


def _returns_content(tp: Any) -> bool:
    """Whether a return annotation is content (``Image``/``Audio``/``File``), bare, in a list or
    tuple, or as one arm of a union."""
    if _is_content_type(tp):
        return True
    origin = get_origin(tp)
    if origin is typing.Annotated:
        return _returns_content(get_args(tp)[0])
    if origin in (list, tuple, Union) or (
        hasattr(types, "UnionType") and isinstance(tp, types.UnionType)
    ):
        return any(_returns_content(a) for a in get_args(tp))
    return False


def _returns_content_value(value: Any) -> bool:
    if getattr(type(value), "__mcp_content__", False) is True:
        return True
    return isinstance(value, (list, tuple)) and any(_returns_content_value(v) for v in value)
