"""Outputs too large for the context are stored; the model reads them with GadgetOutputViewer."""

from __future__ import annotations

import re
from collections.abc import Sequence

from llmist import Agent, gadget
from llmist.agent.repairs import NEXT_STEP_NOTE, STORED_OUTPUT_NOTE
from llmist.providers.base import Message
from llmist.testing import MockModel, block_call, result_text


@gadget
def big_log() -> str:
    """Returns a big log."""
    return "\n".join(f"line {i} {'ERROR' if i % 100 == 0 else 'ok'}" for i in range(2000))


def _script(messages: Sequence[Message]) -> str:
    last = messages[-1].text
    if messages[-1].role == "user":
        return block_call("big_log")
    found = re.search(r'id "([^"]+)"', last)
    if found and "GadgetOutputViewer" in last:
        return block_call("GadgetOutputViewer", id=found.group(1), patterns=[{"regex": "ERROR"}], limit="3-")
    return "Done: " + result_text(messages[-1]).splitlines()[-1]


async def test_large_output_is_stored_and_read_back_with_the_viewer() -> None:
    model = MockModel(_script)
    agent = Agent(model=model, gadgets=[big_log], context_window=1000, gadget_output_limit_percent=10)
    result = await agent.run("find errors")
    notice, viewed = (r.result or "" for r in result.gadget_results)
    assert "returned too much data" in notice and "GadgetOutputViewer" in notice
    assert viewed.splitlines() == ["line 0 ERROR", "line 100 ERROR", "line 200 ERROR"]
    assert result.output == "Done: line 200 ERROR"


async def test_the_viewer_stays_out_of_the_prompt_until_an_output_is_stored() -> None:
    assert "GadgetOutputViewer" not in Agent(model="mock", gadgets=[big_log]).system_prompt


async def test_the_first_stored_output_comes_with_the_viewers_instructions() -> None:
    agent = Agent(model=MockModel(_script), gadgets=[big_log], context_window=1000, gadget_output_limit_percent=10)
    result = await agent.run("find errors")
    notices = [m.text for m in result.messages if m.role == "gadget_result"]
    assert "To read it, call GadgetOutputViewer:\n## GadgetOutputViewer" in notices[0]
    assert "To read it" not in notices[1]


async def test_limit_off_passes_outputs_whole_and_hides_the_viewer() -> None:
    model = MockModel([block_call("big_log"), "ok"])
    agent = Agent(model=model, gadgets=[big_log], context_window=1000, gadget_output_limit=False)
    result = await agent.run("q")
    assert (result.gadget_results[0].result or "").count("\n") == 1999
    assert "GadgetOutputViewer" not in agent.system_prompt


async def test_a_stored_output_asks_for_the_viewer_before_an_answer() -> None:
    # Told "if these results complete the task, answer", Qwen2.5-Coder answered from the viewer's
    # example instead of reading the output it had not seen.
    model = MockModel(_script)
    agent = Agent(model=model, gadgets=[big_log], context_window=1000, gadget_output_limit_percent=10)
    result = await agent.run("find errors")
    notice, viewed = (m.text for m in result.messages if m.role == "gadget_result")
    assert notice.endswith(STORED_OUTPUT_NOTE) and NEXT_STEP_NOTE not in notice
    assert viewed.endswith(NEXT_STEP_NOTE)
