"""The loop's repairs of what models really write: each visible as a hook event and a counter,
and each an error in strict mode."""

from __future__ import annotations

import pytest

from llmist import Agent, gadget
from llmist.agent import Hooks, Observers
from llmist.agent.events import GadgetResultEvent
from llmist.agent.repairs import (
    INVENTED_RESULT_NOTE,
    NEXT_STEP_NOTE,
    NEXT_STEPS_NOTE,
    RepairEvent,
    RepairRefused,
    drop_invented_results,
)
from llmist.syntax import ArgsPartialEvent, GadgetCallEvent, ParsedCall
from llmist.testing import MockModel, MockReply, block_call, emoji_call, tool_call

RUNS: list[int] = []


@gadget(description="Add two integers.")
def add(a: int, b: int) -> str:
    RUNS.append(a + b)
    return str(a + b)


@gadget(description="Write a file.")
def write_file(path: str, text: str) -> str:
    return f"wrote {len(text)} characters to {path}"


@gadget(description="Current weather of a city.")
def get_weather(city: str) -> str:
    return f"{city}: sunny"


async def _run(*responses: str, strict: bool = False, syntax: str = "block") -> tuple[object, list[RepairEvent]]:
    events: list[RepairEvent] = []
    agent = Agent(
        model=MockModel(list(responses)),
        gadgets=[add, get_weather, write_file],
        hooks=Hooks(observers=Observers(on_repair=events.append)),
        strict=strict,
        syntax=syntax,  # type: ignore[arg-type]
    )
    return await agent.run("task"), events


async def test_an_unknown_gadget_is_answered_with_the_closest_names() -> None:
    result, events = await _run(block_call("get_wether", city="Oslo"), "done")
    [r] = result.gadget_results  # type: ignore[attr-defined]
    assert r.error.startswith("Unknown gadget 'get_wether'. The closest: get_weather.")
    assert result.repairs == {"unknown_gadget": 1}  # type: ignore[attr-defined]
    assert [(e.kind, e.iteration) for e in events] == [("unknown_gadget", 1)]


async def test_a_call_repeated_after_another_call_succeeded_runs_again() -> None:
    # The other call may have changed what the first returns (a file written between two runs of
    # one command): the repeat is not answered from the earlier result.
    RUNS.clear()
    call = block_call("add", a=1, b=2)
    result, _ = await _run(call, block_call("write_file", path="x", text="y"), call, "done")
    assert RUNS == [3, 3]
    assert result.repairs == {}  # type: ignore[attr-defined]


async def test_a_gadget_name_in_another_spelling_runs_that_gadget() -> None:
    result, events = await _run(block_call("Get-Weather", city="Oslo"), "done")
    [r] = result.gadget_results  # type: ignore[attr-defined]
    assert (r.gadget_name, r.result) == ("get_weather", "Oslo: sunny")
    assert result.repairs == {"gadget_name": 1}  # type: ignore[attr-defined]
    assert events[0].detail == "gadget 'Get-Weather' read as 'get_weather'"


async def test_a_repeated_call_gets_the_earlier_result_and_a_note_without_running_again() -> None:
    RUNS.clear()
    call = block_call("add", a=1, b=2)
    result, events = await _run(call, call, "done")
    first, second = result.gadget_results  # type: ignore[attr-defined]
    assert RUNS == [3]
    assert second.result.startswith(f"3\n(You already made this exact call ({first.invocation_id})")
    assert "answer in plain text now" in second.result
    assert result.repairs == {"repeated_call": 1}  # type: ignore[attr-defined]
    assert events[0].invocation_id == second.invocation_id


async def test_a_call_repeated_after_it_failed_runs_again() -> None:
    call = block_call("add", a=1, b="x")
    result, _ = await _run(call, call, "done")
    assert [r.ok for r in result.gadget_results] == [False, False]  # type: ignore[attr-defined]
    assert result.repairs == {}  # type: ignore[attr-defined]


async def test_a_repeated_emoji_call_is_recognised_too() -> None:
    call = emoji_call("add", 1, 2)
    result, _ = await _run(call, call, "done", syntax="emoji")
    assert result.repairs == {"repeated_call": 1}  # type: ignore[attr-defined]


async def test_an_invented_result_is_dropped_and_the_result_after_it_says_results_come_from_the_system() -> None:
    result, events = await _run(block_call("add", a=1, b=2) + "Result: 4\nSo the answer is 4.", "It is 3.")
    messages = result.messages  # type: ignore[attr-defined]
    assistant = next(m.text for m in messages if m.role == "assistant")
    assert "Result: 4" not in assistant and assistant.rstrip().endswith("!!!GADGET_END")
    assert messages[-2].role == "gadget_result"
    assert messages[-2].text.endswith(f"{INVENTED_RESULT_NOTE}\n{NEXT_STEP_NOTE}")
    assert result.repairs == {"invented_result": 1}  # type: ignore[attr-defined]
    assert events[0].kind == "invented_result" and "Result: 4" in events[0].detail


async def test_prose_after_a_call_that_is_not_a_result_stays() -> None:
    result, _ = await _run(block_call("add", a=1, b=2) + "I will wait for the sum.", "It is 3.")
    assistant = next(m.text for m in result.messages if m.role == "assistant")  # type: ignore[attr-defined]
    assert "I will wait for the sum." in assistant
    assert result.repairs == {}  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "responses",
    [
        (block_call("get_wether", city="Oslo"), "done"),
        (block_call("Get-Weather", city="Oslo"), "done"),
        (block_call("add", a=1, b=2), block_call("add", a=1, b=2), "done"),
        (block_call("add", a=1, b=2) + "Result: 3", "done"),
        ('{"name": "add", "arguments": {"a": 1, "b": 2}}', "done"),
        ("!!GADGET_START:add\n!!!ARG:a\n1\n!!!ARG:b\n2\n!!!GADGET_END", "done"),
        ("!!!GADGET_START:add\n!!!ARG:a 1\n!!!ARG:b\n2\n!!!GADGET_END", "done"),
        ("!!!GADGET_START:add\n```\n!!!ARG:a\n1\n!!!ARG:b\n2\n```\n!!!GADGET_END", "done"),
        ("!!!GADGET_START:add\n!!!ARG:a\n1\n!!!ARG:b\n2\n", "done"),
    ],
    ids=[
        "unknown_gadget",
        "gadget_name",
        "repeated_call",
        "invented_result",
        "json_call",
        "marker_spelling",
        "fused_argument",
        "code_fence",
        "missing_end",
    ],
)
async def test_strict_mode_turns_each_repair_into_an_error(
    responses: tuple[str, ...], request: pytest.FixtureRequest
) -> None:
    with pytest.raises(RepairRefused, match=r"strict mode: response \d needed a repair") as caught:
        await _run(*responses, strict=True)
    assert caught.value.event.kind == request.node.callspec.id


@pytest.mark.parametrize(
    ("response", "kind", "count"),
    [
        ("!!!GADGET_START:add\n!!ARG:a\n1\n!!!!ARG:b\n2\n!!GADGET_END", "marker_spelling", 3),
        ("!GADGET_START:add\n!!!ARG:a\n1\n!!!ARG:b\n2\n!!!GADGET_END", "marker_spelling", 1),
        ("!!!GADGET_START:add\n!!!ARG:a=1\n!!!ARG:b: 2\n!!!GADGET_END", "fused_argument", 1),
        ("!!!GADGET_START:add\n```json\n!!!ARG:a\n1\n!!!ARG:b\n2\n```\n!!!GADGET_END", "code_fence", 1),
        ("!!!GADGET_START:add\n!!!ARG:a\n1\n!!!ARG:b\n2", "missing_end", 1),
    ],
    ids=["marker_spelling", "start_marker_spelling", "fused_argument", "code_fence", "missing_end"],
)
async def test_what_the_parser_tolerated_runs_the_call_and_counts_as_repairs(
    response: str, kind: str, count: int
) -> None:
    result, events = await _run(response, "done")
    [r] = result.gadget_results  # type: ignore[attr-defined]
    assert (r.gadget_name, r.result) == ("add", "3")
    assert result.repairs == {kind: count}  # type: ignore[attr-defined]
    assert {(e.kind, e.invocation_id) for e in events} == {(kind, r.invocation_id)}


@pytest.mark.parametrize(
    "response",
    [
        '{"name": "add", "arguments": {"a": 1, "b": 2}}',
        'I will add them.\n```json\n{"name": "add", "parameters": {"a": 1, "b": 2}}\n```',
        '<tool_call>\n{"name": "add", "arguments": {"a": 1, "b": 2}}\n</tool_call>',
        '{"type": "function", "function": {"name": "add", "arguments": "{\\"a\\": 1, \\"b\\": 2}"}}',
    ],
    ids=["bare", "fenced", "tool_call_tags", "openai_function"],
)
async def test_a_native_tool_call_written_as_json_text_runs_when_it_names_a_gadget(response: str) -> None:
    result, events = await _run(response, "It is 3.")
    [r] = result.gadget_results  # type: ignore[attr-defined]
    assert (r.gadget_name, r.parameters, r.result) == ("add", {"a": 1, "b": 2}, "3")
    assert result.repairs == {"json_call": 1}  # type: ignore[attr-defined]
    assert events[0].detail == "add: a native tool call written as JSON text run as a call"


async def test_json_text_that_names_no_gadget_stays_prose() -> None:
    answer = 'The config is {"name": "server", "arguments": {"port": 80}}.'
    result, _ = await _run(answer)
    assert result.gadget_results == [] and result.repairs == {}  # type: ignore[attr-defined]
    assert result.output == answer  # type: ignore[attr-defined]


async def test_an_object_of_calls_keyed_by_gadget_names_runs_each_in_order() -> None:
    # Qwen2.5-Coder-0.5B wrote BFCL's parallel calls so, a name twice and ids copied from the
    # prompt's dependency rule after the names.
    written = (
        "```json\n{\n"
        '  "add": {"a": 1, "b": 2},\n'
        '  "add:second:first": {"a": 3, "b": 4},\n'
        '  "Get-Weather": {"city": "Oslo"}\n'
        "}\n```"
    )
    result, events = await _run(written, "done")
    assert {e.kind for e in events} == {"json_call", "gadget_name"}
    # In the order read (their ids): results come in the order the calls finish.
    ordered = sorted(result.gadget_results, key=lambda r: r.invocation_id)  # type: ignore[attr-defined]
    done = [(r.gadget_name, r.parameters, r.result) for r in ordered]
    assert done == [
        ("add", {"a": 1, "b": 2}, "3"),
        ("add", {"a": 3, "b": 4}, "7"),
        ("get_weather", {"city": "Oslo"}, "Oslo: sunny"),
    ]
    assert result.repairs == {"json_call": 3, "gadget_name": 1}  # type: ignore[attr-defined]


async def test_one_gadgets_arguments_written_alone_as_json_run_as_its_call() -> None:
    # Qwen2.5-Coder-0.5B answered so on BFCL: the arguments in a fence, without the gadget's name.
    result, events = await _run('```json\n{\n  "path": "a.txt",\n  "text": "hi"\n}\n```', "done")
    [r] = result.gadget_results  # type: ignore[attr-defined]
    assert (r.gadget_name, r.result) == ("write_file", "wrote 2 characters to a.txt")
    assert result.repairs == {"json_call": 1}  # type: ignore[attr-defined]
    assert [e.detail for e in events] == ["write_file: a native tool call written as JSON text run as a call"]


@pytest.mark.parametrize(
    "answer",
    [
        '{"a": 1}',  # add's arguments, but b is missing
        '{"city": "Oslo", "temperature": 18}',  # a result: temperature is no parameter
        '{"path": "a.txt", "text": "hi", "mode": "w"}',
    ],
    ids=["required_missing", "result", "extra_member"],
)
async def test_an_object_that_is_not_one_gadgets_whole_arguments_stays_prose(answer: str) -> None:
    result, _ = await _run(answer)
    assert result.gadget_results == [] and result.repairs == {}  # type: ignore[attr-defined]
    assert result.output == answer  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "answer",
    [
        'The weather: {"get_weather": {"temperature": 18}}',  # a result reported under the gadget's name
        '{"add": {"a": 1, "b": 2}, "note": {"a": 1}}',  # a member that names no gadget
        '{"add": {"a": 1, "b": 2}, "get_weather": "Oslo"}',  # a member whose value is no object
        '{"add": [1, 2]}',
    ],
    ids=["result", "other_member", "no_object", "list"],
)
async def test_an_object_that_is_not_all_calls_stays_prose(answer: str) -> None:
    result, _ = await _run(answer)
    assert result.gadget_results == [] and result.repairs == {}  # type: ignore[attr-defined]
    assert result.output == answer  # type: ignore[attr-defined]


async def test_json_nested_deeper_than_python_reads_ends_as_an_answer_not_an_error() -> None:
    answer = '{"name": ' * 5000 + "1"
    result, _ = await _run(answer)
    assert result.gadget_results == [] and result.output == answer  # type: ignore[attr-defined]


async def test_json_calls_run_in_the_emoji_syntax_too() -> None:
    result, _ = await _run('{"name": "get_weather", "arguments": {"city": "Oslo"}}', "done", syntax="emoji")
    assert [r.result for r in result.gadget_results] == ["Oslo: sunny"]  # type: ignore[attr-defined]


async def test_a_number_in_place_of_the_gadget_name_is_answered_with_the_gadget_list() -> None:
    result, _ = await _run("!!!GADGET_START:1234\n!!!ARG:a\n1\n!!!GADGET_END", "done")
    [r] = result.gadget_results  # type: ignore[attr-defined]
    assert r.error.startswith("Unknown gadget '1234': that is not a gadget name. A call starts with the name")
    # The output viewer is not listed: nothing is stored for it to read yet.
    assert r.error.endswith("The gadgets you can call: add, get_weather, write_file.")


async def test_prose_after_an_unclosed_emoji_call_whose_gadget_takes_no_body_is_not_its_body() -> None:
    result, events = await _run("🛠️[add 1 2]\nThe result is: 4", "It is 3.", syntax="emoji")
    [r] = result.gadget_results  # type: ignore[attr-defined]
    assert (r.result, r.error) == ("3", None)
    assert result.repairs == {"missing_end": 1, "body_as_prose": 1}  # type: ignore[attr-defined]
    assert events[1].detail == "add takes no body: the text after the unclosed call read as prose"


async def test_an_unclosed_emoji_call_keeps_a_body_its_gadget_takes() -> None:
    result, _ = await _run("🛠️[write_file a.txt]\nhello", "done", syntax="emoji")
    [r] = result.gadget_results  # type: ignore[attr-defined]
    assert r.result == "wrote 5 characters to a.txt"
    assert result.repairs == {"missing_end": 1}  # type: ignore[attr-defined]


async def test_an_unclosed_emoji_call_is_refused_in_strict_mode_before_its_body_is_dropped() -> None:
    with pytest.raises(RepairRefused) as caught:
        await _run("🛠️[add 1 2]\nThe result is: 4", "done", syntax="emoji", strict=True)
    assert caught.value.event.kind == "missing_end"


def test_invented_results_between_calls_are_dropped_and_the_calls_kept() -> None:
    text = "A\n!!!GADGET_START:x\n!!!GADGET_END\nOutput: 1\n!!!GADGET_START:y\n!!!GADGET_END\nThe result is 2"
    kept, dropped = drop_invented_results(text, "!!!GADGET_START:", "!!!GADGET_END")
    assert kept == "A\n!!!GADGET_START:x\n!!!GADGET_END\n!!!GADGET_START:y\n!!!GADGET_END"
    assert dropped == ["Output: 1", "The result is 2"]


async def test_a_call_failing_twice_with_the_same_error_gets_a_different_answer_showing_how_it_was_read() -> None:
    wrong = "!!!GADGET_START:add\n!!!ARG:a\n1\n!!!ARG:b\n750\nvalue\n!!!GADGET_END"
    result, _ = await _run(wrong, wrong, "done")
    first, second = (m.text for m in result.messages if m.role == "gadget_result")  # type: ignore[attr-defined]
    assert "already failed" not in first
    assert second.split("\n", 1)[1].startswith(first.split("\n", 1)[1])  # the same error, then more
    assert "This call already failed with this same error. Sent again unchanged, it fails again" in second
    assert (
        "llmist read your call as:\n!!!GADGET_START:add\n!!!ARG:a\n1\n!!!ARG:b\n750\nvalue\n!!!GADGET_END\n" in second
    )


async def test_a_repeated_failure_note_comes_before_the_loops_note_after_the_last_result() -> None:
    wrong = "!!!GADGET_START:add\n!!!ARG:a\n1\n!!!ARG:b\n750\nvalue\n!!!GADGET_END"
    result, _ = await _run(wrong, wrong + "\nResult: 751", "done")
    second = [m.text for m in result.messages if m.role == "gadget_result"][-1]  # type: ignore[attr-defined]
    failed = second.index("This call already failed with this same error.")
    assert second.endswith(f"\n\n{INVENTED_RESULT_NOTE}") and failed < second.index(INVENTED_RESULT_NOTE)
    assert second.count(INVENTED_RESULT_NOTE) == 1


async def test_the_last_result_of_a_response_whose_calls_succeeded_says_what_to_do_next() -> None:
    result, _ = await _run(block_call("add", a=1, b=2) + block_call("get_weather", city="Oslo"), "It is 3.")
    first, last = (m.text for m in result.messages if m.role == "gadget_result")  # type: ignore[attr-defined]
    # Several calls: not "word for word" (told so, Qwen2.5-Coder answered with one of the results).
    assert NEXT_STEPS_NOTE not in first and last.endswith(f"Oslo: sunny\n\n{NEXT_STEPS_NOTE}")


async def test_a_response_with_a_failed_call_gets_no_next_step_note() -> None:
    # Told to say what the results show, Qwen2.5-Coder answered with the error text itself.
    result, _ = await _run(block_call("add", a=1, b=2) + block_call("add", a="x", b=2), "done")
    texts = [m.text for m in result.messages if m.role == "gadget_result"]  # type: ignore[attr-defined]
    assert len(texts) == 2 and not any(NEXT_STEP_NOTE in t for t in texts)


async def test_an_unknown_gadget_is_answered_without_asking_for_the_call_again() -> None:
    result, _ = await _run(block_call("confirm", flag="dark_mode"), "done")
    text = next(m.text for m in result.messages if m.role == "gadget_result")  # type: ignore[attr-defined]
    assert "no gadget has this name, so the call did not run: do not call confirm again" in text.lower()
    assert "Send the call again" not in text
    assert text.endswith("The gadgets you can call: add, get_weather, write_file.")


async def test_the_output_viewer_is_listed_for_an_unknown_gadget_once_an_output_is_stored() -> None:
    @gadget(description="Read the log.")
    def read_log() -> str:
        return "\n".join(f"line {i}" for i in range(300))

    agent = Agent(
        model=MockModel([block_call("confirm"), block_call("read_log"), block_call("confirm"), "done"]),
        gadgets=[read_log],
        context_window=1000,
        gadget_output_limit_percent=10,
    )
    result = await agent.run("read it")
    before, stored, after = (r.error or r.result or "" for r in result.gadget_results)
    assert before.endswith("The gadgets you can call: read_log.")
    assert "GadgetOutputViewer" in stored
    assert after.endswith("The gadgets you can call: GadgetOutputViewer, read_log.")


async def test_a_call_failing_twice_is_shown_corrected_from_what_could_be_read() -> None:
    # The placeholder line under a value (Qwen2.5-Coder's `750` then `value`) and a parameter
    # the gadget does not have: the corrected block keeps the first line and leaves the name out.
    wrong = "!!!GADGET_START:add\n!!!ARG:a\n1\n!!!ARG:b\n750\nvalue\n!!!ARG:c\n3\n!!!GADGET_END"
    result, _ = await _run(wrong, wrong, "done")
    first, second = (m.text for m in result.messages if m.role == "gadget_result")  # type: ignore[attr-defined]
    assert "this call runs" not in first
    assert second.endswith(
        "With what it could not read left out, this call runs:\n"
        "!!!GADGET_START:add\n!!!ARG:a\n1\n!!!ARG:b\n750\n!!!GADGET_END"
    )


async def test_no_corrected_call_is_made_up_when_a_required_value_is_missing() -> None:
    wrong = "!!!GADGET_START:add\n!!!ARG:a\n1\n!!!GADGET_END"
    result, _ = await _run(wrong, wrong, "done")
    second = [m.text for m in result.messages if m.role == "gadget_result"][1]  # type: ignore[attr-defined]
    assert "already failed" in second and "this call runs" not in second


@gadget(description="Read the log.")
def read_log() -> str:
    return "disk full"


async def test_a_gadget_that_takes_no_parameters_runs_without_those_written() -> None:
    events: list[RepairEvent] = []
    agent = Agent(
        model=MockModel(["!!!GADGET_START:read_log\n!!!ARG:file/path/to/log.txt\n!!!GADGET_END", "done"]),
        gadgets=[read_log],
        hooks=Hooks(observers=Observers(on_repair=events.append)),
    )
    result = await agent.run("read the log")
    [r] = result.gadget_results
    assert (r.result, r.error) == ("disk full", None)
    assert result.repairs == {"ignored_parameters": 1}
    assert events[0].detail == "read_log takes no parameters: run without those written"


async def test_parameters_of_a_gadget_that_takes_none_are_refused_in_strict_mode() -> None:
    agent = Agent(model=MockModel([block_call("read_log", file="x"), "done"]), gadgets=[read_log], strict=True)
    with pytest.raises(RepairRefused) as caught:
        await agent.run("read the log")
    assert caught.value.event.kind == "ignored_parameters"


@gadget(description="Translate a word to French.")
def translate(key: str) -> str:
    return {"hello": "bonjour"}.get(key, "?")


async def _emoji_run(*responses: str) -> tuple[object, list[RepairEvent]]:
    events: list[RepairEvent] = []
    agent = Agent(
        model=MockModel(list(responses)),
        gadgets=[translate, get_weather],
        hooks=Hooks(observers=Observers(on_repair=events.append)),
        syntax="emoji",
    )
    return await agent.run("task"), events


async def test_an_emoji_header_naming_the_parameter_takes_its_value_from_the_body() -> None:
    for written in ("🛠️[translate key]\nhello\n🛠️[/end]", "🛠️[translate key]\nhello"):
        result, events = await _emoji_run(written, "done")
        [r] = result.gadget_results  # type: ignore[attr-defined]
        assert (r.parameters, r.result) == ({"key": "hello"}, "bonjour")
        assert "name_as_argument" in result.repairs  # type: ignore[attr-defined]
        assert any(e.detail == "translate: a parameter's name in the header, its value in the body" for e in events)


async def test_an_emoji_body_with_no_parameter_left_for_it_is_dropped() -> None:
    # The value again, or the result the model expects: either way nothing it could fill.
    for body in ("Tokyo", "Tokyo: 24°C"):
        result, _ = await _emoji_run(f'🛠️[get_weather city="Tokyo"]\n{body}\n🛠️[/end]', "done")
        [r] = result.gadget_results  # type: ignore[attr-defined]
        assert (r.parameters, r.result) == ({"city": "Tokyo"}, "Tokyo: sunny")
        assert result.repairs == {"extra_body": 1}  # type: ignore[attr-defined]


async def test_an_emoji_call_that_binds_as_written_is_left_alone() -> None:
    result, _ = await _emoji_run("🛠️[translate]\nkey\n🛠️[/end]", "done")
    [r] = result.gadget_results  # type: ignore[attr-defined]
    assert r.parameters == {"key": "key"} and result.repairs == {}  # type: ignore[attr-defined]


# --- ids and dependencies as Qwen2.5-Coder wrote them (issue 23) ----------------------------

NOTES: dict[str, str] = {}
ORDER: list[str] = []


@gadget(description="Save a note under a key.")
async def save_note(key: str, text: str) -> str:
    ORDER.append(f"save {key}")
    NOTES[key] = text
    return f"saved {key}"


@gadget(description="Read the note saved under a key.")
def read_note(key: str) -> str:
    ORDER.append(f"read {key}")
    return NOTES[key]


async def _notes_run(*responses: str, strict: bool = False) -> tuple[object, list[RepairEvent]]:
    NOTES.clear()
    ORDER.clear()
    events: list[RepairEvent] = []
    agent = Agent(
        model=MockModel(list(responses)),
        gadgets=[save_note, read_note, add],
        hooks=Hooks(observers=Observers(on_repair=events.append)),
        strict=strict,
    )
    return await agent.run("task"), events


SAVE_BY_ID = "!!!GADGET_START:save\n!!!ARG:key\ntodo\n!!!ARG:text\nbuy milk\n!!!GADGET_END\n"
READ_WAITING_IN_OWN_ID = "!!!GADGET_START:read_note:save\n!!!ARG:key\ntodo\n!!!GADGET_END\n"


async def test_an_id_written_for_the_name_and_for_the_own_id_reads_as_the_call_and_its_dependency() -> None:
    # Told "give that call the id save, and read it back in a call that depends on save",
    # Qwen2.5-Coder-1.5B wrote the id where the name goes, then the awaited id where the second
    # call's own id goes, six responses in a row.
    result, events = await _notes_run(SAVE_BY_ID + "\n" + READ_WAITING_IN_OWN_ID, "buy milk")
    assert ORDER == ["save todo", "read todo"]  # the read waited, although save_note is async
    saved, read = result.gadget_results  # type: ignore[attr-defined]
    assert (saved.gadget_name, saved.result) == ("save_note", "saved todo")
    assert (read.gadget_name, read.invocation_id, read.result) == ("read_note", "save", "buy milk")
    assert result.repairs == {"first_word_name": 1, "id_as_dependency": 1}  # type: ignore[attr-defined]
    assert [e.kind for e in events] == ["first_word_name", "id_as_dependency"]


async def test_the_stream_shows_each_call_as_the_repairs_read_it() -> None:
    # What runs, and what its result names: the ids the stream showed while the calls were
    # written stay theirs, so a page pairs each call's partial arguments, call and result.
    NOTES.clear()
    agent = Agent(model=MockModel([SAVE_BY_ID + READ_WAITING_IN_OWN_ID, "buy milk"]), gadgets=[save_note, read_note])
    partial_ids: set[str] = set()
    calls: list[ParsedCall] = []
    results: list[str] = []
    async for event in agent.stream("task"):
        if isinstance(event, ArgsPartialEvent):
            partial_ids.add(event.invocation_id)
        elif isinstance(event, GadgetCallEvent):
            calls.append(event.call)
        elif isinstance(event, GadgetResultEvent):
            results.append(event.result.invocation_id)
    saved, read = calls
    assert (saved.gadget_name, saved.dependencies) == ("save_note", ())
    assert (read.gadget_name, read.invocation_id, read.dependencies) == ("read_note", "save", (saved.invocation_id,))
    assert partial_ids <= {saved.invocation_id, read.invocation_id}
    assert sorted(results) == sorted([saved.invocation_id, "save"])


async def test_a_duplicate_id_reads_as_the_call_it_waits_for() -> None:
    response = (
        "!!!GADGET_START:save_note:save\n!!!ARG:key\nk\n!!!ARG:text\nv\n!!!GADGET_END\n"
        "!!!GADGET_START:read_note:save\n!!!ARG:key\nk\n!!!GADGET_END\n"
    )
    result, _ = await _notes_run(response, "v")
    assert ORDER == ["save k", "read k"]
    saved, read = result.gadget_results  # type: ignore[attr-defined]
    assert (saved.invocation_id, read.result) == ("save", "v")
    assert read.invocation_id not in ("save", "")
    assert result.repairs == {"id_as_dependency": 1}  # type: ignore[attr-defined]


async def test_a_dependency_named_by_its_gadget_waits_for_that_gadgets_call() -> None:
    response = (
        "!!!GADGET_START:save_note\n!!!ARG:key\nk\n!!!ARG:text\nv\n!!!GADGET_END\n"
        "!!!GADGET_START:read_note:5:save_note\n!!!ARG:key\nk\n!!!GADGET_END\n"
    )
    result, _ = await _notes_run(response, "v")
    assert ORDER == ["save k", "read k"]
    assert [r.result for r in result.gadget_results] == ["saved k", "v"]  # type: ignore[attr-defined]
    assert result.repairs == {"dependency_by_name": 1}  # type: ignore[attr-defined]


async def test_ids_and_dependencies_are_read_as_written_where_they_are_not_ambiguous() -> None:
    # Two calls of the gadget a dependency names: which one is meant is unknown, so the call
    # waits for an id no call has, and is told so.
    response = (
        "!!!GADGET_START:save_note\n!!!ARG:key\na\n!!!ARG:text\n1\n!!!GADGET_END\n"
        "!!!GADGET_START:save_note\n!!!ARG:key\nb\n!!!ARG:text\n2\n!!!GADGET_END\n"
        "!!!GADGET_START:read_note:r:save_note\n!!!ARG:key\na\n!!!GADGET_END\n"
    )
    result, _ = await _notes_run(response, "done")
    [read] = [r for r in result.gadget_results if r.gadget_name == "read_note"]  # type: ignore[attr-defined]
    assert "depends on 'save_note', but no call has that id" in read.error
    assert result.repairs == {}  # type: ignore[attr-defined]


async def test_a_name_that_is_no_gadgets_first_word_stays_unknown() -> None:
    # "note" ends save_note and read_note, "write" is in no name, "save_todo" only starts like
    # save_note: none is read as a gadget.
    for name in ("note", "write", "save_todo"):
        response = f"!!!GADGET_START:{name}\n!!!ARG:key\ntodo\n!!!ARG:text\nx\n!!!GADGET_END\n"
        result, _ = await _notes_run(response, "done")
        [r] = result.gadget_results  # type: ignore[attr-defined]
        assert r.error.startswith(f"Unknown gadget {name!r}"), r.error
        assert result.repairs == {"unknown_gadget": 1}  # type: ignore[attr-defined]


async def test_a_name_read_as_an_id_needs_the_gadgets_parameters() -> None:
    # "save" with a parameter save_note does not take is not read as save_note.
    response = "!!!GADGET_START:save\n!!!ARG:key\ntodo\n!!!ARG:path\nx\n!!!GADGET_END\n"
    result, _ = await _notes_run(response, "done")
    [r] = result.gadget_results  # type: ignore[attr-defined]
    assert r.error.startswith("Unknown gadget 'save'")
    # and with an id of its own, the name is not read as one
    result, _ = await _notes_run(SAVE_BY_ID.replace(":save\n", ":save:s1\n"), "done")
    assert result.gadget_results[0].error.startswith("Unknown gadget 'save'")  # type: ignore[attr-defined]


async def test_an_id_used_again_in_a_later_response_is_a_new_call() -> None:
    # Ids are read within one response: a later response may use an id again for its own call.
    first = "!!!GADGET_START:save_note:s\n!!!ARG:key\na\n!!!ARG:text\n1\n!!!GADGET_END\n"
    second = "!!!GADGET_START:save_note:s\n!!!ARG:key\nb\n!!!ARG:text\n2\n!!!GADGET_END\n"
    result, _ = await _notes_run(first, second, "done")
    assert [r.invocation_id for r in result.gadget_results] == ["s", "s"]  # type: ignore[attr-defined]
    assert result.repairs == {}  # type: ignore[attr-defined]


async def test_the_id_and_dependency_repairs_are_refused_in_strict_mode() -> None:
    with pytest.raises(RepairRefused, match="first_word_name"):
        await _notes_run(SAVE_BY_ID + READ_WAITING_IN_OWN_ID, "done", strict=True)


@pytest.mark.parametrize("inline", [True, False])
async def test_a_call_written_twice_in_one_response_runs_once_however_fast_the_first_finished(inline: bool) -> None:
    # Whether a repeat runs must not depend on timing. Inline, the first call has finished when the
    # second is read; in a worker thread, slowed down, it has not. Qwen2.5-Coder-0.5B's BFCL cases
    # parallel_147 and simple_python_346 (one call written twice) ran it once or twice by chance.
    import time

    rolls: list[int] = []

    @gadget(description="Roll a die.", inline=inline)
    def roll(sides: int) -> str:
        if not inline:
            time.sleep(0.05)
        rolls.append(sides)
        return str(len(rolls))

    call = block_call("roll", sides=6)
    agent = Agent(model=MockModel([call + "\n" + call, "done"], split=[len(call) + 1]), gadgets=[roll])
    result = await agent.run("task")
    assert rolls == [6]
    [ran] = [r for r in result.gadget_results if r.result == "1"]
    [repeat] = [r for r in result.gadget_results if r is not ran]
    assert repeat.result.startswith(f"(This call is identical to {ran.invocation_id} in the same answer")
    assert result.repairs == {"repeated_call": 1}


async def test_a_repeat_of_any_successful_call_of_the_last_response_is_answered_whichever_finished_last() -> None:
    RUNS.clear()
    first, second = block_call("add", a=1, b=2), block_call("get_weather", city="Oslo")
    result, events = await _run(first + "\n" + second, first, "done")
    assert RUNS == [3]
    assert result.repairs == {"repeated_call": 1}  # type: ignore[attr-defined]
    assert [e.kind for e in events] == ["repeated_call"]


async def test_a_call_waiting_for_a_copy_that_did_not_run_waits_for_the_call_it_copied() -> None:
    # The copy is answered at once; the note it depends on is saved only when the first copy ends.
    import asyncio

    saved: dict[str, str] = {}

    @gadget(description="Save a note under a key.")
    async def slow_save(key: str, text: str) -> str:
        await asyncio.sleep(0.05)
        saved[key] = text
        return f"saved {key}"

    @gadget(description="Read the note saved under a key.")
    def peek(key: str) -> str:
        return saved.get(key, "nothing yet")

    save = "!!!GADGET_START:slow_save:{id}\n!!!ARG:key\nk\n!!!ARG:text\nv\n!!!GADGET_END\n"
    response = save.format(id="a") + save.format(id="b") + "!!!GADGET_START:peek:r:b\n!!!ARG:key\nk\n!!!GADGET_END\n"
    result = await Agent(model=MockModel([response, "done"]), gadgets=[slow_save, peek]).run("task")
    [read] = [r for r in result.gadget_results if r.gadget_name == "peek"]
    assert read.result == "v"
    assert result.repairs == {"repeated_call": 1}


@gadget(description="Start a named counter at zero.")
def start_counter(name: str) -> str:
    RUNS.append(0)
    return f"{name} started"


@gadget(description="Advance a started counter to a number.")
def count_to(name: str, n: int) -> str:
    RUNS.append(n)
    return f"{name} at {n}"


async def _counters_run(*responses: str | MockReply, syntax: str = "block", gadgets: tuple[object, ...] = ()) -> object:
    agent = Agent(
        model=MockModel(list(responses)),
        gadgets=[start_counter, count_to, *gadgets],
        syntax=syntax,  # type: ignore[arg-type]
    )
    return await agent.run("task")


async def test_an_unknown_gadget_whose_arguments_fit_one_gadget_is_shown_that_call_but_not_run() -> None:
    # Qwen2.5-Coder-1.5B sent start_laps (for start_counter) six times, told only the names.
    RUNS.clear()
    result = await _counters_run("!!!GADGET_START:start_laps:start\n!!!ARG:name\nlaps\n!!!GADGET_END\n", "done")
    [r] = result.gadget_results  # type: ignore[attr-defined]
    assert r.error.startswith("Unknown gadget 'start_laps'.")
    assert r.error.endswith(
        "Its arguments fit start_counter: if that gadget does what you meant, call it:\n"
        "!!!GADGET_START:start_counter:start\n!!!ARG:name\nlaps\n!!!GADGET_END"
    )
    assert RUNS == []
    assert result.repairs == {"unknown_gadget": 1}  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "response",
    [
        "!!!GADGET_START:start_laps\n!!!GADGET_END\n",  # no arguments: they fit anything
        "!!!GADGET_START:start_laps\n!!!ARG:name\nlaps\n!!!ARG:step\n2\n!!!GADGET_END\n",  # no gadget takes step
        "!!!GADGET_START:count_laps\n!!!ARG:name\nlaps\n!!!ARG:n\nfive\n!!!GADGET_END\n",  # n is no integer
    ],
)
async def test_an_unknown_gadget_whose_arguments_fit_no_gadget_gets_no_call_to_copy(response: str) -> None:
    result = await _counters_run(response, "done")
    [r] = result.gadget_results  # type: ignore[attr-defined]
    assert r.error.endswith("The gadgets you can call: count_to, start_counter."), r.error


async def test_arguments_that_fit_two_gadgets_name_neither() -> None:
    @gadget(description="Stop a counter.")
    def stop_counter(name: str) -> str:
        return f"{name} stopped"

    result = await _counters_run(
        "!!!GADGET_START:laps\n!!!ARG:name\nlaps\n!!!GADGET_END\n", "done", gadgets=(stop_counter,)
    )
    [r] = result.gadget_results  # type: ignore[attr-defined]
    assert "fit" not in r.error and r.error.endswith("count_to, start_counter, stop_counter.")


async def test_a_native_call_of_an_unknown_tool_is_told_the_tool_its_arguments_fit() -> None:
    result = await _counters_run(
        MockReply(tool_calls=[tool_call("start_laps", name="laps")]),
        "done",
        syntax="native",
    )
    [r] = result.gadget_results  # type: ignore[attr-defined]
    assert r.error.endswith("Its arguments fit start_counter: if that gadget does what you meant, call it.")


async def test_a_call_waiting_for_an_unknown_gadgets_name_is_skipped_with_it() -> None:
    # It waited for that call, as for a gadget's name: run without waiting, count_to ran on a
    # counter nothing had started.
    RUNS.clear()
    response = (
        "!!!GADGET_START:start_laps\n!!!ARG:name\nlaps\n!!!GADGET_END\n"
        "!!!GADGET_START:count_to:go:start_laps\n!!!ARG:name\nlaps\n!!!ARG:n\n5\n!!!GADGET_END\n"
    )
    result = await _counters_run(response, "done")
    by_gadget = {r.gadget_name: r for r in result.gadget_results}  # type: ignore[attr-defined]
    unknown, waiting = by_gadget["start_laps"], by_gadget["count_to"]
    assert (waiting.invocation_id, waiting.status) == ("go", "skipped")
    assert waiting.skip.failed_dependency == unknown.invocation_id
    assert RUNS == []
    assert result.repairs == {"unknown_gadget": 1}  # type: ignore[attr-defined]


async def test_a_long_call_to_an_unknown_gadget_is_told_the_gadget_it_fits_but_not_written_again() -> None:
    result = await _counters_run(f"!!!GADGET_START:start_laps\n!!!ARG:name\n{'l' * 5000}\n!!!GADGET_END\n", "done")
    [r] = result.gadget_results  # type: ignore[attr-defined]
    assert r.error.endswith("Its arguments fit start_counter: if that gadget does what you meant, call it.")
    assert len(r.error) < 1000
