"""The page in a real browser: text and arguments stream in while the model writes."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest

from llmist import Agent, GadgetResult, gadget
from llmist.gadgets import GadgetMedia
from llmist.providers.base import ImagePart
from llmist.testing import MockModel, block_call
from llmist.web import to_asgi
from tests.web.browser import send, wait_for
from tests.web.scripted import echo
from tests.web.servers import serving

pytestmark = pytest.mark.slow

# Records, on every change of the page, how long the first answer's text is and each card's
# arguments with its status: what the page showed while the stream was open.
RECORDER = """
window.__seen = [];
new MutationObserver(() => {
  const msg = document.querySelector('.msg.assistant');
  const card = document.querySelector('.card');
  window.__seen.push({
    text: msg ? msg.textContent.length : 0,
    args: card ? card.querySelector('.args').textContent.length : 0,
    status: card ? card.dataset.status || '' : '',
    running: !document.getElementById('stop').hidden,
  });
}).observe(document.getElementById('transcript'),
           {subtree: true, childList: true, characterData: true, attributes: true});
"""


def test_the_answer_streams_into_the_page_as_the_model_writes(browser: Any, tmp_path: Path) -> None:
    answer = "Streaming arrives a few characters at a time, so a person reads while the model writes."
    agent = Agent(model=MockModel([answer], chunk_size=6, delay_s=0.03))
    with serving(to_asgi(agent, sessions=tmp_path / "s.db")) as url:
        browser.get(url)
        browser.execute_script(RECORDER)
        send(browser, "Tell me about streaming")
        wait_for(browser, lambda b: "Done" in b.find_element("id", "transcript").text, what="the run to end")
        seen = browser.execute_script("return window.__seen")
    assert browser.find_elements("css selector", ".msg.assistant")[0].text == answer
    partial = {s["text"] for s in seen if 0 < s["text"] < len(answer) and s["running"]}
    assert len(partial) >= 3, seen


def test_a_cards_arguments_grow_while_the_call_is_being_written(browser: Any, tmp_path: Path) -> None:
    text = "\n".join(f"line {i} of the note" for i in range(12))
    model = MockModel([block_call("echo", invocation_id="e1", text=text), "Echoed."], chunk_size=10, delay_s=0.02)
    with serving(to_asgi(Agent(model=model, gadgets=[echo]), sessions=tmp_path / "s.db")) as url:
        browser.get(url)
        browser.execute_script(RECORDER)
        send(browser, "echo a note")
        wait_for(browser, lambda b: "Done" in b.find_element("id", "transcript").text, what="the run to end")
        seen = browser.execute_script("return window.__seen")
    card = browser.find_element("css selector", '.card[data-call-id="e1"]')
    assert card.get_attribute("data-status") == "done"
    assert card.find_element("css selector", '.arg[data-key="text"] .value').text == text
    growing = sorted({s["args"] for s in seen if s["status"] == "streaming" and s["args"] > 0})
    assert len(growing) >= 3, seen


PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


@gadget(description="Draw a dot.")
def draw() -> GadgetResult:
    return GadgetResult("a dot", media=[GadgetMedia(PNG, "image/png", "dot.png")])


def test_an_image_goes_in_with_the_message_and_a_gadgets_image_comes_out_in_its_card(
    browser: Any, tmp_path: Path
) -> None:
    picture = tmp_path / "in.png"
    picture.write_bytes(PNG)
    model = MockModel([block_call("draw", invocation_id="d"), "Drawn."])
    with serving(to_asgi(Agent(model=model, gadgets=[draw]), sessions=tmp_path / "s.db")) as url:
        browser.get(url)
        browser.find_element("id", "image").send_keys(str(picture))
        wait_for(browser, lambda b: b.find_element("id", "attached").text == "in.png", what="the attachment")
        send(browser, "What is this? Draw one too.")
        wait_for(browser, lambda b: "Done" in b.find_element("id", "transcript").text, what="the run to end")
        sent = browser.find_elements("css selector", ".msg.user img")
        drawn = browser.find_elements("css selector", '.card[data-call-id="d"] .result img')
        assert len(sent) == 1 and len(drawn) == 1
        assert browser.execute_script("return arguments[0].naturalWidth", drawn[0]) == 1
    parts = model.requests[0].messages[-1].content
    assert isinstance(parts, tuple) and any(isinstance(p, ImagePart) and p.data == PNG for p in parts)
