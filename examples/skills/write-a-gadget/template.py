"""A gadget to copy: a typed function with a docstring the model reads."""

from __future__ import annotations

from typing import Literal

from llmist import GadgetError, gadget

RATES = {("km", "mi"): 0.621371, ("mi", "km"): 1.609344}


@gadget
def convert_distance(value: float, unit_from: Literal["km", "mi"], unit_to: Literal["km", "mi"]) -> str:
    """Convert a distance between kilometres and miles; returns the value and its unit.

    Args:
        value: The distance to convert, e.g. 42.195.
        unit_from: The unit of ``value``.
        unit_to: The unit to convert to.
    """
    if value < 0:
        raise GadgetError(f"a distance cannot be negative, got {value}; give a value of 0 or more")
    if unit_from == unit_to:
        return f"{value:g} {unit_to}"
    return f"{value * RATES[(unit_from, unit_to)]:.3f} {unit_to}"
