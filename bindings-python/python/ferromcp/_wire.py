"""What the decorators hand the engine as JSON: a tool's unstructured value, a resource's
contents, the annotations and icons of a definition, the checks of a URI template against its
function. Each shape is completed by the engine (``embed::shape``); this module only turns Python
values (bytes, models, content objects) into JSON."""

from __future__ import annotations

from typing import Any

from ._func import Params, _is_call_tool_result, full_result
from .schema import EMPTY as _EMPTY
from .schema import to_jsonable


def _tool_error(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": True}


def _bytes_content(value: bytes | bytearray) -> dict[str, Any]:
    """Raw bytes returned by a tool: their base64 text (no guessing what they are; return
    ``Image``, ``Audio`` or ``File`` to say it)."""
    import base64

    return {"type": "text", "text": base64.b64encode(bytes(value)).decode()}


def _unstructured(value: Any, *_: Any) -> Any:
    """A tool's value without an output schema, as JSON for the engine (embed::shape::tool_result:
    strings, content blocks, lists of them, full results, other values as JSON text)."""
    if type(value) is str:
        return value
    if isinstance(value, (bytes, bytearray)):
        return {"content": [_bytes_content(value)]}
    if _is_call_tool_result(type(value)):
        return full_result(value)
    if isinstance(value, (list, tuple)) and any(
        isinstance(v, (bytes, bytearray)) or getattr(type(v), "__mcp_content__", False)
        for v in value
    ):
        blocks = []
        for v in value:
            if isinstance(v, (bytes, bytearray)):
                blocks.append(_bytes_content(v))
            elif isinstance(v, str):
                blocks.append({"type": "text", "text": v})
            else:
                blocks.append(to_jsonable(v))
        return {"content": blocks}
    out = to_jsonable(value)
    if out is not None and not isinstance(out, (dict, list, str, int, float, bool)):
        # An object with no JSON form (a class without annotations): its str() as a JSON
        # string, as the official SDK answers (pydantic_core.to_json(value, fallback=str)).
        import json

        return {"content": [{"type": "text", "text": json.dumps(str(value))}]}
    return out


def _wire_dict(value: Any, expected: str) -> dict[str, Any]:
    """A definition part as the wire dict: a dict (copied), an object of this package (its
    ``to_dict()``), or any pydantic model (such as the official SDK's ``ToolAnnotations`` or
    ``Icon``); anything else is a ``TypeError`` naming ``expected``."""
    if isinstance(value, dict):
        return dict(value)
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict):
        out: dict[str, Any] = to_dict()
        return out
    if hasattr(value, "model_dump"):
        dumped: dict[str, Any] = value.model_dump(by_alias=True, exclude_none=True, mode="json")
        return dumped
    raise TypeError(f"{expected}, not {type(value).__name__}")


def _annotations_dict(annotations: Any) -> dict[str, Any] | None:
    """Tool annotations as the wire dict: a dict, a :class:`ToolAnnotations`, or any pydantic
    model (such as the official SDK's ``ToolAnnotations``)."""
    if annotations is None:
        return None
    return _wire_dict(annotations, "annotations must be a dict or ToolAnnotations")


def _icons_list(icons: Any) -> list[dict[str, Any]] | None:
    """Icons as wire dicts: each a dict, an :class:`Icon` or a pydantic model."""
    if icons is None:
        return None
    return [_wire_dict(icon, "an icon must be a dict or Icon") for icon in icons]


def _template_variables(uri: str) -> list[str]:
    """The variable names of an RFC 6570 URI template (``{id}``, ``{+path}``, ``{?a,b*}``)."""
    import re

    names: list[str] = []
    for expr in re.findall(r"\{([^}]*)\}", uri):
        for spec in expr.lstrip("+#./;?&").split(","):
            name = spec.split(":", 1)[0].rstrip("*").strip()
            if name:
                names.append(name)
    return names


def _check_template_params(uri: str, fn_name: str, params: Params) -> None:
    """A resource function's parameters must match its URI's variables: each variable is a
    parameter (unless it takes ``**kwargs``), each parameter without a default a variable."""
    variables = _template_variables(uri)
    missing = [v for v in variables if v not in params.names]
    if missing and not params.var_kw:
        raise ValueError(
            f"resource {uri!r}: {fn_name}() has no parameter for the URI variable(s) "
            + ", ".join(missing)
        )
    unbound = [n for n, (_, d) in params.names.items() if d is _EMPTY and n not in variables]
    if unbound:
        raise ValueError(
            f"resource {uri!r}: the parameter(s) {', '.join(unbound)} of {fn_name}() are not "
            "URI variables (give them defaults, or add {" + unbound[0] + "} to the URI)"
        )


_CONTENTS_KEYS = frozenset(
    ("uri", "mimeType", "text", "blob", "_meta", "name", "title", "annotations")
)


def _is_contents(value: Any) -> bool:
    """Whether a dict is a ``ResourceContents`` (``text`` or ``blob`` and only contents keys)."""
    return (
        isinstance(value, dict)
        and ("text" in value or "blob" in value)
        and value.keys() <= _CONTENTS_KEYS
    )


def _resource_item(value: Any, json_mime: str | None) -> Any:
    import base64

    if isinstance(value, str) or _is_contents(value):
        return value
    if isinstance(value, (bytes, bytearray)):
        return {"blob": base64.b64encode(value).decode()}
    import json

    item: dict[str, Any] = {"text": json.dumps(to_jsonable(value), ensure_ascii=False)}
    if json_mime is not None:
        item["mimeType"] = json_mime
    return item


def _resource_value(value: Any, mime_type: str | None) -> Any:
    """A resource handler's answer as JSON for the engine (embed::shape::resource_contents,
    which completes ``uri`` and ``mimeType``): a string is text, bytes a base64 ``blob``, a
    contents dict stays as it is, a list of those gives several contents, a
    ``{"contents": [...]}`` result passes through; any other value (a dict, a list of data, a
    model, a dataclass) is one text item with its JSON (``application/json`` unless the
    resource declared a MIME type)."""
    json_mime = None if mime_type else "application/json"
    if isinstance(value, dict) and isinstance(value.get("contents"), list):
        return value
    if (
        isinstance(value, list)
        and value
        and all(isinstance(i, (str, bytes, bytearray)) or _is_contents(i) for i in value)
    ):
        return [_resource_item(i, json_mime) for i in value]
    return _resource_item(value, json_mime)
