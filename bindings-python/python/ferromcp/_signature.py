"""Reading a handler function's signature: its parameters, type hints, docstring, whether it
is a coroutine function and which parameter takes the :class:`Context`. Plain functions are read
from their code object, so that a server's cold start does not import ``inspect``; anything else
(wrappers, partials, methods) goes through ``inspect``."""

from __future__ import annotations

import types
import typing
from collections.abc import Callable
from typing import Any

from ._func import Params
from .context import Context
from .schema import EMPTY as _EMPTY


class _Param:
    """The parts of ``inspect.Parameter`` the decorators use."""

    __slots__ = ("kind", "default")
    POSITIONAL_ONLY = "POSITIONAL_ONLY"
    POSITIONAL_OR_KEYWORD = "POSITIONAL_OR_KEYWORD"
    VAR_POSITIONAL = "VAR_POSITIONAL"
    KEYWORD_ONLY = "KEYWORD_ONLY"
    VAR_KEYWORD = "VAR_KEYWORD"
    empty: Any = _EMPTY

    def __init__(self, kind: str, default: Any = _EMPTY) -> None:
        self.kind = kind
        self.default = default


class _Sig:
    """The parts of ``inspect.Signature`` the decorators use."""

    __slots__ = ("parameters",)

    def __init__(self, parameters: dict[str, _Param]) -> None:
        self.parameters = parameters


_CO_VARARGS = 0x04
_CO_VARKEYWORDS = 0x08
_CO_COROUTINE = 0x80


def _signature(fn: Callable[..., Any]) -> _Sig:
    """``fn``'s parameters; read from its code object for plain functions (no ``inspect``
    import), from ``inspect.signature`` for anything else (wrappers, partials, methods)."""
    if (
        type(fn) is types.FunctionType
        and not hasattr(fn, "__wrapped__")
        and not hasattr(fn, "__signature__")
    ):
        code = fn.__code__
        names = code.co_varnames
        n_pos, n_kw = code.co_argcount, code.co_kwonlyargcount
        defaults = fn.__defaults__ or ()
        kwdefaults = fn.__kwdefaults__ or {}
        first_default = n_pos - len(defaults)
        params: dict[str, _Param] = {}
        for i in range(n_pos):
            kind = (
                _Param.POSITIONAL_ONLY
                if i < code.co_posonlyargcount
                else _Param.POSITIONAL_OR_KEYWORD
            )
            params[names[i]] = _Param(
                kind, defaults[i - first_default] if i >= first_default else _EMPTY
            )
        extra = n_pos + n_kw
        if code.co_flags & _CO_VARARGS:
            params[names[extra]] = _Param(_Param.VAR_POSITIONAL)
            extra += 1
        for name in names[n_pos : n_pos + n_kw]:
            params[name] = _Param(_Param.KEYWORD_ONLY, kwdefaults.get(name, _EMPTY))
        if code.co_flags & _CO_VARKEYWORDS:
            params[names[extra]] = _Param(_Param.VAR_KEYWORD)
        return _Sig(params)
    import inspect

    return _Sig(
        {
            n: _Param(p.kind.name, _EMPTY if p.default is p.empty else p.default)
            for n, p in inspect.signature(fn).parameters.items()
        }
    )


def _is_async(fn: Callable[..., Any]) -> bool:
    """``inspect.iscoroutinefunction`` without importing inspect for plain functions."""
    if type(fn) is types.FunctionType and not hasattr(fn, "_is_coroutine_marker"):
        return bool(fn.__code__.co_flags & _CO_COROUTINE)
    import inspect

    return inspect.iscoroutinefunction(fn)


def _is_awaitable(value: Any) -> bool:
    return hasattr(value, "__await__") or type(value) is types.CoroutineType


def _doc(fn: Callable[..., Any]) -> str | None:
    """``inspect.getdoc`` for plain functions: the docstring with its indentation removed."""
    if type(fn) is not types.FunctionType:
        import inspect

        return inspect.getdoc(fn)
    doc = fn.__doc__
    if not isinstance(doc, str):
        return None
    lines = doc.expandtabs().split("\n")
    indents = [len(x) - len(x.lstrip()) for x in lines[1:] if x.strip()]
    margin = min(indents) if indents else 0
    out = [lines[0].lstrip()] + [x[margin:] for x in lines[1:]]
    while out and not out[-1].strip():
        out.pop()
    while out and not out[0].strip():
        out.pop(0)
    return "\n".join(out)


def _is_context_type(tp: Any) -> bool:
    if isinstance(tp, type):
        return issubclass(tp, Context)
    return any(_is_context_type(a) for a in typing.get_args(tp))


def _context_param(sig: _Sig, hints: dict[str, Any]) -> str | None:
    for name in sig.parameters:
        tp = hints.get(name)
        if tp is not None and _is_context_type(tp):
            return name
    return None


def _hints(fn: Callable[..., Any]) -> dict[str, Any]:
    try:
        return typing.get_type_hints(fn, include_extras=True)
    except Exception:  # noqa: BLE001 - some forward reference does not resolve
        # Resolve the annotations one by one, so that one unresolvable name (a class local to
        # a function, under `from __future__ import annotations`) does not hide the others.
        globalns = getattr(fn, "__globals__", {})
        out: dict[str, Any] = {}
        for name, ann in dict(getattr(fn, "__annotations__", {})).items():
            if isinstance(ann, str):
                try:
                    ann = eval(ann, globalns)  # noqa: S307 - what get_type_hints does
                except Exception:  # noqa: BLE001 - left as the string
                    pass
            out[name] = ann
        return out


def _params(
    fn: Callable[..., Any], model_name: str, *, strings: bool = False
) -> tuple[_Sig, dict[str, Any], str | None, Params]:
    """``fn``'s signature, type hints, ``Context`` parameter and :class:`Params` (the others)."""
    sig = _signature(fn)
    hints = _hints(fn)
    ctx_name = _context_param(sig, hints)
    names: dict[str, tuple[Any, Any]] = {}
    var_kw = False
    for n, p in sig.parameters.items():
        if n == ctx_name or p.kind == p.VAR_POSITIONAL:
            continue
        if p.kind == p.VAR_KEYWORD:
            var_kw = True
            continue
        names[n] = (hints.get(n, _EMPTY), p.default)
    return sig, hints, ctx_name, Params(model_name, names, var_kw=var_kw, strings=strings)


def _takes_context(fn: Callable[..., Any]) -> bool:
    return "context" in _signature(fn).parameters
