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


def _weather_gadget() -> tuple[type[Gadget], list[int]]:
    """A new gadget class (never checked yet) whose example counts its validations in the list."""
    validations: list[int] = []

    class CountedParams(BaseModel):
        city: str

        def model_post_init(self, context: object) -> None:
            validations.append(1)

    class Weather(Gadget):
        description = "Weather"
        Params = CountedParams
        examples = (GadgetExample({"city": "Oslo"}),)

        def __init__(self, units: str = "C") -> None:
            self.units = units  # instance state the check does not read

        def execute(self, params: CountedParams) -> str:
            return f"{params.city}: 3 {self.units}"

    return Weather, validations


def test_a_class_is_checked_once_for_all_its_instances_that_set_nothing_checked() -> None:
    # An agent makes a new output viewer for every plan; checking each validated its example.
    weather, validations = _weather_gadget()
    first, second = as_gadget(weather()), as_gadget(weather("F"))
    assert len(validations) == 1
    assert (first.units, second.units) == ("C", "F")  # type: ignore[attr-defined]


def test_an_instance_that_sets_a_checked_attribute_is_checked_itself() -> None:
    weather, validations = _weather_gadget()
    as_gadget(weather())
    bad = weather()
    bad.description = "  "
    with pytest.raises(GadgetError, match="needs a description"):
        as_gadget(bad)
    wrong_example = weather()
    wrong_example.examples = (GadgetExample({"town": "Oslo"}),)
    with pytest.raises(GadgetError, match=r"example 1 does not validate against its parameters: city: Field required"):
        as_gadget(wrong_example)
    with_own_example = weather()
    with_own_example.examples = (GadgetExample({"city": "Bergen"}),)
    as_gadget(with_own_example)
    assert len(validations) == 2  # the first instance's check, then this one's own


def test_a_class_that_fails_its_check_is_refused_every_time() -> None:
    class Nameless(Gadget):
        description = ""
        Params = Params

        def execute(self, params: BaseModel) -> str:
            return ""

    for _ in range(2):
        with pytest.raises(GadgetError, match="needs a description"):
            as_gadget(Nameless())
