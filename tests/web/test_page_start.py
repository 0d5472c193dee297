"""The page in a real browser: what a new user sees first, a paused run that resumes, the token count."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from llmist import Agent
from llmist.providers.mock import estimate_tokens
from llmist.testing import MockModel, block_call
from llmist.web import to_asgi
from tests.web.browser import run_ended, send, status, wait_for
from tests.web.scripted import WriteNote, echo
from tests.web.servers import serving

pytestmark = pytest.mark.slow


def _starters(browser: Any) -> list[str]:
    return [b.find_element("css selector", ".prompt").text for b in browser.find_elements("css selector", ".starter")]


def test_the_empty_page_offers_example_prompts_built_from_the_gadgets(browser: Any, tmp_path: Path) -> None:
    model = MockModel(["Hello back."])
    with serving(to_asgi(Agent(model=model, gadgets=[WriteNote(), echo]), sessions=tmp_path / "s.db")) as url:
        browser.get(url)
        wait_for(browser, _starters, what="the example prompts")
        assert _starters(browser) == ["Use echo with text <text>", "Use WriteNote with title <title> and text <text>"]
        assert browser.find_element("css selector", ".starters .hint").text.startswith("Ask the agent anything")
        assert browser.find_element("id", "gadgets").text == "2 gadgets (WriteNote needs approval)"
        browser.find_elements("css selector", ".starter")[0].click()
        box = browser.find_element("id", "prompt")
        assert box.get_attribute("value") == "Use echo with text <text>"
        # The placeholder is selected: typing replaces it.
        box.send_keys("hello")
        assert box.get_attribute("value") == "Use echo with text hello"
        browser.find_element("id", "send").click()
        wait_for(browser, run_ended, what="the run to end")
        assert browser.find_elements("css selector", ".starters") == []
        browser.find_element("id", "new-thread").click()
        wait_for(browser, _starters, what="the example prompts of a new conversation")


def test_waiting_for_your_approval_goes_once_every_waiting_call_is_decided(browser: Any, tmp_path: Path) -> None:
    script = [
        block_call("WriteNote", invocation_id="one", title="one", text="1")
        + block_call("WriteNote", invocation_id="two", title="two", text="2"),
        "Both written.",
    ]
    agent = Agent(model=MockModel(script, chunk_size=20), gadgets=[WriteNote()])
    with serving(to_asgi(agent, sessions=tmp_path / "s.db")) as url:
        browser.get(url)
        send(browser, "write two notes")
        wait_for(browser, lambda b: b.find_elements("css selector", ".run-paused"), what="the run to pause")
        assert browser.find_element("css selector", ".run-paused").text == "Waiting for your approval"
        browser.find_element("css selector", '.card[data-call-id="one"] .approve').click()
        wait_for(browser, lambda b: "Approved" in b.find_element("css selector", '[data-call-id="one"]').text)
        # One call still waits: so does the run.
        assert browser.find_elements("css selector", ".run-paused")
        browser.find_element("css selector", '.card[data-call-id="two"] .approve').click()
        wait_for(browser, run_ended, what="the resumed run to end")
        assert (status(browser, "one"), status(browser, "two")) == ("done", "done")
        assert browser.find_elements("css selector", ".run-paused") == []


def test_the_token_count_is_the_sum_over_the_conversations_responses(browser: Any, tmp_path: Path) -> None:
    script = [block_call("WriteNote", invocation_id="n", title="t", text="a note of some length"), "Written."]
    model = MockModel(script, chunk_size=20)
    with serving(to_asgi(Agent(model=model, gadgets=[WriteNote()]), sessions=tmp_path / "s.db")) as url:
        browser.get(url)
        send(browser, "write a note")
        wait_for(browser, lambda b: b.find_elements("css selector", ".run-paused"), what="the run to pause")
        browser.find_element("css selector", ".approve").click()  # the decision resumes it: a second run
        wait_for(browser, run_ended, what="the resumed run to end")
        shown = browser.find_element("id", "usage").text
    # The scripted model's estimates (4 characters a token) of each request and response.
    sent = sum(estimate_tokens(m.text) for r in model.requests for m in r.messages)
    written = sum(estimate_tokens(text) for text in script)
    assert len(model.requests) == 2
    assert shown == f"{sent} in · {written} out tokens · $0.0000"
