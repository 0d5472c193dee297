"""Defining gadgets: classes, @gadget, create_gadget, and as_gadget normalisation."""

from __future__ import annotations

from typing import Annotated, Literal

import pytest
from pydantic import BaseModel, Field

from llmist import ExecutionContext, Gadget, GadgetError, as_gadget, create_gadget, gadget
from llmist.gadgets import render_parameters


class Echo(Gadget):
    description = "Echo the text"

    class Params(BaseModel):
        text: str

    def execute(self, params: Params, ctx: ExecutionContext) -> str:
        return params.text


def test_class_gadget_name_defaults_to_class_name() -> None:
    assert as_gadget(Echo).name == "Echo"


def test_explicit_name_wins() -> None:
    class Other(Echo):
        name = "Renamed"

    assert as_gadget(Other).name == "Renamed"


def test_as_gadget_accepts_instance_class_and_function() -> None:
    def shout(text: str) -> str:
        """Shout the text."""
        return text.upper()

    instance = Echo()
    assert as_gadget(instance) is instance
    assert isinstance(as_gadget(Echo), Echo)
    assert as_gadget(shout).name == "shout"
    assert as_gadget(gadget(shout)).description == "Shout the text."


def test_missing_description_is_a_gadget_error() -> None:
    class Bare(Gadget):
        pass

    with pytest.raises(GadgetError, match="needs a description"):
        as_gadget(Bare)


def test_non_gadget_object_is_rejected() -> None:
    with pytest.raises(GadgetError, match="Expected a Gadget"):
        as_gadget(42)


class Address(BaseModel):
    city: str


def test_decorator_builds_schema_from_signature() -> None:
    @gadget(description="Find places")
    def find(
        query: Annotated[str, Field(description="What to look for")],
        kind: Literal["shop", "park"] = "shop",
        tags: list[str] | None = None,
        near: Address | None = None,
    ) -> str:
        return query

    schema = find.Params.model_json_schema()
    assert schema["required"] == ["query"]
    assert schema["properties"]["query"]["description"] == "What to look for"
    assert schema["properties"]["kind"]["enum"] == ["shop", "park"]
    assert schema["properties"]["kind"]["default"] == "shop"


def test_docstring_is_description_when_none_given() -> None:
    @gadget
    def greet(name: str) -> str:
        """Greet someone by name."""
        return f"hi {name}"

    assert greet.description == "Greet someone by name."


@pytest.mark.parametrize(
    "doc",
    [
        "Search.\n\nArgs:\n    query: The search words.\n",
        "Search.\n\nParameters\n----------\nquery : str\n    The search words.\n",
        "Search.\n\n:param query: The search words.\n",
    ],
    ids=["google", "numpy", "sphinx"],
)
def test_parameter_descriptions_come_from_docstring(doc: str) -> None:
    def search(query: str) -> str:
        return query

    search.__doc__ = doc
    g = gadget(search)
    assert g.description == "Search."
    assert g.Params.model_json_schema()["properties"]["query"]["description"] == "The search words."


def test_field_description_beats_docstring() -> None:
    @gadget
    def search(query: Annotated[str, Field(description="From Field")]) -> str:
        """Search.

        Args:
            query: From docstring.
        """
        return query

    assert "From Field" in render_parameters(search)


def test_context_parameter_is_injected_not_in_schema() -> None:
    @gadget(description="Uses ctx")
    def uses(x: int, ctx: ExecutionContext) -> str:
        return f"{x} {ctx.gadget_name}"

    assert list(uses.Params.model_fields) == ["x"]


def test_decorated_function_is_still_callable() -> None:
    @gadget
    def double(x: int) -> int:
        """Double it."""
        return x * 2

    assert double(4) == 8


def test_create_gadget_takes_schema_and_callable() -> None:
    class P(BaseModel):
        a: int

    g = create_gadget(name="Add1", description="Add one", schema=P, execute=lambda p: str(p.a + 1))
    assert g.name == "Add1"
    assert g.Params is P


def test_create_gadget_lambda_needs_a_name() -> None:
    class P(BaseModel):
        a: int

    with pytest.raises(GadgetError, match="name"):
        create_gadget(description="x", schema=P, execute=lambda p: "")


def test_star_args_are_rejected() -> None:
    def bad(*items: str) -> str:
        """Bad."""
        return ""

    with pytest.raises(GadgetError, match=r"\*args"):
        gadget(bad)
