"""The engine's log events as :mod:`logging` records under the ``ferromcp`` logger.

The native module calls :func:`threshold`, installs :func:`deliver` as the engine's log sink
and calls :func:`watch_levels` with its ``set_log_threshold`` when it is imported (handed over,
so that this module, which the native one imports, never imports it: no import circle). The engine logs through Rust's ``tracing``:
one event per request from ``RequestLog`` (logger ``ferromcp.request``), the original detail of
an error ``MaskErrors`` hid (``ferromcp.masked``), the engine's warnings (``ferromcp.<module>``).
Each becomes a record of the logger named after its target, with the message
``"request method=tools/call tool=echo duration_us=41 outcome=ok ..."``, the fields as
attributes (``record.method``, ``record.duration_us``, ...; all of them in ``record.fields``)
and ``record.target`` (the Rust target). Levels: trace 5, debug 10, info 20, warn 30, error 40.

Only events some ``ferromcp`` logger would handle leave the engine: the least severe level
enabled on ``ferromcp`` or a ``ferromcp.*`` logger is handed to the engine, which then skips
the others without formatting them or taking the GIL. That level is recomputed whenever the
logging configuration changes a level (``setLevel``, ``basicConfig``, ``dictConfig``,
``logging.disable``: each clears the loggers' caches through ``Logger.manager._clear_cache``,
which this module wraps).

Records are made on the binding's Python thread, shortly after the event (not on the thread
that served the request).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

__all__ = ["deliver", "threshold", "watch_levels"]

_ROOT = "ferromcp"
# The engine's levels as Python numbers, least severe first (trace has no name in logging).
_LEVELS = (5, logging.DEBUG, logging.INFO, logging.WARNING, logging.ERROR)
_OFF = 100
# A record's own attributes: fields of these names stay in ``record.fields`` only.
_RESERVED = frozenset(logging.LogRecord("", 0, "", 0, "", (), None).__dict__) | {
    "message",
    "asctime",
    "fields",
    "target",
}


def threshold() -> int:
    """The least severe engine level a ``ferromcp`` logger would handle (100: none)."""
    loggers: list[logging.Logger] = [logging.getLogger(_ROOT)]
    for name, logger in list(logging.Logger.manager.loggerDict.items()):
        if name.startswith(_ROOT + ".") and isinstance(logger, logging.Logger):
            loggers.append(logger)
    best = _OFF
    for logger in loggers:
        for level in _LEVELS:
            if level >= best:
                break
            if logger.isEnabledFor(level):
                best = level
                break
    return best


def watch_levels(set_threshold: Callable[[int], None]) -> None:
    """Recomputes :func:`threshold` whenever a logger's level changes and hands it to the engine
    (``set_threshold``: the native module's ``set_log_threshold``)."""
    manager = logging.Logger.manager
    clear = getattr(manager, "_clear_cache", None)
    if clear is None or getattr(clear, "_ferromcp_watch", False):
        return

    def clear_cache() -> None:
        clear()
        set_threshold(threshold())

    clear_cache._ferromcp_watch = True  # type: ignore[attr-defined]
    manager._clear_cache = clear_cache  # type: ignore[attr-defined]


def deliver(levelno: int, name: str, message: str, target: str, fields_json: str) -> None:
    """Hands one engine event to the logger ``name`` (called by the native module)."""
    try:
        logger = logging.getLogger(name)
        if not logger.isEnabledFor(levelno):
            return
        fields: dict[str, Any] = json.loads(fields_json)
        extra = {k: v for k, v in fields.items() if k not in _RESERVED}
        extra["fields"] = fields
        extra["target"] = target
        record = logger.makeRecord(
            name, levelno, "(ferromcp engine)", 0, message, (), None, extra=extra
        )
        logger.handle(record)
    except Exception:  # noqa: BLE001 - a log record must never break the binding's thread
        if logging.raiseExceptions:
            import traceback

            traceback.print_exc()
