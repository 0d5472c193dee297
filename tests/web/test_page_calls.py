"""The page in a real browser: parallel and dependent calls, approvals, stop, the XSS probe."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from llmist import Agent
from llmist.testing import MockModel, block_call
from llmist.web import to_asgi
from tests.web.browser import run_ended, send, status, wait_for
from tests.web.scripted import Gate, WriteNote, echo, gated
from tests.web.servers import serving

pytestmark = pytest.mark.slow

SCREENSHOT = Path(__file__).resolve().parents[2] / "docs" / "images" / "web-page.png"


def test_two_calls_run_in_parallel_and_a_dependent_one_waits_for_both(browser: Any, tmp_path: Path) -> None:
    gate = Gate()
    script = [
        "I'll fetch both pages at once, then write a summary note.\n"
        + block_call("fetch", invocation_id="a", url="https://example.org/a")
        + block_call("fetch", invocation_id="b", url="https://example.org/b")
        + block_call("echo", invocation_id="sum", deps=["a", "b"], text="Both pages say hello."),
        "Both fetched and summarised.",
    ]
    agent = Agent(model=MockModel(script, chunk_size=12, delay_s=0.01), gadgets=[gated(gate), echo])
    with serving(to_asgi(agent, sessions=tmp_path / "s.db")) as url:
        browser.get(url)
        send(browser, "Summarise pages a and b")
        wait_for(
            browser,
            lambda b: status(b, "a") == status(b, "b") == "running" and status(b, "sum") == "waiting",
            what="a and b running at once while sum waits",
        )
        links = browser.find_elements("css selector", '.card[data-call-id="sum"] .deps a')
        assert [link.text for link in links] == ["a", "b"]
        gate.open()
        wait_for(browser, run_ended, what="the run to end")
    assert [status(browser, i) for i in ("a", "b", "sum")] == ["done", "done", "done"]
    assert "contents of https://example.org/a" in browser.find_element("css selector", '[data-call-id="a"]').text


def test_a_person_approves_one_call_and_denies_another(browser: Any, tmp_path: Path) -> None:
    WriteNote.written.clear()
    script = [
        block_call("WriteNote", invocation_id="keep", title="keep", text="yes")
        + block_call("WriteNote", invocation_id="drop", title="drop", text="no"),
        "One written, one declined.",
    ]
    model = MockModel(script, chunk_size=20, delay_s=0.01)
    agent = Agent(model=model, gadgets=[WriteNote()])
    with serving(to_asgi(agent, sessions=tmp_path / "s.db")) as url:
        browser.get(url)
        send(browser, "write two notes")
        for iid, button in (("keep", "approve"), ("drop", "deny")):
            wait_for(browser, lambda b, i=iid: status(b, i) == "awaiting_approval", what=f"{iid} to wait")
            browser.find_element("css selector", f'.card[data-call-id="{iid}"] .approval .{button}').click()
        wait_for(browser, run_ended, what="the run to end")
    assert (status(browser, "keep"), status(browser, "drop")) == ("done", "declined")
    assert WriteNote.written == [{"title": "keep", "text": "yes"}]
    assert "the user declined this WriteNote call" in model.requests[1].messages[-1].text


def test_a_person_edits_a_calls_parameters_before_it_runs(browser: Any, tmp_path: Path) -> None:
    WriteNote.written.clear()
    script = [block_call("WriteNote", invocation_id="n", title="draft", text="typo"), "Written."]
    model = MockModel(script, chunk_size=20, delay_s=0.01)
    with serving(to_asgi(Agent(model=model, gadgets=[WriteNote()]), sessions=tmp_path / "s.db")) as url:
        browser.get(url)
        send(browser, "write a note")
        wait_for(browser, lambda b: status(b, "n") == "awaiting_approval", what="the call to wait")
        browser.find_element("css selector", '.card[data-call-id="n"] .edit').click()
        area = browser.find_element("css selector", '.card[data-call-id="n"] textarea')
        area.clear()
        area.send_keys('{"title": "final", "text": "fixed"}')
        browser.find_element("css selector", '.card[data-call-id="n"] .run-edited').click()
        wait_for(browser, run_ended, what="the run to end")
    assert WriteNote.written == [{"title": "final", "text": "fixed"}]
    assert status(browser, "n") == "done"
    assert "The user edited this call's parameters" in model.requests[1].messages[-1].text


def test_stop_cancels_the_run_while_a_gadget_runs(browser: Any, tmp_path: Path) -> None:
    gate = Gate()  # never opened: only Stop ends the call
    script = [block_call("fetch", invocation_id="slow", url="https://example.org/slow"), "never sent"]
    model = MockModel(script, chunk_size=20)
    with serving(to_asgi(Agent(model=model, gadgets=[gated(gate)]), sessions=tmp_path / "s.db")) as url:
        browser.get(url)
        send(browser, "fetch the slow page")
        wait_for(browser, lambda b: status(b, "slow") == "running", what="the call to run")
        browser.find_element("id", "stop").click()
        wait_for(browser, run_ended, what="the run to end")
        gate.open()  # lets the cancelled gadget's worker thread finish
    assert browser.find_element("css selector", ".run-end").text == "Stopped"
    assert status(browser, "slow") == "cancelled"
    assert browser.find_element("id", "stop").is_displayed() is False
    assert len(model.requests) == 1


XSS = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">'


def test_what_the_model_and_gadgets_write_shows_as_text_never_as_markup(browser: Any, tmp_path: Path) -> None:
    script = ["Look: " + XSS + "\n" + block_call("echo", invocation_id="x", text=XSS), "Again: " + XSS]
    model = MockModel(script, chunk_size=7, delay_s=0.005)
    with serving(to_asgi(Agent(model=model, gadgets=[echo]), sessions=tmp_path / "s.db")) as url:
        browser.get(url)
        send(browser, XSS)
        wait_for(browser, run_ended, what="the run to end")
        browser.refresh()  # the stored conversation, rendered from history, is escaped too
        wait_for(browser, lambda b: len(b.find_elements("css selector", ".msg.assistant")) == 2, what="the history")
        assert browser.execute_script("return window.__pwned") is None
        assert browser.find_elements("css selector", "#transcript script, #transcript img") == []
        texts = [m.text for m in browser.find_elements("css selector", ".msg")]
    assert texts == [XSS, "Look: " + XSS, "Again: " + XSS]
    card = browser.find_element("css selector", '.card[data-call-id="x"]')
    assert card.find_element("css selector", ".arg .value").text == XSS
    assert card.find_element("css selector", ".result").text == XSS


def test_the_screenshot_in_the_docs_is_the_page_with_calls_waiting_running_and_needing_approval(
    browser: Any, tmp_path: Path
) -> None:
    """Takes docs/images/web-page.png; the committed copy is replaced when LLMIST_SCREENSHOT=1."""
    gate = Gate()
    script = [
        "I'll fetch both pages at once, then save a summary note.\n"
        + block_call("fetch", invocation_id="a", url="https://example.org/a")
        + block_call("fetch", invocation_id="b", url="https://example.org/b")
        + block_call("WriteNote", invocation_id="note", deps=["a", "b"], title="Summary", text="a: hello\nb: world"),
        "Saved the note.",
    ]
    agent = Agent(model=MockModel(script, chunk_size=12, delay_s=0.01), gadgets=[gated(gate), WriteNote()])
    shot = tmp_path / "web-page.png"
    with serving(to_asgi(agent, sessions=tmp_path / "s.db")) as url:
        browser.get(url)
        send(browser, "Summarise pages a and b into a note")
        wait_for(browser, lambda b: status(b, "note") == "waiting", what="the note to wait for a and b")
        gate.open()
        wait_for(browser, lambda b: status(b, "note") == "awaiting_approval", what="the note to need approval")
        browser.save_screenshot(str(shot))
        browser.find_element("css selector", ".approve").click()
        wait_for(browser, run_ended, what="the run to end")
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    if os.environ.get("LLMIST_SCREENSHOT") == "1" or not SCREENSHOT.exists():
        SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shot, SCREENSHOT)
