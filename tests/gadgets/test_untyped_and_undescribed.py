"""A ``@gadget`` function a model cannot use well is said so where it is written: parameters
without type hints are a warning naming the function, its file and line; a missing description
is an error naming the same and the decorator's own argument."""

from __future__ import annotations

import sys
import warnings

import pytest

from llmist import gadget
from llmist.gadgets import GadgetError, UntypedParameterWarning


def test_parameters_without_type_hints_warn_naming_the_function_its_file_and_line() -> None:
    with pytest.warns(UntypedParameterWarning) as caught:

        @gadget(description="Add two numbers")
        def add(a, b):  # type: ignore[no-untyped-def]
            return str(a + b)

    (record,) = caught.list
    line = add.__wrapped__.__code__.co_firstlineno
    assert (record.filename, record.lineno) == (__file__, line)  # points at the user's code
    message = str(record.message)
    assert "'add'" in message and f"{__file__}, line {line}" in message
    assert "parameters a and b have no type hints" in message
    assert issubclass(UntypedParameterWarning, UserWarning)
    assert isinstance(record.message, UntypedParameterWarning)
    assert (record.message.gadget_name, record.message.parameters) == ("add", ("a", "b"))


def test_one_untyped_parameter_among_typed_ones_is_named_alone() -> None:
    with pytest.warns(
        UntypedParameterWarning, match=r"parameter unit has no type hint, so a model is told it takes any value"
    ):

        @gadget
        def convert(value: float, unit) -> str:  # type: ignore[no-untyped-def]
            """Convert a value."""
            return f"{value} {unit}"


def test_a_fully_typed_function_and_its_context_parameter_do_not_warn() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")

        @gadget
        def greet(name: str, times: int = 1) -> str:
            """Greet someone."""
            return " ".join([f"hi {name}"] * times)

    assert greet.name == "greet"


def test_a_missing_description_names_the_function_its_file_line_and_the_decorator_argument() -> None:
    decorator_line = sys._getframe().f_lineno + 3
    with pytest.raises(GadgetError) as caught:

        @gadget
        def nameless(x: int) -> str:
            return str(x)

    message = str(caught.value)
    assert f"<locals>.nameless ({__file__}, line {decorator_line})" in message
    assert '@gadget(description="...")' in message and "docstring" in message
    assert "description = '" not in message  # not the class form
    assert "base.py" not in message and "function.py" not in message
