"""A call's parameters have a size limit and a depth limit, met with an error that names the
limit, the same in both syntaxes (never a RecursionError from deep in the binding)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from llmist import Agent, ExecutionContext, Gadget
from llmist.gadgets import DEFAULT_MAX_PARAMETER_CHARS, validate_gadget_params
from llmist.syntax import MAX_PARAMETER_DEPTH
from llmist.testing import MockModel, block_call


class TreeParams(BaseModel):
    data: dict[str, Any] = {}
    text: str = ""


class Tree(Gadget):
    description = "Take a tree"
    Params = TreeParams

    def execute(self, params: TreeParams, ctx: ExecutionContext) -> str:
        return "ok"


def nested_json(levels: int) -> str:
    return '{"a": ' * levels + "1" + "}" * levels


async def error_of(answer: str, syntax: str = "block", gadget: Gadget | None = None) -> str:
    model = MockModel([answer, "done"])
    result = await Agent(model=model, gadgets=[gadget or Tree()], syntax=syntax).run("go")  # type: ignore[arg-type]
    (call,) = result.gadget_results
    assert call.error is not None and call.result is None
    return call.error


DEPTH_ERROR = f"the limit is {MAX_PARAMETER_DEPTH} levels"


async def test_a_3000_segment_pointer_is_a_depth_error_not_an_internal_error() -> None:
    pointer = "/".join(["data"] + ["a"] * 3000)
    error = await error_of(f"!!!GADGET_START:Tree\n!!!ARG:{pointer}\n1\n!!!GADGET_END\n")
    assert "Parameters nested too deep: data/a/a/a/... reaches level 3001" in error
    assert DEPTH_ERROR in error and "RecursionError" not in error


@pytest.mark.parametrize("levels", [MAX_PARAMETER_DEPTH, 3000])
async def test_json_nested_past_the_limit_in_a_block_value_is_a_depth_error(levels: int) -> None:
    error = await error_of(block_call("Tree", data=nested_json(levels)))
    assert "Parameters nested too deep: data/" in error and DEPTH_ERROR in error


@pytest.mark.parametrize("levels", [MAX_PARAMETER_DEPTH, 3000])
async def test_json_nested_past_the_limit_in_an_emoji_argument_is_the_same_error(levels: int) -> None:
    answer = f"🛠️[Tree '{nested_json(levels)}']\n🛠️[/end]\n"
    error = await error_of(answer, "emoji")
    assert "Parameters nested too deep: data/" in error and DEPTH_ERROR in error


async def test_json_nested_up_to_the_limit_is_accepted() -> None:
    model = MockModel([block_call("Tree", data=nested_json(MAX_PARAMETER_DEPTH - 1)), "done"])
    result = await Agent(model=model, gadgets=[Tree()]).run("go")
    assert [r.result for r in result.gadget_results] == ["ok"]


def test_parameters_given_as_a_dict_are_held_to_the_depth_limit() -> None:
    data: dict[str, Any] = {}
    for _ in range(3000):
        data = {"a": data}
    outcome = validate_gadget_params(Tree(), {"data": data})
    assert not outcome.success and outcome.error is not None and DEPTH_ERROR in outcome.error


SIZE_ERROR = f"the limit is {DEFAULT_MAX_PARAMETER_CHARS:,} characters (max_parameter_chars of Tree)"


async def test_a_block_call_longer_than_the_limit_names_the_limit() -> None:
    error = await error_of(block_call("Tree", text="x" * DEFAULT_MAX_PARAMETER_CHARS))
    assert error.startswith("The parameters of Tree are 1,048,5") and SIZE_ERROR in error


async def test_an_emoji_call_longer_than_the_limit_names_the_same_limit() -> None:
    answer = "🛠️[Tree]\n" + "x" * DEFAULT_MAX_PARAMETER_CHARS + "\n🛠️[/end]\n"
    error = await error_of(answer, "emoji")
    assert error.startswith("The parameters of Tree are 1,048,577 characters long") and SIZE_ERROR in error


async def test_a_gadget_can_raise_its_size_limit() -> None:
    class BigTree(Tree):
        name = "Tree"
        max_parameter_chars = 4 * DEFAULT_MAX_PARAMETER_CHARS

    model = MockModel([block_call("Tree", text="x" * (2 * DEFAULT_MAX_PARAMETER_CHARS)), "done"])
    result = await Agent(model=model, gadgets=[BigTree()]).run("go")
    assert [r.result for r in result.gadget_results] == ["ok"]
