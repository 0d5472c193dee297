"""A gadget is checked when it is defined: examples that would teach the model a wrong call, and a
``create_gadget`` that cannot be named."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from llmist import Gadget, GadgetExample, create_gadget, gadget
from llmist.gadgets import GadgetError, as_gadget


class Params(BaseModel):
    city: str
    days: int


def test_a_function_gadget_with_a_bad_example_is_refused_naming_the_example_and_field() -> None:
    with pytest.raises(GadgetError, match=r"example 2 does not validate against its parameters: days: "):

        @gadget(
            description="Forecast",
            examples=[GadgetExample({"city": "Oslo", "days": 3}), GadgetExample({"city": "Oslo", "days": "soon"})],
        )
        def forecast(city: str, days: int) -> str:
            return city * days


def test_a_class_gadget_with_a_missing_field_in_an_example_is_refused() -> None:
    class Forecast(Gadget):
        description = "Forecast"
        Params = Params
        examples = (GadgetExample({"city": "Oslo"}),)

        def execute(self, params: BaseModel) -> str:
            return ""

    with pytest.raises(GadgetError, match=r"'Forecast': example 1 .*days: Field required"):
        as_gadget(Forecast)


def test_create_gadget_checks_its_examples_too() -> None:
    with pytest.raises(GadgetError, match="example 1 does not validate"):
        create_gadget(
            name="forecast",
            description="Forecast",
            schema=Params,
            execute=lambda p: "",
            examples=[GadgetExample({"city": 1, "days": 2})],
        )


def test_create_gadget_with_a_lambda_needs_a_name() -> None:
    # A lambda has no name to show the model, and one guessed from the description would change
    # whenever the description is edited: the name is asked for.
    with pytest.raises(GadgetError, match=r"pass name=\.\.\. when execute is a lambda"):
        create_gadget(description="Forecast", schema=Params, execute=lambda p: "")
