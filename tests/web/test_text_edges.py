"""The web app sends a lone surrogate of a model's answer as U+FFFD, the rule for all text leaving
the process: the event stream and the stored conversation stay readable JSON."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2

from llmist import Agent
from llmist.testing import MockModel
from llmist.web import to_asgi
from tests.web.servers import serving


def _events(response: httpx2.Response) -> Iterator[dict[str, Any]]:
    for line in response.iter_lines():
        if line.startswith("data: "):
            yield json.loads(line[6:])


def test_a_lone_surrogate_in_an_answer_reaches_the_page_as_a_replacement_character(tmp_path: Path) -> None:
    agent = Agent(model=MockModel(["bad \ud800 text"]))
    body = {"threadId": "t1", "runId": "r1", "messages": [{"id": "m1", "role": "user", "content": "hi"}]}
    with (
        serving(to_asgi(agent, sessions=tmp_path / "s.db")) as url,
        httpx2.Client(base_url=url, timeout=20) as client,
    ):
        with client.stream("POST", "/agui", json=body) as response:
            assert response.status_code == 200
            events = list(_events(response))
        thread = client.get("/api/threads/t1")
    assert events[-1]["type"] == "RUN_FINISHED"
    text = "".join(e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")
    assert text == "bad \ufffd text"
    assert thread.status_code == 200
    assert thread.json()["messages"][-1]["content"] == "bad \ufffd text"


def test_a_prompt_holding_a_lone_surrogate_escape_is_refused_and_the_server_goes_on(tmp_path: Path) -> None:
    agent = Agent(model=MockModel(["ok"]))
    raw = b'{"threadId": "t2", "runId": "r1", "messages": [{"id": "m1", "role": "user", "content": "hi \\ud800"}]}'
    with (
        serving(to_asgi(agent, sessions=tmp_path / "s.db")) as url,
        httpx2.Client(base_url=url, timeout=20) as client,
    ):
        refused = client.post("/agui", content=raw, headers={"content-type": "application/json"})
        threads = client.get("/api/threads")
    assert refused.status_code == 422 and "hex escape" in refused.text
    assert threads.status_code == 200 and threads.json() == {"threads": []}
