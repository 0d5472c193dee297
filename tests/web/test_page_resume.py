"""The page in a real browser: a reload, and a restarted server, resume the conversation."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from llmist import Agent
from llmist.agent import SQLiteSession
from llmist.testing import MockModel, block_call
from llmist.web import to_asgi
from tests.web.browser import send, status, wait_for
from tests.web.scripted import Gate, echo, gated
from tests.web.servers import llmist_web, serving

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "web"


def transcript(browser: Any) -> list[str]:
    """The messages, and each card's gadget, id, status, arguments and result (durations and
    costs are not part of a stored conversation)."""
    parts = "#transcript .msg, .card .name, .card .iid, .card .status, .card .args, .card .result"
    return [n.text for n in browser.find_elements("css selector", parts)]


def test_a_reloaded_page_shows_the_finished_conversation_again(browser: Any, tmp_path: Path) -> None:
    script = ["Echoing it.\n" + block_call("echo", invocation_id="e", text="hello\nworld"), "It said hello world."]
    agent = Agent(model=MockModel(script, chunk_size=9, delay_s=0.005), gadgets=[echo])
    with serving(to_asgi(agent, sessions=tmp_path / "s.db")) as url:
        browser.get(url)
        send(browser, "echo hello world")
        wait_for(browser, lambda b: b.find_elements("css selector", ".run-end"), what="the run to end")
        before = transcript(browser)
        browser.refresh()
        wait_for(browser, lambda b: status(b, "e") == "done", what="the stored call")
        after = transcript(browser)
    assert after == before
    assert "?thread=chat-" in browser.current_url


def test_a_page_reloaded_during_a_run_follows_it_to_the_end(browser: Any, tmp_path: Path) -> None:
    gate = Gate()
    script = [block_call("fetch", invocation_id="f", url="https://example.org"), "Fetched."]
    agent = Agent(model=MockModel(script, chunk_size=15), gadgets=[gated(gate)])
    with serving(to_asgi(agent, sessions=tmp_path / "s.db")) as url:
        browser.get(url)
        send(browser, "fetch it")
        wait_for(browser, lambda b: status(b, "f") == "running", what="the call to run")
        browser.refresh()
        wait_for(browser, lambda b: status(b, "f") == "running", what="the replayed call")
        assert browser.find_elements("css selector", ".msg.user")[0].text == "fetch it"
        assert browser.find_element("id", "stop").is_displayed()
        gate.open()
        wait_for(browser, lambda b: b.find_elements("css selector", ".run-end"), what="the run to end")
    assert status(browser, "f") == "done"
    assert browser.find_elements("css selector", ".msg.assistant")[-1].text == "Fetched."


def test_a_restarted_server_lists_the_conversation_and_continues_it(browser: Any, tmp_path: Path) -> None:
    db = tmp_path / "conversations.db"
    common = ["-g", str(EXAMPLES / "tools.py"), "--session-db", str(db)]
    with llmist_web(["-m", f"mock:{EXAMPLES / 'capitals.json'}", *common], cwd=tmp_path) as url:
        browser.get(url)
        send(browser, "Capitals of France and Japan?")
        wait_for(browser, lambda b: status(b, "note") == "awaiting_approval", what="the note to need approval")
        browser.find_element("css selector", '.card[data-call-id="note"] .approve').click()
        wait_for(browser, lambda b: b.find_elements("css selector", ".run-end"), what="the run to end")
        first = transcript(browser)
    thread = browser.current_url.split("thread=")[1]
    second = tmp_path / "second.json"
    second.write_text(json.dumps({"turns": ["You asked about France and Japan: Paris and Tokyo."]}))
    with llmist_web(["-m", f"mock:{second}", *common], cwd=tmp_path) as url:
        browser.get(url)  # a new address: the page starts on no conversation
        item = wait_for(
            browser,
            lambda b: b.find_elements("css selector", f'#threads li[data-thread-id="{thread}"]'),
            what="sidebar",
        )
        item[0].click()
        wait_for(browser, lambda b: status(b, "note") == "done", what="the stored conversation")
        assert transcript(browser) == first[: len(transcript(browser))]
        send(browser, "What did I ask?")
        wait_for(browser, lambda b: len(b.find_elements("css selector", ".run-end")) == 1, what="the second run")
    stored = asyncio.run(SQLiteSession(db, thread).load())
    prompts = [m.text for m in stored if m.role == "user"]
    assert prompts == ["Capitals of France and Japan?", "What did I ask?"]
    assert stored[-1].text == "You asked about France and Japan: Paris and Tokyo."


def test_a_call_waiting_for_approval_is_decided_after_a_server_restart(browser: Any, tmp_path: Path) -> None:
    db = tmp_path / "conversations.db"
    common = ["-g", str(EXAMPLES / "tools.py"), "--session-db", str(db)]
    first = ["-m", f"mock:{EXAMPLES / 'capitals.json'}", *common]
    with llmist_web(first, cwd=tmp_path, killed=True) as url:
        browser.get(url)
        send(browser, "Capitals of France and Japan?")
        wait_for(browser, lambda b: status(b, "note") == "awaiting_approval", what="the note to need approval")
        wait_for(browser, lambda b: b.find_elements("css selector", ".run-paused"), what="the run to pause")
        page = browser.current_url
    # The server was killed (SIGKILL: no shutdown); the call waits in the session. A new server
    # (its scripted model starts at the answer that follows the note), the same conversation:
    second = tmp_path / "second.json"
    second.write_text(json.dumps({"turns": ["The capitals are Paris and Tokyo; I saved them in a note."]}))
    with llmist_web(["-m", f"mock:{second}", *common], cwd=tmp_path) as url:
        browser.get(url + "/?" + page.split("?", 1)[1])
        wait_for(browser, lambda b: status(b, "note") == "awaiting_approval", what="the stored call to wait again")
        assert (
            "Needs your approval" in browser.find_element("css selector", '.card[data-call-id="note"] .approval').text
        )
        browser.find_element("css selector", '.card[data-call-id="note"] .approve').click()
        wait_for(browser, lambda b: status(b, "note") == "done", what="the approved call to run")
        wait_for(browser, lambda b: b.find_elements("css selector", ".run-end"), what="the resumed run to end")
    thread = page.split("thread=")[1]
    stored = asyncio.run(SQLiteSession(db, thread).load())
    note = [m for m in stored if getattr(m, "invocation_id", "") == "note"]
    assert len(note) == 1 and not note[0].is_error  # type: ignore[attr-defined]
    assert asyncio.run(SQLiteSession(db, thread).pending()) == []
