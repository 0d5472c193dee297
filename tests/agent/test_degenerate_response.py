"""A response that will not stop: capped by default, and ended early once it only repeats itself
(the same call a third time, the same lines over and over), counted as a ``degenerate_response``
repair, with its stream closed (issue 39: 8,000 tokens and four minutes for a one-call sum)."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Iterable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from llmist import Agent, ModelSettings, gadget
from llmist.agent import Hooks, Observers
from llmist.agent._run.degeneration import SHORT_RUN
from llmist.agent.options import DEFAULT_MAX_RESPONSE_TOKENS
from llmist.agent.repairs import RepairEvent, RepairRefused
from llmist.models import ModelRegistry, ModelSpec
from llmist.providers.base import LLMChunk, LLMRequest, ToolCall
from llmist.providers.mock import MockReply
from llmist.testing import MockModel, block_call, emoji_call

RUNAWAY = 3000
"""Copies of a call or line in a runaway response (it would go on until the context ends)."""

ran: list[tuple[int, int]] = []


@gadget(description="Add two integers.")
def add(a: int, b: int) -> str:
    ran.append((a, b))
    return str(a + b)


written: list[str] = []


@gadget(description="Write a file.")
def write_file(path: str, content: str) -> str:
    written.append(content)
    return f"wrote {len(content)} characters to {path}"


class Counted:
    """A model whose streams count the chunks read and say whether they were closed early."""

    name = "mock"
    offline = True

    def __init__(self, model: MockModel) -> None:
        self.model = model
        self.read: list[int] = []
        self.total: list[int] = []
        self.closed_early: list[bool] = []

    async def stream(self, request: LLMRequest) -> AsyncIterator[LLMChunk]:
        chunks = [c async for c in self.model.stream(request)]
        self.total.append(len(chunks))
        self.read.append(0)
        finished = False
        try:
            for chunk in chunks:
                self.read[-1] += 1
                yield chunk
            finished = True
        finally:
            self.closed_early.append(not finished)


async def _run(
    *responses: str | MockReply,
    syntax: str = "block",
    chunk_size: int | None = 9,
    strict: bool = False,
    gadgets: Iterable[object] = (add,),
) -> tuple[object, Counted, list[RepairEvent]]:
    ran.clear()
    repairs: list[RepairEvent] = []
    model = Counted(MockModel(list(responses), chunk_size=chunk_size))
    agent = Agent(
        model=(model, "mock"),  # type: ignore[arg-type]
        gadgets=list(gadgets),
        syntax=syntax,  # type: ignore[arg-type]
        strict=strict,
        hooks=Hooks(observers=Observers(on_repair=repairs.append)),
    )
    return await agent.run("What is 3 + 4? use add"), model, repairs


def _kinds(repairs: list[RepairEvent]) -> list[str]:
    return [r.kind for r in repairs]


# --- a runaway ends early --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("syntax", "call"),
    [("block", block_call("add", a=3, b=4)), ("emoji", emoji_call("add", 3, 4))],
)
async def test_a_runaway_of_one_call_ends_at_its_third_copy_and_closes_the_stream(syntax: str, call: str) -> None:
    result, model, _repairs = await _run(call * RUNAWAY, "3 + 4 = 7.", syntax=syntax)
    assert result.repairs["degenerate_response"] == 1  # type: ignore[attr-defined]
    assert ran == [(3, 4)] * len(ran) and len(ran) <= 2  # the third copy ends the response
    assert model.closed_early == [True, False]
    assert model.read[0] < model.total[0] // 100  # a few chunks of thousands
    assert result.output == "3 + 4 = 7."  # type: ignore[attr-defined]
    assert result.messages[2].content.count(call.strip()) <= 2  # type: ignore[attr-defined]


async def test_a_runaway_of_one_line_ends_at_its_sixteenth_copy_and_keeps_the_first() -> None:
    line = "I will now add the two numbers for you.\n"
    result, model, repairs = await _run("Sure.\n" + line * RUNAWAY)
    assert _kinds(repairs) == ["degenerate_response"]
    assert "16 lines repeating the line" in repairs[0].detail
    assert model.closed_early == [True]
    assert model.read[0] < model.total[0] // 100
    assert result.output == "Sure.\n" + line.strip()  # type: ignore[attr-defined]
    assert result.stop_reason == "no_calls"  # type: ignore[attr-defined]


@pytest.mark.parametrize("gap", ["\n", "\n\n"])
async def test_a_runaway_of_one_short_value_in_a_call_ends_at_its_64th_copy(gap: str) -> None:
    # Qwen2.5-Coder-0.5B wrote 0.01 under a call's argument 406 times, to its cap (BFCL multiple_106).
    runaway = "!!!GADGET_START:add\n!!!ARG:a\n3\n!!!ARG:b\n" + gap.join(["0.01"] * RUNAWAY)
    result, model, repairs = await _run(runaway, block_call("add", a=3, b=4), "3 + 4 = 7.")
    assert _kinds(repairs) == ["degenerate_response"]
    assert f"{SHORT_RUN} lines repeating the line '0.01'" in repairs[0].detail
    assert model.closed_early[0] and model.read[0] < model.total[0] // 20
    assert ran == [(3, 4)]  # the looping call never ended: it is not run; the one sent again is
    # As for a call the token limit cut off: the response is kept up to the first copy, the call
    # is answered with an error saying why, and the run goes on.
    looped, again = result.gadget_results  # type: ignore[attr-defined]
    assert looped.status == "error" and looped.error.startswith("Not run: inside this add call your response")
    assert f"({SHORT_RUN} lines repeating the line '0.01')" in looped.error
    assert result.messages[2].text.endswith("!!!ARG:b\n0.01")  # type: ignore[attr-defined]
    assert "Not run: inside this add call" in result.messages[3].text  # type: ignore[attr-defined]
    assert (again.result, result.output, result.stop_reason) == ("7", "3 + 4 = 7.", "no_calls")  # type: ignore[attr-defined]


async def test_a_runaway_in_a_call_after_other_calls_leaves_them_running() -> None:
    runaway = block_call("add", a=1, b=2) + "!!!GADGET_START:add\n!!!ARG:a\n" + "\n".join(["7"] * RUNAWAY)
    result, _model, _repairs = await _run(runaway, "done")
    assert ran == [(1, 2)]
    # In completion order: the looping call's error comes at once, the sum from its thread.
    assert sorted(r.status for r in result.gadget_results) == ["error", "success"]  # type: ignore[attr-defined]
    assert result.output == "done"  # type: ignore[attr-defined]


async def test_a_prose_loop_after_a_call_ends_the_response_and_leaves_no_error() -> None:
    line = "I will now add the two numbers for you.\n"
    result, _model, _repairs = await _run(block_call("add", a=1, b=2) + line * RUNAWAY, "done")
    assert [r.status for r in result.gadget_results] == ["success"]  # type: ignore[attr-defined]


async def test_blank_lines_in_a_row_are_no_run_of_a_short_line() -> None:
    # Blank lines only sit between the copies of a short line: a file's 200 empty lines, before
    # or after a longer line, are written whole. With no short line before them, they were read
    # as copies of the empty line "" (a short path, `a.txt`, hid it).
    body = "header line of the file\n" + "\n" * 200 + "end\n"
    for content in (body, "\n" * 200 + "end\n"):
        call = block_call("write_file", path="notes/blank-lines.txt", content=content)
        _result, _model, repairs = await _run(call, "done", gadgets=[write_file])
        assert "degenerate_response" not in _kinds(repairs)
        assert written[-1].strip("\n") == content.strip("\n")


async def test_a_short_line_a_few_dozen_times_in_a_row_is_written_whole() -> None:
    body = "[\n" + "  0,\n" * (SHORT_RUN - 1) + "  0\n]\n"  # a file of zeros
    response = block_call("write_file", path="zeros.json", content=body)
    _result, _model, repairs = await _run(response, "done", gadgets=[write_file])
    assert "degenerate_response" not in _kinds(repairs)
    assert written[-1].rstrip("\n") == body.rstrip("\n")


async def test_a_runaway_of_a_block_of_lines_ends_too() -> None:
    block = "Calling add.\nThe answer will be 7.\n\n"  # two lines and a blank one, over and over
    result, model, repairs = await _run("Sure.\n" + block * RUNAWAY)
    assert _kinds(repairs) == ["degenerate_response"]
    assert "a block of 2 lines" in repairs[0].detail
    assert model.read[0] < model.total[0] // 100
    assert result.output == "Sure.\nCalling add.\nThe answer will be 7."  # type: ignore[attr-defined]


@pytest.mark.parametrize("size", [9, 16, 20, 64])
async def test_a_runaway_of_a_long_block_of_prose_ends_at_its_second_copy(size: int) -> None:
    # Qwen2.5-Coder-0.5B repeated a recipe's nine ingredients until its cap, and on another task
    # 20 lines explaining its calls.
    block = "".join(f"- {k} tablespoons of ingredient {k}\n" for k in range(size))
    result, model, repairs = await _run("The recipe:\n" + block * RUNAWAY)
    assert _kinds(repairs) == ["degenerate_response"]
    assert f"{2 * size} lines repeating a block of {size} lines" in repairs[0].detail
    assert model.read[0] < model.total[0] // 10
    assert result.output == "The recipe:\n" + block.strip()  # type: ignore[attr-defined]


async def test_a_block_repeated_in_a_calls_value_ends_at_its_fourth_copy() -> None:
    # A file may repeat a section on purpose: in a call's value a block is a loop at its fourth copy.
    block = "".join(f"    row {k}: the same section of the file\n" for k in range(9))
    response = block_call("write_file", path="a.txt", content=block * RUNAWAY)
    _result, model, repairs = await _run(response, "done", gadgets=[write_file])
    assert _kinds(repairs) == ["degenerate_response"]
    assert "36 lines repeating a block of 9 lines" in repairs[0].detail
    assert model.read[0] < model.total[0] // 100


@pytest.mark.parametrize(("size", "copies"), [(9, 3), (20, 10)])
async def test_a_file_that_repeats_a_section_is_written_whole(size: int, copies: int) -> None:
    # Three copies of a short section, or ten of a section longer than MAX_PERIOD lines, in a
    # call's value: what the watch reads as a loop in prose (PROSE_REPEATS) a file may mean.
    block = "".join(f"    row {k}: the same section of the file\n" for k in range(size))
    response = "I will write the file.\n" + block_call("write_file", path="a.txt", content=block * copies)
    _result, model, repairs = await _run(response, "done", gadgets=[write_file])
    assert "degenerate_response" not in _kinds(repairs)
    assert written[-1].rstrip("\n") == (block * copies).rstrip("\n")
    assert model.closed_early == [False, False]


async def test_a_prose_line_after_a_call_is_compared_with_prose_alone() -> None:
    # A call's value says one line seven times between others; the prose after the call says it
    # once more. Eight copies among sixteen lines, but only one of them prose: no loop.
    line = "the same line of the file"
    content = "".join(f"{line}\nrow number {k} of the file\n" for k in range(7))
    response = block_call("write_file", path="a.txt", content=content) + line + "\n"
    _result, model, repairs = await _run(response, "done", gadgets=[write_file])
    assert "degenerate_response" not in _kinds(repairs)
    assert written[-1].rstrip("\n") == content.rstrip("\n")
    assert model.closed_early == [False, False]


async def test_short_lines_between_the_copies_neither_make_nor_break_a_loop() -> None:
    # The numbers differ from copy to copy, but they are under 8 characters: the loop is the
    # long line, and it ends at its sixteenth copy as if they were not there.
    block = "".join(f"Calling add now.\n{k}\n" for k in range(RUNAWAY))
    result, _model, repairs = await _run("Sure.\n" + block)
    assert _kinds(repairs) == ["degenerate_response"]
    assert "16 lines repeating the line 'Calling add now.'" in repairs[0].detail
    assert result.output == "Sure.\nCalling add now.\n0"  # type: ignore[attr-defined]


async def test_a_numbered_list_that_goes_on_with_the_same_items_ends_too() -> None:
    # What Qwen2.5-Coder-0.5B wrote for a question no gadget answers: the same four items, numbered
    # on and on (to 72 before its cap). No two lines are the same as written.
    items = ["Right to use the property", "Right to sell the property", "Right to rent it", "Right to move out"]
    body = "".join(f"{k}. **{items[(k - 1) % 4]}**: you are entitled to it.\n\n" for k in range(1, RUNAWAY))
    result, model, repairs = await _run("As a tenant you have these rights:\n\n" + body)
    assert _kinds(repairs) == ["degenerate_response"]
    assert "a block of 4 lines from '5. **Right to use the property**" in repairs[0].detail
    assert model.closed_early == [True]
    assert model.read[0] < model.total[0] // 100
    assert result.output == ("As a tenant you have these rights:\n\n" + body[: body.index("5. ")]).strip()  # type: ignore[attr-defined]


async def test_long_lines_and_a_numbered_list_of_different_items_are_written_whole() -> None:
    # A minified JSON line, a line counting up, and a numbered list of different items.
    rows = json.dumps([{"id": i, "name": f"item {i}", "tags": ["a", "b"]} for i in range(300)])
    counting = ", ".join(str(i) for i in range(2000))
    numbered = "".join(f"{k}. Step {k}: check part {k * 7 % 31} of the build\n" for k in range(1, 60))
    body = f"{rows}\n{counting}\n{numbered}"
    response = block_call("write_file", path="data.txt", content=body)
    _result, model, repairs = await _run(response, "done", gadgets=[write_file])
    assert "degenerate_response" not in _kinds(repairs)
    assert written[-1].rstrip("\n") == body.rstrip("\n")
    assert model.closed_early == [False, False]


async def test_a_json_call_written_as_text_over_and_over_runs_once_natively() -> None:
    # What Qwen2.5-Coder wrote through llama.cpp, whose server returns its calls as text.
    call = json.dumps({"name": "add", "arguments": {"a": 3, "b": 4}}) + "\n"
    result, model, repairs = await _run(call * RUNAWAY, "7", syntax="native")
    assert "degenerate_response" in _kinds(repairs)
    assert ran == [(3, 4)]  # the second copy is answered as a repeat, the third ends the response
    assert model.closed_early == [True, False]
    assert model.read[0] < model.total[0] // 100
    assistant = result.messages[2]  # type: ignore[attr-defined]
    kept = [c.id for c in assistant.tool_calls]
    answered = [m.tool_call_id for m in result.messages[3 : 3 + len(kept)]]  # type: ignore[attr-defined]
    assert len(kept) == 2 and sorted(kept) == sorted(answered)  # each call kept has its result


async def test_a_result_written_after_a_json_call_ends_the_response_natively() -> None:
    first = json.dumps({"name": "add", "arguments": {"a": 3, "b": 4}})
    invented = json.dumps({"name": "add", "arguments": {"a": 7, "b": 5}})
    response = f"<tool_call>\n{first}\n</tool_call>\n<tool_response>\n7\n</tool_response>\n{invented}\n" * 50
    result, model, _repairs = await _run(response, "7", syntax="native")
    assert ran == [(3, 4)]  # not the call made from the made-up 7
    assert result.repairs == {"json_call": 1, "invented_result": 1}  # type: ignore[attr-defined]
    assert model.closed_early == [True, False]
    assert model.read[0] < model.total[0] // 10


async def test_native_tool_calls_repeated_stop_at_the_third_and_each_kept_one_has_a_result() -> None:
    calls = [ToolCall(f"call_{i}", "add", '{"a": 3, "b": 4}') for i in range(200)]
    result, model, repairs = await _run(MockReply(tool_calls=calls), "7", syntax="native")
    assert _kinds(repairs).count("degenerate_response") == 1
    assert model.closed_early == [True, False]
    assert model.read[0] == 3
    assistant = result.messages[2]  # type: ignore[attr-defined]
    assert [c.id for c in assistant.tool_calls] == ["call_0", "call_1"]
    answered = [m.tool_call_id for m in result.messages[3:5]]  # type: ignore[attr-defined]
    assert answered == ["call_0", "call_1"]


async def test_the_same_arguments_a_third_time_in_one_call_end_the_response() -> None:
    # Qwen2.5-Coder-1.5B wrote count_to's two argument lines over and over inside one call, to
    # its cap (2,127 tokens, 136 s): markers and short values, which the line signs skip.
    runaway = "!!!GADGET_START:add\n!!!ARG:a\n5\n!!!ARG:b\n5\n" + "!!!ARG:a\n3\n!!!ARG:b\n4\n" * RUNAWAY
    result, model, repairs = await _run(runaway, block_call("add", a=3, b=4), "3 + 4 = 7.")
    assert _kinds(repairs) == ["degenerate_response"]
    assert "the same arguments written 3 times in one call" in repairs[0].detail
    assert model.closed_early[0] and model.read[0] < model.total[0] // 100
    assert ran == [(3, 4)]  # the looping call is not run; the one sent again is
    looped = result.gadget_results[0]  # type: ignore[attr-defined]
    assert looped.error.startswith("Not run: inside this add call your response went on repeating itself")
    # The response is kept up to the second copy: the first group and one copy.
    assert result.messages[2].text.endswith("!!!ARG:b\n5\n!!!ARG:a\n3\n!!!ARG:b\n4")  # type: ignore[attr-defined]


async def test_parameters_written_again_with_other_values_or_twice_are_no_loop() -> None:
    cities = "".join(f"!!!ARG:a\n{i}\n!!!ARG:b\n1\n" for i in range(20))
    twice = "!!!ARG:a\n1\n!!!ARG:b\n2\n" * 2
    prose = "I will add the numbers now, in one call, with the values you gave me.\n" * 4  # watched
    for body in (cities, twice, twice + "!!!ARG:a\n1\n"):  # a third copy not yet whole
        _result, model, repairs = await _run(f"{prose}!!!GADGET_START:add\n{body}!!!GADGET_END", "done")
        assert "degenerate_response" not in _kinds(repairs), body
        assert model.closed_early == [False, False]


async def test_the_same_arguments_in_separate_calls_are_counted_per_call() -> None:
    # Each call's groups are its own: the group written twice in one call and once in the next
    # is no third copy.
    same, other = "!!!ARG:a\n1\n!!!ARG:b\n2\n", "!!!ARG:a\n9\n!!!ARG:b\n9\n"
    calls = [f"!!!GADGET_START:add\n{body}!!!GADGET_END\n" for body in (same * 2 + other, same + other)]
    prose = "I will add the numbers now, in two calls, one after the other, as you asked.\n" * 4  # watched
    _result, model, repairs = await _run(prose + "".join(calls), "done")
    assert "degenerate_response" not in _kinds(repairs)
    assert model.closed_early == [False, False]


async def test_strict_mode_refuses_a_degenerate_response() -> None:
    with pytest.raises(RepairRefused, match="degenerate_response"):
        await _run("Thinking about it some more.\n" * RUNAWAY, strict=True)


# --- what is not a loop ----------------------------------------------------------------------


async def test_twenty_different_calls_of_one_gadget_all_run() -> None:
    response = "".join(block_call("add", a=i, b=i + 1) for i in range(20))
    _result, model, repairs = await _run(response, "done")
    assert "degenerate_response" not in _kinds(repairs)
    assert len(ran) == 20
    assert model.closed_early == [False, False]


async def test_a_call_made_twice_is_no_loop() -> None:
    _result, model, repairs = await _run(block_call("add", a=3, b=4) * 2, "done")
    assert "degenerate_response" not in _kinds(repairs)
    assert model.closed_early == [False, False]


async def test_a_file_body_with_repeated_short_lines_and_fifteen_equal_lines_is_written_whole() -> None:
    body = "def f():\n" + "    }\n" * 40 + "    print('hello, world')\n" * 15 + "# end of file\n"
    response = block_call("write_file", path="a.py", content=body)
    _result, _model, repairs = await _run(response, "done", gadgets=[write_file])
    assert "degenerate_response" not in _kinds(repairs)
    assert written[-1].rstrip("\n") == body.rstrip("\n")


def _as_compared(line: str) -> str:
    """A line as the watch compares it: stripped, a list item's number left out (``12. x``)."""
    return re.sub(r"^[0-9]+([.)] )", r"#\1", line.strip())


_LINE = st.text(st.characters(codec="ascii", exclude_characters="\n\r!"), min_size=8, max_size=30).filter(
    lambda s: len(s.strip()) >= 8
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    lines=st.lists(_LINE, min_size=1, max_size=60, unique_by=_as_compared),
    sizes=st.lists(st.integers(1, 40), min_size=1, max_size=20),
    numbered=st.booleans(),
)
async def test_an_answer_of_different_lines_is_never_cut(lines: list[str], sizes: list[int], numbered: bool) -> None:
    text = "\n".join(f"{k}. {line}" if numbered else line for k, line in enumerate(lines, 1))
    cuts, at, k = [], 0, 0
    while at < len(text):
        at += sizes[k % len(sizes)]
        k += 1
        cuts.append(min(at, len(text)))
    ran.clear()
    repairs: list[RepairEvent] = []
    agent = Agent(
        model=MockModel([text], split=cuts[:-1]),
        gadgets=[add],
        hooks=Hooks(observers=Observers(on_repair=repairs.append)),
    )
    result = await agent.run("q")
    assert "degenerate_response" not in _kinds(repairs)
    assert result.output == text.strip()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    prefix=st.lists(_LINE, max_size=5, unique_by=_as_compared),
    block=st.lists(_LINE, min_size=1, max_size=40, unique_by=_as_compared),
    size=st.integers(1, 50),
)
async def test_a_loop_of_lines_is_cut_after_its_first_copy_however_it_streams(
    prefix: list[str], block: list[str], size: int
) -> None:
    if any(_as_compared(line) in {_as_compared(b) for b in block} for line in prefix):
        return  # the prefix would be part of the loop
    text = "".join(f"{line}\n" for line in prefix) + "".join(f"{line}\n" for line in block) * 200
    repairs: list[RepairEvent] = []
    agent = Agent(
        model=MockModel([text], chunk_size=size),
        gadgets=[add],
        hooks=Hooks(observers=Observers(on_repair=repairs.append)),
    )
    result = await agent.run("q")
    assert _kinds(repairs) == ["degenerate_response"]
    kept = "".join(f"{line}\n" for line in [*prefix, *block])
    assert result.messages[2].content == kept.rstrip()
    assert result.output == kept.strip()


# --- the cap ---------------------------------------------------------------------------------


async def test_every_response_is_capped_by_default_for_a_model_the_registry_does_not_know() -> None:
    model = MockModel(["hi"])
    await Agent(model=model).run("q")
    assert model.requests[0].max_tokens == DEFAULT_MAX_RESPONSE_TOKENS


async def test_the_registry_output_limit_caps_a_model_it_knows() -> None:
    registry = ModelRegistry(use_genai_prices=False)
    registry.register(ModelSpec("mock", "mock", max_output_tokens=777))
    model = MockModel(["hi"])
    await Agent(model=(model, "mock"), model_registry=registry).run("q")
    assert model.requests[0].max_tokens == 777


async def test_a_model_the_registry_knows_without_a_limit_gets_its_providers_own() -> None:
    registry = ModelRegistry(use_genai_prices=False)
    registry.register(ModelSpec("mock", "mock"))
    model = MockModel(["hi"])
    await Agent(model=(model, "mock"), model_registry=registry).run("q")
    assert model.requests[0].max_tokens is None


@pytest.mark.parametrize(("option", "sent"), [(None, None), (300, 300), ("auto", DEFAULT_MAX_RESPONSE_TOKENS)])
async def test_max_response_tokens_as_set(option: int | str | None, sent: int | None) -> None:
    model = MockModel(["hi"])
    await Agent(model=model, max_response_tokens=option).run("q")  # type: ignore[arg-type]
    assert model.requests[0].max_tokens == sent


@pytest.mark.parametrize("bad", [0, -5, "big", 2.5, True])
def test_a_cap_that_is_no_number_of_tokens_is_refused(bad: object) -> None:
    with pytest.raises(ValueError, match=r"max_response_tokens must be a number of tokens .* got"):
        ModelSettings(max_response_tokens=bad)  # type: ignore[arg-type]


# --- a result the model wrote itself -----------------------------------------------------------


@pytest.mark.parametrize(
    ("syntax", "call"),
    [("block", block_call("add", a=3, b=4)), ("emoji", emoji_call("add", 3, 4))],
)
async def test_the_response_ends_at_a_result_the_model_wrote_after_its_call(syntax: str, call: str) -> None:
    invented = call + "Result: 7\n" + call.replace("3", "7") + "Result: 14\n"
    result, model, repairs = await _run(invented * 100, "7", syntax=syntax)
    assert ran == [(3, 4)]  # the calls made from the made-up result are not run
    assert result.repairs == {"invented_result": 1}  # type: ignore[attr-defined]
    assert repairs[0].detail.endswith("the response ended there")
    assert model.closed_early == [True, False]
    assert "Result" not in result.messages[2].content  # type: ignore[attr-defined]


async def test_prose_after_a_call_that_is_no_result_goes_on() -> None:
    response = (
        block_call("add", a=3, b=4) + "Now the second sum, which the result of the first does not change:\n"
        "Let me add those too.\n" + block_call("add", a=5, b=6)
    )
    _result, model, repairs = await _run(response, "7 and 11")
    assert sorted(ran) == [(3, 4), (5, 6)]
    assert repairs == []
    assert model.closed_early == [False, False]


async def test_qwens_native_runaway_ends_at_the_result_it_wrote_after_its_call() -> None:
    # Qwen2.5-Coder-1.5B through llama-cpp-python's server, which returns its calls as text: its
    # call, a result of its own, then more calls with invented arguments (issue 39).
    opening = '{{"name": "add", "arguments": {"a": 3, "b": 4}}}}\nThe result of adding 3 and 4 is 7.\n'
    invented = "".join(
        f'{{"name": "add", "arguments": {{"a": {k}, "b": {k + 4}}}}}\nThe sum is {2 * k + 4}.\n' for k in range(500)
    )
    result, model, _repairs = await _run(opening + invented, "7", syntax="native", chunk_size=4)
    assert ran == [(3, 4)]
    assert result.repairs == {"json_call": 1, "invented_result": 1}  # type: ignore[attr-defined]
    assert model.closed_early == [True, False]
    assert model.read[0] < 100  # chunks of thousands (the watch reads lines from 256 characters)


# --- prose that repeats itself otherwise -----------------------------------------------------


async def test_prose_that_says_one_line_again_and_again_between_others_ends() -> None:
    # Qwen2.5-Coder-0.5B to its cap (2,048 tokens, 74 s): the ordinal changed, the formula did not.
    ordinals = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"]
    formula = r"\[ \int_{1}^{4} (3x - 1)^2 \, dx \]"
    body = "".join(f"The integral of the {o} part is:\n{formula}\n\n" for o in ordinals * 300)
    result, model, repairs = await _run("Certainly!\n" + body)
    assert _kinds(repairs) == ["degenerate_response"]
    assert repairs[0].detail.startswith("the response ended early: 8 copies of the line")
    assert model.closed_early == [True]
    assert result.output.count(formula) == 7  # type: ignore[attr-defined]


async def test_prose_on_one_line_that_repeats_one_stretch_ends() -> None:
    unit = r" = \frac{120480 \times 0.000000295625}{32768}"
    result, model, repairs = await _run(r"Now: \[ P(X = 10) = \frac{120480}{32768}" + unit * RUNAWAY, chunk_size=4)
    assert _kinds(repairs) == ["degenerate_response"]
    assert "a line repeating" in repairs[0].detail
    assert model.read[0] < model.total[0] // 50
    assert len(result.output) < 1000  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "content",
    [
        "x" * 100_000,  # a test's long value
        "".join(f"row number {k}\nsame line of the file\n" for k in range(400)),  # a line, others between
    ],
)
async def test_a_call_body_that_repeats_itself_is_written_whole(content: str) -> None:
    response = "Writing it.\n" + block_call("write_file", path="a.txt", content=content) + "Done, as asked.\n"
    _result, model, repairs = await _run(response, "done", gadgets=[write_file], chunk_size=64)
    assert "degenerate_response" not in _kinds(repairs)
    assert written[-1].rstrip("\n") == content.rstrip("\n")
    assert model.closed_early == [False, False]
