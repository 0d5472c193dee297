"""The records of every call's result (the result, its message, its event) as the loop builds
them (``fast_constructor``) are the records their classes build."""

from __future__ import annotations

import dataclasses
import pickle
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llmist.agent.events import GadgetResultEvent, build_result_event
from llmist.agent.messages import GadgetResultMessage, build_result_message
from llmist.execution.results import GadgetExecutionResult, build_result
from llmist.providers.base import Message

# The records every call's result makes, built as the loop builds them.
_RESULT_FIELDS = {
    "gadget_name": st.text(max_size=8),
    "invocation_id": st.text(max_size=8),
    "parameters": st.dictionaries(st.text(max_size=4), st.integers(), max_size=3),
    "result": st.none() | st.text(max_size=8),
    "error": st.none() | st.text(max_size=8),
    "execution_time_ms": st.floats(allow_nan=False),
    "cost": st.floats(allow_nan=False),
    "breaks_loop": st.booleans(),
    "status": st.sampled_from(["success", "error", "timeout", "cancelled"]),
    "human_input_question": st.none() | st.text(max_size=8),
    "model_retry": st.booleans(),
    "finished_after_cancel": st.booleans(),
}


@settings(max_examples=200, deadline=None)
@given(st.fixed_dictionaries({}, optional=_RESULT_FIELDS))
def test_a_result_built_fast_is_the_result_its_class_builds(given_fields: dict[str, Any]) -> None:
    keywords: dict[str, Any] = {"gadget_name": "G", "invocation_id": "g1", "parameters": {}, "result": None}
    keywords |= {"error": None, "execution_time_ms": 0.0} | given_fields
    built, expected = build_result(**keywords), GadgetExecutionResult(**keywords)
    assert type(built) is GadgetExecutionResult
    assert built == expected and repr(built) == repr(expected)
    assert pickle.loads(pickle.dumps(built)) == expected
    assert build_result_event(built) == GadgetResultEvent(expected)


@given(
    st.text(max_size=8),
    st.text(max_size=8),
    st.none() | st.dictionaries(st.text(max_size=4), st.integers(), max_size=3),
    st.booleans(),
    st.none() | st.text(max_size=8),
)
def test_a_message_built_fast_is_the_message_its_class_builds(
    name: str, content: str, parameters: dict[str, int] | None, is_error: bool, tool_call_id: str | None
) -> None:
    # A subclass of Message, whose tool fields are keyword-only: the builder takes them so too.
    built = build_result_message("gadget_result", content, name, "g1", parameters, is_error, tool_call_id=tool_call_id)
    expected = GadgetResultMessage(
        "gadget_result", content, name, "g1", parameters, is_error, tool_call_id=tool_call_id
    )
    assert type(built) is GadgetResultMessage and isinstance(built, Message)
    assert built == expected and repr(built) == repr(expected) and built.text == expected.text
    assert pickle.loads(pickle.dumps(built)) == expected
    assert dataclasses.replace(built, content="other") == dataclasses.replace(expected, content="other")
    with pytest.raises(dataclasses.FrozenInstanceError):
        built.content = "other"  # type: ignore[misc]


def test_a_builder_takes_the_arguments_its_class_takes_and_no_others() -> None:
    with pytest.raises(TypeError):
        build_result_message("gadget_result", "x", "G", "g1", None, False, None)  # type: ignore[arg-type, call-arg]
    with pytest.raises(TypeError):
        build_result(gadget_name="G")  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        build_result(**{"gadget_name": "G", "nonsense": 1})  # type: ignore[arg-type]
    assert build_result("G", "g1", {}, "7", None, 1.5).cost == 0.0
