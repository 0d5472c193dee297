"""From a parsed call to validated parameters, with errors a model can act on.

The work is in :mod:`llmist.gadgets.binding` (compiled in the regular wheel); this module
is its public face, with :func:`validate_gadget_params` for checking parameters by hand.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from llmist.gadgets.binding import bind_call, format_validation_error, prepare_params, validate_params
from llmist.gadgets.errors import InvalidParametersError
from llmist.gadgets.function import as_gadget

__all__ = [
    "InvalidParametersError",
    "ValidationResult",
    "bind_call",
    "format_validation_error",
    "validate_gadget_params",
    "validate_params",
]


@dataclass(frozen=True, slots=True)
class ValidationResult:
    """Outcome of :func:`validate_gadget_params`."""

    success: bool
    data: dict[str, Any] | None = None
    """The validated parameters with defaults applied (JSON-compatible dict) when ``success``."""
    error: str | None = None
    """Why validation failed, as the model would read it."""


def validate_gadget_params(gadget: Any, params: Mapping[str, Any]) -> ValidationResult:
    """Validate ``params`` for a gadget (instance, class or decorated function) without running it."""
    g = as_gadget(gadget)
    try:
        model = validate_params(g, prepare_params(g, params))
    except InvalidParametersError as exc:
        return ValidationResult(success=False, error=str(exc))
    return ValidationResult(success=True, data=model.model_dump())
