"""The AG-UI mapping: what a run's agent events become (checked on real runs of a scripted model)."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from llmist import Agent, GadgetResult, gadget
from llmist.gadgets import GadgetMedia, bind_call
from llmist.syntax import ArgsPartialEvent, GadgetCallEvent, GadgetCallParser
from llmist.testing import MockModel, block_call
from llmist.web import AguiRun
from llmist.web._args_json import ArgsJson, string_fields
from tests.web.scripted import Gate, WriteNote, echo, gated

PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000")


async def translate(
    agent: Agent[Any], prompt: str = "go", *, cancel_after: str | None = None, seen: Any = None
) -> list[dict[str, Any]]:
    """Run ``agent`` and translate its events as the app does; the events as the client reads them
    (``seen(event)`` is called with each agent event)."""
    run = AguiRun("thread", "run", {g.name: g for g in agent.gadgets})
    out = [*run.started()]
    stream = agent.stream(prompt)
    try:
        async for event in stream:
            out += run.event(event)
            if seen is not None:
                seen(event)
            if cancel_after is not None and event.type == cancel_after:
                stream.cancel()
    except Exception as exc:
        out += run.failed(str(exc))
    else:
        out += run.finished(stream.result)
    return [json.loads(e.model_dump_json(by_alias=True)) for e in out]


def types(events: list[dict[str, Any]]) -> list[str]:
    return [e["type"] for e in events]


def args_of(events: list[dict[str, Any]], call_id: str) -> Any:
    return json.loads(
        "".join(e["delta"] for e in events if e["type"] == "TOOL_CALL_ARGS" and e["toolCallId"] == call_id)
    )


async def test_a_run_opens_with_run_started_and_a_state_snapshot_and_closes_with_run_finished() -> None:
    events = await translate(Agent(model=MockModel(["Hello there."], chunk_size=4)))
    assert types(events)[:2] == ["RUN_STARTED", "STATE_SNAPSHOT"]
    assert events[-1]["type"] == "RUN_FINISHED"
    assert events[-1]["outcome"] == {"type": "success"}
    assert events[-1]["result"]["stopReason"] == "no_calls"
    assert events[-1]["usage"][0]["totalTokens"] > 0


async def test_text_is_one_message_whose_content_deltas_join_to_the_answer() -> None:
    events = await translate(Agent(model=MockModel(["Hello there, friend."], chunk_size=4)))
    text = [e for e in events if e["type"].startswith("TEXT_MESSAGE")]
    assert text[0]["type"] == "TEXT_MESSAGE_START" and text[-1]["type"] == "TEXT_MESSAGE_END"
    assert len({e["messageId"] for e in text}) == 1
    assert "".join(e["delta"] for e in text if e["type"] == "TEXT_MESSAGE_CONTENT") == "Hello there, friend."


async def test_a_call_streams_start_args_end_then_its_result() -> None:
    note = "\n".join(f"line {i}" for i in range(6))
    script = ["Writing.\n" + block_call("WriteNote", invocation_id="w", title="007", text=note), "done"]
    agent = Agent(model=MockModel(script, chunk_size=5), gadgets=[WriteNote()])
    events = await translate(agent)
    mine = [e for e in events if e.get("toolCallId") == "w" and e["type"].startswith("TOOL_CALL")]
    kinds = [e["type"] for e in mine]
    assert kinds[0] == "TOOL_CALL_START" and kinds[-2:] == ["TOOL_CALL_END", "TOOL_CALL_RESULT"]
    assert kinds.count("TOOL_CALL_ARGS") > 3  # the note's lines arrive one delta at a time
    assert args_of(events, "w") == {"title": "007", "text": note}  # a str field keeps "007" a string
    text_end = types(events).index("TEXT_MESSAGE_END")
    assert text_end < types(events).index("TOOL_CALL_START")


async def test_a_calls_status_moves_through_the_state_deltas() -> None:
    gate = Gate()  # "a" runs until "b" is parsed, so "b" waits on it
    script = [
        block_call("fetch", invocation_id="a", url="x") + block_call("echo", invocation_id="b", deps=["a"], text="y")
    ]
    agent = Agent(model=MockModel([*script, "ok"], chunk_size=6), gadgets=[gated(gate), echo])

    def open_when_b_is_parsed(event: Any) -> None:
        if isinstance(event, GadgetCallEvent) and event.call.invocation_id == "b":
            gate.open()

    events = await translate(agent, seen=open_when_b_is_parsed)
    statuses: dict[str, list[str]] = {}
    for e in events:
        if e["type"] == "STATE_DELTA":
            for op in e["delta"]:
                if op["path"].startswith("/calls/"):
                    seq = statuses.setdefault(op["path"][7:], [])
                    if not seq or seq[-1] != op["value"]["status"]:
                        seq.append(op["value"]["status"])
    # "running" comes from the agent's on_gadget_start hook, which the app adds (RunHub).
    assert statuses["a"] == ["streaming", "queued", "done"]
    assert statuses["b"] == ["streaming", "waiting", "queued", "done"]
    final_b = [
        op["value"] for e in events if e["type"] == "STATE_DELTA" for op in e["delta"] if op["path"] == "/calls/b"
    ]
    assert final_b[-1]["dependencies"] == ["a"] and final_b[-1]["durationMs"] >= 0


async def test_a_call_skipped_for_a_failed_dependency_gets_a_result_and_the_skipped_status() -> None:
    @gadget(description="Fails.")
    def boom() -> str:
        raise RuntimeError("no")

    script = [block_call("boom", invocation_id="x") + block_call("echo", invocation_id="y", deps=["x"], text="t"), "ok"]
    events = await translate(Agent(model=MockModel(script), gadgets=[boom, echo]))
    result = next(e for e in events if e["type"] == "TOOL_CALL_RESULT" and e["toolCallId"] == "y")
    assert result["content"].startswith("Skipped: the call it depends on (x) failed")
    last = [
        op["value"]["status"]
        for e in events
        if e["type"] == "STATE_DELTA"
        for op in e["delta"]
        if op["path"] == "/calls/y"
    ]
    assert last[-1] == "skipped"


async def test_reasoning_is_its_own_message_before_the_answer() -> None:
    model = MockModel(["The answer."], thinking=["Let me think."], chunk_size=4)
    events = await translate(Agent(model=model))
    kinds = types(events)
    assert kinds.index("REASONING_START") < kinds.index("REASONING_END") < kinds.index("TEXT_MESSAGE_START")
    assert "".join(e["delta"] for e in events if e["type"] == "REASONING_MESSAGE_CONTENT") == "Let me think."


async def test_an_image_a_gadget_returns_is_a_part_of_its_result() -> None:
    @gadget(description="Draws.")
    def draw() -> GadgetResult:
        return GadgetResult("a dot", media=[GadgetMedia(PNG, "image/png", "dot.png")])

    events = await translate(Agent(model=MockModel([block_call("draw", invocation_id="d"), "ok"]), gadgets=[draw]))
    result = next(e for e in events if e["type"] == "TOOL_CALL_RESULT")
    assert result["content"][0] == {"type": "text", "text": "a dot"}
    assert result["content"][1]["type"] == "image" and result["content"][1]["source"]["mimeType"] == "image/png"


async def test_a_cancelled_run_finishes_with_the_cancelled_outcome() -> None:
    agent = Agent(model=MockModel(["one two three four five six"], chunk_size=3, delay_s=0.01))
    events = await translate(agent, cancel_after="text")
    assert events[-1]["type"] == "RUN_FINISHED" and events[-1]["outcome"] == {"type": "cancelled"}
    assert types(events).count("TEXT_MESSAGE_START") == types(events).count("TEXT_MESSAGE_END")


async def test_a_run_that_fails_ends_with_run_error_naming_the_failure() -> None:
    events = await translate(Agent(model=MockModel([RuntimeError("the model went away")])))
    assert events[-1]["type"] == "RUN_ERROR" and "the model went away" in events[-1]["message"]


async def test_a_guardrail_check_is_a_custom_event_and_a_tripwire_is_named_at_the_end() -> None:
    from llmist.agent.guardrails import Tripwire, tool_call_guardrail

    stop = tool_call_guardrail(name="no_echo")(lambda guarded: Tripwire("no echoes today"))
    agent = Agent(model=MockModel([block_call("echo", text="hi"), "never"]), gadgets=[echo], guardrails=[stop])
    events = await translate(agent)
    (check,) = [e for e in events if e["type"] == "CUSTOM" and e["name"] == "llmist.guardrail"]
    assert check["value"]["name"] == "no_echo" and check["value"]["outcome"] == "tripwire"
    assert check["value"]["reason"] == "no echoes today" and check["value"]["gadget"] == "echo"
    finished = events[-1]
    assert finished["result"]["stopReason"] == "guardrail"
    assert finished["result"]["tripwire"]["name"] == "no_echo"


async def test_a_model_taking_over_closes_the_open_text_and_says_whether_it_starts_over() -> None:
    from llmist.providers import StreamInterruptedError
    from llmist.providers.mock import MockReply

    broken = MockReply("Hel", error=StreamInterruptedError("reset", provider="mock", partial_text="Hel"))
    models = [MockModel([broken], name="first"), MockModel(["Hello."], name="second")]
    events = await translate(Agent(model=models))
    at = next(i for i, e in enumerate(events) if e["type"] == "CUSTOM" and e["name"] == "llmist.model_fallback")
    value = events[at]["value"]
    assert (value["failed"], value["model"], value["restart"], value["keptCalls"]) == ("first", "second", True, [])
    assert events[at - 1]["type"] == "TEXT_MESSAGE_END"
    after = "".join(e["delta"] for e in events[at:] if e["type"] == "TEXT_MESSAGE_CONTENT")
    assert after == "Hello."


def test_a_note_that_arrives_before_the_streams_event_never_moves_a_status_back() -> None:
    run = AguiRun("t", "r", {"echo": echo})
    run.call_running("c", "echo")  # on_gadget_start reached the translator first
    parser = GadgetCallParser()
    parsed = [*parser.feed(block_call("echo", invocation_id="c", text="x")), *parser.finalize()]
    call = next(e for e in parsed if isinstance(e, GadgetCallEvent))
    deltas = run.event(call)
    assert all(op["value"]["status"] == "running" for e in deltas if e.type == "STATE_DELTA" for op in e.delta)


field_text = st.text(alphabet=st.characters(codec="utf-8", exclude_characters="!"), max_size=60)


@given(title=field_text, text=field_text, chunk=st.integers(1, 9))
def test_the_args_fragments_always_join_to_the_calls_parameters(title: str, text: str, chunk: int) -> None:
    source = block_call("WriteNote", invocation_id="w", title=title, text=text)
    parser, writer = GadgetCallParser(), ArgsJson(string_fields(WriteNote()))
    fragments: list[str] = []
    calls = []
    pieces = [source[i : i + chunk] for i in range(0, len(source), chunk)]
    for event in [e for piece in pieces for e in parser.feed(piece)] + list(parser.finalize()):
        if isinstance(event, ArgsPartialEvent):
            fragments.append(writer.partial(event))
        elif isinstance(event, GadgetCallEvent):
            calls.append(event.call)
    params = bind_call(WriteNote(), calls[0])
    fragments.append(writer.finish(params))
    assert json.loads("".join(fragments)) == params


async def test_a_repaired_call_shows_the_gadget_that_runs_and_the_call_it_waits_for() -> None:
    # "save" (the first word of save_text) is read as save_text, and the call whose own id is
    # "save" waits for it (llmist.agent.repairs): the page shows what runs, and what waits.
    @gadget(description="Save a text.")
    def save_text(text: str) -> str:
        return f"saved {text}"

    script = [
        "!!!GADGET_START:save\n!!!ARG:text\nhi\n!!!GADGET_END\n!!!GADGET_START:echo:save\n!!!ARG:text\nyo\n!!!GADGET_END\n",
        "ok",
    ]
    events = await translate(Agent(model=MockModel(script, chunk_size=7), gadgets=[save_text, echo]))
    calls: dict[str, dict[str, Any]] = {}
    for e in events:
        if e["type"] == "STATE_DELTA":
            for op in e["delta"]:
                if op["path"].startswith("/calls/"):
                    calls[op["path"][7:]] = op["value"]
    saved = next(k for k, v in calls.items() if v["gadget"] == "save_text")
    assert calls[saved]["status"] == "done"
    assert calls["save"]["gadget"] == "echo" and calls["save"]["dependencies"] == [saved]
    ends = [e["toolCallId"] for e in events if e["type"] == "TOOL_CALL_END"]
    assert sorted(ends) == sorted([saved, "save"])  # every call the page opened is closed
