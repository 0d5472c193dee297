"""The page in a real browser: a guardrail's refusal and tripwire, and a model taking over."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from llmist import Agent
from llmist.agent.guardrails import Refuse, Tripwire, input_guardrail, tool_call_guardrail
from llmist.providers import StreamInterruptedError
from llmist.providers.mock import MockReply
from llmist.testing import MockModel, block_call
from llmist.web import to_asgi
from tests.web.browser import send, wait_for
from tests.web.scripted import echo
from tests.web.servers import serving

pytestmark = pytest.mark.slow


def _ended(browser: Any) -> bool:
    return bool(browser.find_elements("css selector", ".run-end"))


def test_a_refusal_is_a_note_and_a_tripwire_names_itself_at_the_end(browser: Any, tmp_path: Path) -> None:
    no_secrets = tool_call_guardrail(name="no_secrets")(
        lambda g: Refuse("secrets stay secret") if "secret" in g.parameters["text"] else None
    )
    off_topic = input_guardrail(name="on_topic")(lambda g: Tripwire("off topic") if "weather" in g.prompt else None)
    model = MockModel([block_call("echo", text="the secret"), "Nothing to echo.", "never"])
    agent = Agent(model=model, gadgets=[echo], guardrails=[no_secrets, off_topic])
    with serving(to_asgi(agent, sessions=tmp_path / "s.db")) as url:
        browser.get(url)
        send(browser, "echo the secret")
        wait_for(browser, _ended, what="the first run to end")
        note = browser.find_element("css selector", ".note.guardrail.refuse").text
        assert note.startswith("Guardrail no_secrets refused echo (") and note.endswith("): secrets stay secret")
        send(browser, "and the weather?")
        wait_for(browser, lambda b: len(b.find_elements("css selector", ".run-end")) == 2, what="the second run")
        end = browser.find_elements("css selector", ".run-end")[-1]
    assert end.text == "Stopped by guardrail on_topic: off topic"
    assert "tripped" in end.get_attribute("class")


def test_a_model_that_broke_off_is_struck_through_and_the_next_one_answers(browser: Any, tmp_path: Path) -> None:
    broken = MockReply("I think the answ", error=StreamInterruptedError("reset", provider="mock", partial_text="x"))
    models = [MockModel([broken], name="first", chunk_size=4), MockModel(["The answer is 42."], name="second")]
    with serving(to_asgi(Agent(model=models), sessions=tmp_path / "s.db")) as url:
        browser.get(url)
        send(browser, "What is the answer?")
        wait_for(browser, _ended, what="the run to end")
        void = browser.find_elements("css selector", ".msg.assistant.void")
        note = browser.find_element("css selector", ".note.fallback")
        answers = [m.text for m in browser.find_elements("css selector", ".msg.assistant:not(.void)")]
    assert [m.text for m in void] == ["I think the answ"]
    assert note.text.startswith("first failed (StreamInterruptedError") and note.text.endswith(
        "second starts the answer over"
    )
    assert answers == ["The answer is 42."]
