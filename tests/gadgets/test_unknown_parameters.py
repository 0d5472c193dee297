"""A parameter name the gadget does not have is an error the model reads, with the closest
known name, unless the gadget opts into extra fields (``model_config = ConfigDict(extra=...)``)."""

from __future__ import annotations

import asyncio
import json

from pydantic import BaseModel, ConfigDict, Field

from llmist import Agent, ExecutionContext, Gadget, GadgetExecutor, gadget
from llmist.gadgets import validate_gadget_params
from llmist.syntax import ParsedCall
from llmist.testing import MockModel, test_gadget


@gadget
def greet(name: str = "world", greeting: str = "Hello") -> str:
    """Greet someone."""
    return f"{greeting}, {name}!"


def test_a_misspelt_optional_parameter_is_an_error_naming_the_closest_name() -> None:
    out = test_gadget(greet, {"nmae": "Ada"})
    assert out.error is not None and out.result is None
    assert "- nmae: unknown parameter; did you mean 'name'?" in out.error


def test_the_model_reads_the_error_and_its_corrected_call_runs() -> None:
    # A name shorter than 4 characters is never read as the parameter it is one slip from (the
    # agent's parameter_name repair reads "nmae"): the model gets the error.
    bad = "!!!GADGET_START:greet\n!!!ARG:nme\nAda\n!!!GADGET_END\n"
    good = "!!!GADGET_START:greet\n!!!ARG:name\nAda\n!!!GADGET_END\n"
    model = MockModel([bad, good, "done"])
    result = Agent(model=model, gadgets=[greet]).run_sync("greet Ada")
    assert [r.error is None for r in result.gadget_results] == [False, True]
    assert "unknown parameter; did you mean 'name'?" in model.requests[1].messages[-1].text
    assert result.gadget_results[1].result == "Hello, Ada!"


def test_an_unknown_name_far_from_every_parameter_lists_them() -> None:
    result = validate_gadget_params(greet, {"colour": "red"})
    assert not result.success and result.error is not None
    assert "- colour: unknown parameter" in result.error and "did you mean" not in result.error
    assert "Expected parameters:" in result.error and "name" in result.error


def test_unknown_and_invalid_parameters_are_reported_together() -> None:
    @gadget
    def add(a: int, b: int = 0) -> int:
        """Add."""
        return a + b

    result = validate_gadget_params(add, {"a": "x", "bb": 2})
    assert result.error is not None
    assert "- bb: unknown parameter; did you mean 'b'?" in result.error and "- a:" in result.error


class Loose(Gadget):
    """Takes extra fields on purpose."""

    description = "Accept anything"

    class Params(BaseModel):
        model_config = ConfigDict(extra="allow")
        name: str = "x"

    def execute(self, params: Params, ctx: ExecutionContext) -> str:
        return str(params.model_extra)


def test_a_gadget_that_opts_into_extra_fields_receives_them() -> None:
    assert test_gadget(Loose(), {"other": "y"}).result == "{'other': 'y'}"


def test_a_json_schema_gadget_follows_its_additional_properties() -> None:
    from llmist import create_gadget

    strict = create_gadget(
        name="strict",
        description="d",
        schema={"type": "object", "properties": {"q": {"type": "string"}}, "additionalProperties": False},
        execute=lambda p: "ok",
    )
    assert "unknown parameter" in str(test_gadget(strict, {"q": "a", "z": 1}).error)


def test_a_misspelt_argument_line_written_by_a_model_is_an_unknown_parameter() -> None:
    @gadget
    def note(text: str) -> str:
        """Keep a note."""
        return "kept"

    raw = "!!!GADGET_START:note\n!!!ARG:text\nUse the syntax:\n!ARG:example\nthen\n!!!GADGET_END\n"
    result = Agent(model=MockModel([raw, "done"]), gadgets=[note]).run_sync("go")
    error = result.gadget_results[0].error
    assert error is not None and "example" in error and "unknown parameter" in error


def test_a_field_is_known_by_its_alias_and_each_class_by_its_own_names() -> None:
    class Aliased(BaseModel):
        file_path: str = Field(validation_alias="path")

    class ReadIt(Gadget):
        """Read a file."""

        description = "Read a file."
        Params = Aliased

        def execute(self, params: Aliased, ctx: ExecutionContext) -> str:
            return params.file_path

    assert validate_gadget_params(ReadIt(), {"path": "a.txt"}).success
    assert "- paht: unknown parameter" in (validate_gadget_params(ReadIt(), {"paht": "x"}).error or "")

    class Another(BaseModel):  # a second class: its own names, not the first one's
        text: str

    class Echo(Gadget):
        """Echo."""

        description = "Echo."
        Params = Another

        def execute(self, params: Another, ctx: ExecutionContext) -> str:
            return params.text

    assert validate_gadget_params(Echo(), {"text": "hi"}).success
    assert not validate_gadget_params(Echo(), {"text": "hi", "path": "a.txt"}).success


def test_validated_parameters_reach_the_result_as_the_models_dump() -> None:
    class Point(BaseModel):
        x: int
        y: int = 0

    class Shape(BaseModel):
        name: str
        points: list[Point]

    class Draw(Gadget):
        """Draw a shape."""

        description = "Draw a shape."
        Params = Shape

        def execute(self, params: Shape, ctx: ExecutionContext) -> str:
            return f"{params.name}: {len(params.points)} points"

    params = {"name": "line", "points": [{"x": 1}, {"x": "2", "y": 3}]}
    call = ParsedCall("Draw", "d1", json.dumps(params), params, None, (), syntax="native")
    out = asyncio.run(GadgetExecutor([Draw()]).execute(call))
    assert out.result == "line: 2 points"
    expected = Shape(name="line", points=[Point(x=1), Point(x=2, y=3)]).model_dump()
    assert out.parameters == expected == {"name": "line", "points": [{"x": 1, "y": 0}, {"x": 2, "y": 3}]}
