"""The hand-written wire types against the MCP schema (``../shared/spec/schema/<revision>/schema.json``
beside the repository, or ``FERROMCP_SPEC_DIR``), so drift fails CI:

- ``ferromcp.types`` (the pydantic models): each model's fields, by their wire names, are the
  schema definition's properties, both ways, in 2025-11-25 and (for the types it still has)
  2026-07-28; and a value generated from the schema with *every* property filled in reads into
  the model and is written back unchanged.
- ``ferromcp.results`` (the client's typed results, dicts with properties on top): every property
  named after a wire field reads that field of a generated value; every derived property
  (``text``, ``data``, ...) reads the fields it is said to; the schema's fields that have no
  property are listed.
- ``ferromcp.content`` (``Icon``, ``ToolAnnotations``): their arguments are the schema's fields,
  and a generated value built from them is written back unchanged.

Every difference kept on purpose is listed below with its reason; a listed difference that is no
longer one fails too, so the lists stay true. Nothing is skipped: without the schema the test
fails (CI always has it)."""

from __future__ import annotations

import inspect
import json
import os
from pathlib import Path
from typing import Any

import pytest

from ferromcp import content, results, types

REVISIONS = ("2025-11-25", "2026-07-28")


def _spec_dir() -> Path:
    env = os.environ.get("FERROMCP_SPEC_DIR")
    if env:
        return Path(env)
    # <repository>/bindings-python/tests/<this file> -> <repository>/../shared/spec
    return Path(__file__).resolve().parents[3] / "shared" / "spec"


def _defs(revision: str) -> dict[str, Any]:
    path = _spec_dir() / "schema" / revision / "schema.json"
    assert path.is_file(), (
        f"no MCP schema at {path} (../shared/spec beside the repository, or FERROMCP_SPEC_DIR)"
    )
    defs: dict[str, Any] = json.loads(path.read_text())["$defs"]
    return defs


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def _resolve(schema: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with ``$ref`` followed and ``allOf`` merged (properties and required)."""
    while "$ref" in schema:
        schema = defs[schema["$ref"].rsplit("/", 1)[1]]
    if "allOf" in schema:
        merged: dict[str, Any] = {"type": "object", "properties": {}, "required": []}
        for part in schema["allOf"]:
            p = _resolve(part, defs)
            merged["properties"].update(p.get("properties", {}))
            merged["required"] += p.get("required", [])
        return merged
    return schema


def _properties(name_or_schema: str | dict[str, Any], defs: dict[str, Any]) -> set[str]:
    schema = defs[name_or_schema] if isinstance(name_or_schema, str) else name_or_schema
    return set(_resolve(schema, defs).get("properties", {}))


def _full(schema: dict[str, Any], defs: dict[str, Any], depth: int = 0) -> Any:
    """A value of ``schema`` with every property present (the first branch of a union), so a
    field our type does not read or write is seen."""
    schema = _resolve(schema, defs)
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][0]
    if "anyOf" in schema:
        return _full(schema["anyOf"][0], defs, depth + 1)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next(k for k in kind if k != "null")
    if kind == "object" or "properties" in schema:
        props = schema.get("properties", {})
        if not props:
            return {"key": "value"}
        if depth > 6:
            return {k: "deep" for k in schema.get("required", [])}
        return {k: _full(v, defs, depth + 1) for k, v in props.items()}
    if kind == "array":
        return [_full(schema.get("items", {}), defs, depth + 1)]
    if kind == "string":
        fmt = schema.get("format")
        return {
            "uri": "https://example.com/a",
            "byte": "aGVsbG8=",
            "date-time": "2025-01-01T00:00:00Z",
        }.get(fmt or "", "text")
    if kind == "integer":
        return 3
    if kind == "number":
        return 1.5
    if kind == "boolean":
        return True
    return "any"


# ---- ferromcp.types ----------------------------------------------------------------------------

#: Our models whose schema definition has another name (or is a field of one).
SCHEMA_NAME: dict[str, str | tuple[str, str]] = {
    "Completion": ("CompleteResult", "completion"),
    "CompletionArgument": ("CompleteRequestParams", "argument"),
    "CompletionContext": ("CompleteRequestParams", "context"),
    "ErrorData": "Error",
    # Ours is one generic notification (a message handler's), not the union of the server's.
    "ServerNotification": "Notification",
}
#: Types a revision does not have, and why they are not checked there.
NOT_IN = {
    "2026-07-28": {
        "InitializeRequestParams": "the per-request era has no handshake",
        "InitializeResult": "the per-request era has no handshake",
    },
}
_EXTRA = "left to the model's extra fields (extra='allow' keeps and writes it back)"
_TASK = "the task augmentation (tasks) is run by the engine; " + _EXTRA
_ENVELOPE = "the per-request era's envelope, which the engine reads and writes; " + _EXTRA
_CACHE = "a cache hint the engine writes from the server's options; " + _EXTRA
#: (revision, model) -> {wire field: reason}: a field the schema has and the model does not.
SCHEMA_ONLY: dict[tuple[str, str], dict[str, str]] = {
    ("2025-11-25", "CallToolRequestParams"): {"task": _TASK},
    ("2025-11-25", "CreateMessageRequestParams"): {"task": _TASK},
    ("2025-11-25", "ElicitRequestFormParams"): {"task": _TASK},
    ("2025-11-25", "ElicitRequestURLParams"): {"task": _TASK},
    ("2025-11-25", "ClientCapabilities"): {"tasks": _TASK},
    ("2026-07-28", "ClientCapabilities"): {
        "extensions": "declared by the engine from the client's options; " + _EXTRA
    },
    **{
        ("2026-07-28", m): {"inputResponses": _ENVELOPE, "requestState": _ENVELOPE}
        for m in ("CallToolRequestParams", "GetPromptRequestParams", "ReadResourceRequestParams")
    },
    **{
        ("2026-07-28", m): {"resultType": _ENVELOPE}
        for m in ("CallToolResult", "CompleteResult", "GetPromptResult", "EmptyResult")
    },
    **{
        ("2026-07-28", m): {"resultType": _ENVELOPE, "ttlMs": _CACHE, "cacheScope": _CACHE}
        for m in (
            "ListToolsResult",
            "ListPromptsResult",
            "ListResourcesResult",
            "ListResourceTemplatesResult",
        )
    },
    ("2026-07-28", "ReadResourceResult"): {
        "resultType": _ENVELOPE,
        "ttlMs": _CACHE,
        "cacheScope": _CACHE,
    },
}
_HANDSHAKE = "kept for the handshake era (2025-11-25), where the schema has it"
#: (revision, model) -> {wire field: reason}: a field the model has and the schema does not.
OURS_ONLY: dict[tuple[str, str], dict[str, str]] = {
    ("2026-07-28", "Tool"): {"execution": _HANDSHAKE + " (taskSupport)"},
    ("2026-07-28", "CreateMessageRequestParams"): {"_meta": _HANDSHAKE},
    ("2026-07-28", "ElicitRequestFormParams"): {"_meta": _HANDSHAKE},
    ("2026-07-28", "ElicitRequestURLParams"): {"elicitationId": _HANDSHAKE, "_meta": _HANDSHAKE},
    ("2026-07-28", "ElicitResult"): {"_meta": _HANDSHAKE},
    ("2026-07-28", "ListRootsResult"): {"_meta": _HANDSHAKE},
}


def _models() -> dict[str, type[types.MCPModel]]:
    out = {
        name: cls
        for name, cls in vars(types).items()
        if isinstance(cls, type) and issubclass(cls, types.MCPModel) and cls is not types.MCPModel
    }
    assert len(out) >= 40, f"only {len(out)} models found in ferromcp.types"
    return out


def _schema_of(name: str, defs: dict[str, Any]) -> dict[str, Any] | None:
    where = SCHEMA_NAME.get(name, name)
    if isinstance(where, tuple):
        owner, field = where
        if owner not in defs:
            return None
        prop: dict[str, Any] = _resolve(defs[owner], defs)["properties"][field]
        return prop
    return defs.get(where)


def _wire_fields(cls: type[types.MCPModel]) -> set[str]:
    return {f.alias or n for n, f in cls.model_fields.items()}


@pytest.mark.parametrize("revision", REVISIONS)
def test_every_model_has_exactly_the_schemas_fields(revision: str) -> None:
    defs = _defs(revision)
    problems: list[str] = []
    checked = 0
    for name, cls in sorted(_models().items()):
        if name in NOT_IN.get(revision, {}):
            assert _schema_of(name, defs) is None, (
                f"{revision} has {name} now: remove it from NOT_IN"
            )
            continue
        schema = _schema_of(name, defs)
        if schema is None:
            problems.append(
                f"{name}: no schema definition in {revision} (map it in SCHEMA_NAME or NOT_IN)"
            )
            continue
        ours, theirs = _wire_fields(cls), _properties(schema, defs)
        schema_only = SCHEMA_ONLY.get((revision, name), {})
        ours_only = OURS_ONLY.get((revision, name), {})
        if missing := (theirs - ours) - set(schema_only):
            problems.append(f"{name}: schema fields the model lacks: {sorted(missing)}")
        if extra := (ours - theirs) - set(ours_only):
            problems.append(f"{name}: model fields the schema lacks (misnamed?): {sorted(extra)}")
        if stale := (set(schema_only) - (theirs - ours)) | (set(ours_only) - (ours - theirs)):
            problems.append(f"{name}: listed differences that are no longer ones: {sorted(stale)}")
        checked += 1
    listed = {m for (r, m) in (*SCHEMA_ONLY, *OURS_ONLY) if r == revision}
    if unknown := listed - set(_models()):
        problems.append(
            f"differences listed for models ferromcp.types no longer has: {sorted(unknown)}"
        )
    assert not problems, f"{revision}:\n  " + "\n  ".join(problems)
    assert checked >= 40


@pytest.mark.parametrize("revision", REVISIONS)
def test_a_value_with_every_schema_field_round_trips_through_each_model(revision: str) -> None:
    defs = _defs(revision)
    problems: list[str] = []
    for name, cls in sorted(_models().items()):
        schema = None if name in NOT_IN.get(revision, {}) else _schema_of(name, defs)
        if schema is None:
            continue
        value = _full(schema, defs)
        try:
            written = cls.model_validate(value).to_wire()
        except Exception as e:  # noqa: BLE001 - every failure is reported with its model
            problems.append(f"{name}: cannot read {json.dumps(value)}: {e}")
            continue
        if written != value:
            problems.append(f"{name}: read {json.dumps(value)}\n    wrote {json.dumps(written)}")
    assert not problems, f"{revision}:\n  " + "\n  ".join(problems)


# ---- ferromcp.results --------------------------------------------------------------------------

#: results.py classes -> the schema definitions they wrap (a union's branches each checked).
RESULT_SCHEMAS: dict[str, tuple[str, ...]] = {
    "CallToolResult": ("CallToolResult",),
    "Tool": ("Tool",),
    "ResourceContents": ("TextResourceContents", "BlobResourceContents"),
    "ReadResourceResult": ("ReadResourceResult",),
    "GetPromptResult": ("GetPromptResult",),
}
#: Properties not named after one wire field: the wire fields each is computed from.
DERIVED: dict[tuple[str, str], tuple[str, ...]] = {
    ("CallToolResult", "text"): ("content",),
    ("CallToolResult", "data"): ("structuredContent",),
    ("ResourceContents", "content"): ("text", "blob"),
    ("ReadResourceResult", "text"): ("contents",),
    ("ReadResourceResult", "blob"): ("contents",),
}
_BY_KEY = "read by key (the result is the wire dict: r[...])"
#: Derived properties whose fields are filled from another branch of a union than the first:
#: (class, property) -> (field, the definition its items are generated from).
DERIVED_FROM: dict[tuple[str, str], tuple[str, str]] = {
    ("ReadResourceResult", "blob"): ("contents", "BlobResourceContents"),
}
#: (class, wire field) -> reason: fields of the schema with no property.
NO_PROPERTY: dict[tuple[str, str], str] = {
    ("CallToolResult", "_meta"): _BY_KEY,
    ("CallToolResult", "resultType"): _BY_KEY + "; the per-request era's envelope",
    ("Tool", "icons"): _BY_KEY,
    ("Tool", "execution"): _BY_KEY + "; 2025-11-25's task support",
    ("Tool", "_meta"): _BY_KEY,
    ("ResourceContents", "_meta"): _BY_KEY,
    ("ResourceContents", "text"): "read through .content (text or blob)",
    ("ResourceContents", "blob"): "read through .content (text or blob)",
    ("ReadResourceResult", "_meta"): _BY_KEY,
    ("ReadResourceResult", "resultType"): _BY_KEY + "; the per-request era's envelope",
    ("ReadResourceResult", "ttlMs"): _BY_KEY + "; a cache hint",
    ("ReadResourceResult", "cacheScope"): _BY_KEY + "; a cache hint",
    ("GetPromptResult", "_meta"): _BY_KEY,
    ("GetPromptResult", "resultType"): _BY_KEY + "; the per-request era's envelope",
}


def _result_classes() -> dict[str, type[dict[str, Any]]]:
    found = {
        n: c
        for n, c in vars(results).items()
        if isinstance(c, type) and issubclass(c, dict) and c.__module__ == results.__name__
    }
    assert set(found) == set(RESULT_SCHEMAS), (
        "a results.py class is new or gone: map it in RESULT_SCHEMAS"
    )
    return found


def _public_properties(cls: type) -> list[str]:
    return [
        n for n, v in inspect.getmembers(cls) if isinstance(v, property) and not n.startswith("_")
    ]


def _empty(value: Any) -> bool:
    return value in (None, "", b"", [], {}, False)


def _check_results(revision: str) -> tuple[list[str], set[tuple[str, str]]]:
    """What is wrong in results.py against ``revision``, and the NO_PROPERTY entries it met."""
    defs = _defs(revision)
    problems: list[str] = []
    met: set[tuple[str, str]] = set()
    for name, cls in sorted(_result_classes().items()):
        for schema_name in RESULT_SCHEMAS[name]:
            fields = _properties(schema_name, defs)
            full = _full(defs[schema_name], defs)
            r = cls(full)
            covered: set[str] = set()
            for prop in _public_properties(cls):
                value = getattr(r, prop)
                sources = DERIVED.get((name, prop))
                if (name, prop) in DERIVED_FROM:
                    field, item = DERIVED_FROM[(name, prop)]
                    value = getattr(cls({**full, field: [_full(defs[item], defs)]}), prop)
                if sources is None:
                    key = "_meta" if prop == "meta" else _camel(prop)
                    if key not in fields:
                        problems.append(
                            f"{name}.{prop}: reads {key!r}, which {schema_name} has not (misnamed?)"
                        )
                    elif value != full[key]:
                        problems.append(
                            f"{name}.{prop}: {value!r}, not {schema_name}.{key} = {full[key]!r}"
                        )
                    covered.add(key)
                    continue
                present = [s for s in sources if s in full]
                if not set(sources) & fields:
                    problems.append(
                        f"{name}.{prop}: computed from {sources}, which {schema_name} has not"
                    )
                elif present and _empty(value):
                    problems.append(f"{name}.{prop}: empty on a value that has {present}")
                elif not _empty(
                    getattr(cls({k: v for k, v in full.items() if k not in sources}), prop)
                ):
                    problems.append(f"{name}.{prop}: not computed from {sources} alone")
            for key in sorted(fields - covered):
                if (name, key) in NO_PROPERTY:
                    met.add((name, key))
                else:
                    problems.append(
                        f"{name}: {schema_name}.{key} has no property (add one or list it in NO_PROPERTY)"
                    )
    return problems, met


def test_every_result_property_reads_the_schemas_field() -> None:
    problems: list[str] = []
    met: set[tuple[str, str]] = set()
    for revision in REVISIONS:
        p, m = _check_results(revision)
        problems += [f"{revision}: {x}" for x in p]
        met |= m
    if stale := set(NO_PROPERTY) - met:
        problems.append(f"NO_PROPERTY lists fields neither revision has: {sorted(stale)}")
    assert not problems, "\n  ".join(["results.py against the schema:", *problems])


# ---- ferromcp.content --------------------------------------------------------------------------


@pytest.mark.parametrize("revision", REVISIONS)
@pytest.mark.parametrize("cls", [content.Icon, content.ToolAnnotations], ids=lambda c: c.__name__)
def test_content_helpers_take_and_write_exactly_the_schemas_fields(
    revision: str, cls: type
) -> None:
    defs = _defs(revision)
    schema_name = cls.__name__
    params = [p for p in inspect.signature(cls.__init__).parameters if p != "self"]
    wire = {_camel(p): p for p in params}
    fields = _properties(schema_name, defs)
    assert set(wire) == fields, (
        f"{schema_name}: arguments {sorted(wire)} against the schema's {sorted(fields)}: "
        f"missing {sorted(fields - set(wire))}, not in the schema {sorted(set(wire) - fields)}"
    )
    full = _full(defs[schema_name], defs)
    assert cls(**{wire[k]: v for k, v in full.items()}).to_dict() == full
