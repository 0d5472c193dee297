"""``ctx.logger``: the standard library's logging, with the two habits of the gadget guide.

The TypeScript guide's logger has a ``trace`` level and takes structured fields
(``ctx.logger.debug("Processing item", {"item_id": 7})``). In Python the logger is a
:class:`logging.LoggerAdapter` over the stdlib logger ``llmist.gadget.<Name>``, so handlers,
levels and formatters work as everywhere else, and:

- ``trace(...)`` logs at :data:`TRACE` (5, below ``DEBUG``), a level registered as ``"TRACE"``;
- the guide's other levels are all there: ``debug``, ``info``, ``warn`` (``warning``, without the
  stdlib's deprecation warning), ``error`` and ``fatal`` (``critical``, as ``logging.fatal`` is);
- a dict passed as the only argument becomes attributes of the log record (``record.item_id``),
  not ``%``-formatting arguments. A message that uses ``%(name)s`` mapping formatting keeps the
  stdlib meaning. A field whose name a log record already has (``name``, ``msg``...) is stored
  as ``field_<name>`` rather than overwrite it;
- every record carries ``gadget`` and ``invocation_id``.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, MutableMapping
from typing import Any

__all__ = ["TRACE", "GadgetLogger"]

TRACE = 5
"""The ``trace`` level: finer than ``DEBUG``."""
logging.addLevelName(TRACE, "TRACE")

_RECORD_ATTRIBUTES = frozenset(logging.LogRecord("", 0, "", 0, "", (), None).__dict__) | {"message", "asctime"}


class GadgetLogger(logging.LoggerAdapter[logging.Logger]):
    """The logger a gadget gets as ``ctx.logger`` (see the module docstring)."""

    def __init__(self, logger: logging.Logger, gadget: str, invocation_id: str = "") -> None:
        super().__init__(logger, {"gadget": gadget, "invocation_id": invocation_id})

    def trace(self, msg: object, *args: object, **kwargs: Any) -> None:
        """Log at :data:`TRACE`."""
        self.log(TRACE, msg, *args, **kwargs)

    def warn(self, msg: object, *args: object, **kwargs: Any) -> None:
        """Log at ``WARNING``: the guide's ``warn``, with no deprecation warning."""
        self.log(logging.WARNING, msg, *args, **kwargs)

    def fatal(self, msg: object, *args: object, **kwargs: Any) -> None:
        """Log at ``CRITICAL``: the guide's ``fatal``, as :func:`logging.fatal` is ``critical``."""
        self.log(logging.CRITICAL, msg, *args, **kwargs)

    def log(self, level: int, msg: object, *args: object, **kwargs: Any) -> None:
        """Log ``msg``; a lone dict argument becomes record attributes (see the module docstring)."""
        if len(args) == 1 and isinstance(args[0], Mapping) and "%(" not in str(msg):
            fields = {(f"field_{k}" if k in _RECORD_ATTRIBUTES else str(k)): v for k, v in args[0].items()}
            kwargs["extra"] = {**fields, **kwargs.get("extra", {})}
            args = ()
        super().log(level, msg, *args, **kwargs)

    def process(self, msg: Any, kwargs: MutableMapping[str, Any]) -> tuple[Any, MutableMapping[str, Any]]:
        """Add the gadget's name and call id to the record, beside any ``extra`` of the call."""
        kwargs["extra"] = {**(self.extra or {}), **kwargs.get("extra", {})}
        return msg, kwargs
