"""Calls written as JSON text (the ``json_call`` repair): every form is read wherever it sits in
prose, and no text makes the reading raise or invent a call."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from llmist.agent.repairs import json_calls, without_json_calls
from llmist.syntax import CallIds

PARAMETERS = {"add": {"a": True, "b": True}, "get_weather": {"city": True, "days": False}, "list_files": {}}
NAMES = list(PARAMETERS)

_values = st.one_of(st.integers(), st.text(max_size=12), st.booleans(), st.none())
_calls = st.lists(
    st.sampled_from(NAMES).flatmap(
        lambda name: st.tuples(
            st.just(name),
            st.fixed_dictionaries({}, optional={p: _values for p in PARAMETERS[name]}),
        )
    ),
    min_size=1,
    max_size=5,
)


def _keyed(calls: list[tuple[str, dict[str, object]]]) -> str:
    """An object keyed by gadget names, a name written as often as it is called."""
    return "{" + ", ".join(f"{json.dumps(name)}: {json.dumps(args)}" for name, args in calls) + "}"


@given(_calls, st.text(max_size=40).filter(lambda t: "{" not in t), st.text(max_size=40).filter(lambda t: "{" not in t))
def test_an_object_of_calls_is_read_in_order_wherever_it_sits_in_prose(
    calls: list[tuple[str, dict[str, object]]], before: str, after: str
) -> None:
    text = f"{before}\n```json\n{_keyed(calls)}\n```\n{after}"
    found = json_calls(text, NAMES, ids=CallIds(), parameters=PARAMETERS)
    assert [(c.gadget_name, c.parameters) for c in found] == calls
    assert [c.invocation_id for c in found] == [f"gadget_{i}" for i in range(1, len(calls) + 1)]
    prose, _ = without_json_calls(text, NAMES, parameters=PARAMETERS)
    assert "```json" not in prose


@given(st.text(alphabet=st.sampled_from('{}[]":, \n\\abdd1ty_'), max_size=80))
def test_no_text_makes_the_reading_raise_or_read_a_parameter_the_gadget_lacks(text: str) -> None:
    for call in json_calls(text, NAMES, parameters=PARAMETERS):
        assert call.gadget_name in PARAMETERS
        assert set(call.parameters or {}) <= set(PARAMETERS[call.gadget_name])


def test_without_the_gadgets_parameters_an_object_keyed_by_names_is_prose() -> None:
    assert json_calls('{"add": {"a": 1, "b": 2}}', NAMES) == []


def test_json_nested_deeper_than_python_reads_is_prose() -> None:
    # A model's runaway of nested objects must not end the run with a RecursionError.
    for text in ('{"add": ' * 5000 + "1" + "}" * 5000, '{"name": ' * 5000, '{"add": {"a": [' * 3000):
        assert json_calls(text, NAMES, parameters=PARAMETERS) == []
        assert without_json_calls(text, NAMES, parameters=PARAMETERS)[0] == text.strip()


@given(
    st.sampled_from(["add", "get_weather"]).flatmap(
        lambda name: st.tuples(
            st.just(name),
            st.fixed_dictionaries(
                {p: _values for p, required in PARAMETERS[name].items() if required},
                optional={p: _values for p, required in PARAMETERS[name].items() if not required},
            ),
        )
    ),
    st.text(max_size=40).filter(lambda t: "{" not in t),
)
def test_one_gadgets_arguments_alone_are_its_call(call: tuple[str, dict[str, object]], before: str) -> None:
    # Qwen2.5-Coder-0.5B answered BFCL's tasks with the arguments alone, fenced, without a name.
    name, arguments = call
    text = f"{before}\n```json\n{json.dumps(arguments, indent=2)}\n```\n"
    [found] = json_calls(text, NAMES, parameters=PARAMETERS)
    assert (found.gadget_name, found.parameters, found.repairs) == (name, arguments, ("json_call",))
    assert without_json_calls(text, NAMES, parameters=PARAMETERS)[0] == before.strip()


def test_an_object_that_is_not_one_gadgets_whole_arguments_is_prose() -> None:
    both = {**PARAMETERS, "forecast": {"city": True}}  # {"city": ...} fits two gadgets
    for text, parameters in [
        ('{"a": 1}', PARAMETERS),  # b is required
        ('{"a": 1, "b": 2, "c": 3}', PARAMETERS),  # c is no parameter
        ('{"temp": 18, "city": "Paris"}', PARAMETERS),  # a result the model reports
        ('{"a": 1, "a": 2, "b": 3}', PARAMETERS),  # a member twice
        ('{"city": "Paris"}', both),
        ("{}", PARAMETERS),
    ]:
        assert json_calls(text, NAMES, parameters=parameters) == [], text
        assert without_json_calls(text, NAMES, parameters=parameters)[0] == text


def test_with_parameter_names_alone_arguments_without_a_name_stay_prose() -> None:
    # Names without what is required (the form parameters= took before): the other forms read.
    names_only = {name: tuple(params) for name, params in PARAMETERS.items()}
    assert json_calls('{"a": 1, "b": 2}', NAMES, parameters=names_only) == []
    [call] = json_calls('{"add": {"a": 1, "b": 2}}', NAMES, parameters=names_only)
    assert (call.gadget_name, call.parameters) == ("add", {"a": 1, "b": 2})
