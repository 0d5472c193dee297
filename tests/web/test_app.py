"""The app over real HTTP (uvicorn on loopback): the AG-UI endpoint, conversations, stop, approvals."""

from __future__ import annotations

import base64
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from llmist import Agent
from llmist.agent import Hooks, Observers
from llmist.providers.base import ImagePart
from llmist.testing import MockModel, block_call
from llmist.web import InProcessApprovals, to_asgi
from tests.web.scripted import Gate, WriteNote, echo, gated
from tests.web.servers import serving

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


def run_input(thread: str, run: str, content: Any = "hello") -> dict[str, Any]:
    return {"threadId": thread, "runId": run, "messages": [{"id": "m1", "role": "user", "content": content}]}


def events_of(response: httpx2.Response) -> Iterator[dict[str, Any]]:
    for line in response.iter_lines():
        if line.startswith("data: "):
            yield json.loads(line[6:])


def post_run(client: httpx2.Client, body: dict[str, Any]) -> list[dict[str, Any]]:
    with client.stream("POST", "/agui", json=body) as response:
        assert response.status_code == 200, response.read()
        assert response.headers["content-type"].startswith("text/event-stream")
        return list(events_of(response))


@pytest.fixture
def echo_app(tmp_path: Path) -> Iterator[httpx2.Client]:
    script = ["Echo.\n" + block_call("echo", invocation_id="e", text="hi"), "It said hi."]
    agent = Agent(model=MockModel(script * 3, chunk_size=8), gadgets=[echo])
    with serving(to_asgi(agent, sessions=tmp_path / "s.db")) as url, httpx2.Client(base_url=url, timeout=20) as c:
        yield c


def test_an_agui_run_streams_its_events_over_sse(echo_app: httpx2.Client) -> None:
    events = post_run(echo_app, run_input("t1", "r1"))
    kinds = [e["type"] for e in events]
    assert kinds[0] == "RUN_STARTED" and kinds[-1] == "RUN_FINISHED"
    assert {"TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "TOOL_CALL_RESULT", "STEP_STARTED"} <= set(kinds)
    statuses = [
        op["value"]["status"]
        for e in events
        if e["type"] == "STATE_DELTA"
        for op in e["delta"]
        if op["path"] == "/calls/e"
    ]
    assert "running" in statuses, "the app reports a call's start (on_gadget_start)"


def test_the_app_never_changes_the_agent_it_serves_and_runs_its_hooks_beside_the_pages(tmp_path: Path) -> None:
    script = ["Echo.\n" + block_call("echo", invocation_id="e", text="hi"), "It said hi."]
    agent = Agent(model=MockModel(script, chunk_size=8), gadgets=[echo])
    spec = agent.spec
    app = to_asgi(agent, sessions=tmp_path / "s.db")
    assert agent.spec is spec  # the page's hooks and each conversation's session are run overrides
    seen: list[str] = []
    mine = Hooks(observers=Observers(on_gadget_start=lambda ctx: seen.append(ctx.gadget_name)))
    agent.hooks = mine  # assigned after the app was made: its runs take it too
    with serving(app) as url, httpx2.Client(base_url=url, timeout=20) as c:
        events = post_run(c, run_input("t1", "r1"))
    assert events[-1]["type"] == "RUN_FINISHED"
    assert any(e["type"] == "STATE_DELTA" for e in events), "the page's hooks ran"
    assert seen == ["echo"]
    assert agent.hooks is mine and agent.session is None


def test_the_conversation_is_listed_and_read_back_as_agui_messages(echo_app: httpx2.Client) -> None:
    post_run(echo_app, run_input("chat-1", "r1", "first question"))
    assert echo_app.get("/api/threads").json() == {"threads": [{"id": "chat-1", "live": False}]}
    view = echo_app.get("/api/threads/chat-1").json()
    roles = [m["role"] for m in view["messages"]]
    assert roles == ["user", "assistant", "assistant", "tool", "assistant"]
    assert view["messages"][2]["toolCalls"][0]["function"] == {"name": "echo", "arguments": '{"text": "hi"}'}
    assert view["messages"][3] == {"id": view["messages"][3]["id"], "role": "tool", "toolCallId": "e", "content": "hi"}
    assert view["calls"]["e"]["status"] == "done" and view["liveRun"] is None


def test_a_second_run_continues_the_stored_conversation(echo_app: httpx2.Client) -> None:
    post_run(echo_app, run_input("chat-1", "r1", "first"))
    post_run(echo_app, run_input("chat-1", "r2", "second"))
    users = [m["content"] for m in echo_app.get("/api/threads/chat-1").json()["messages"] if m["role"] == "user"]
    assert users == ["first", "second"]


def test_an_input_that_is_not_run_agent_input_is_refused_naming_what_is_wrong(echo_app: httpx2.Client) -> None:
    response = echo_app.post("/agui", json={"threadId": "t"})
    assert response.status_code == 422 and "RunAgentInput" in response.json()["error"]
    response = echo_app.post("/agui", json=run_input("bad id/../x", "r"))
    assert response.status_code == 400 and "threadId" in response.json()["error"]


def test_a_user_image_reaches_the_model(tmp_path: Path) -> None:
    model = MockModel(["A dot."])
    with serving(to_asgi(Agent(model=model), sessions=tmp_path / "s.db")) as url, httpx2.Client(base_url=url) as c:
        image = {
            "type": "image",
            "source": {"type": "data", "value": base64.b64encode(PNG).decode(), "mimeType": "image/png"},
        }
        post_run(c, run_input("t", "r", [{"type": "text", "text": "What is this?"}, image]))
    parts = model.requests[0].messages[-1].content
    assert isinstance(parts, tuple) and any(isinstance(p, ImagePart) and p.data == PNG for p in parts)


def test_a_second_run_of_a_busy_conversation_is_refused_and_stop_ends_the_first(tmp_path: Path) -> None:
    gate = Gate()
    agent = Agent(model=MockModel([block_call("fetch", invocation_id="f", url="u"), "ok"]), gadgets=[gated(gate)])
    with serving(to_asgi(agent, sessions=tmp_path / "s.db")) as url, httpx2.Client(base_url=url, timeout=20) as c:
        with c.stream("POST", "/agui", json=run_input("busy", "r1")) as first:
            events = events_of(first)
            next(e for e in events if e["type"] == "TOOL_CALL_END")
            assert c.post("/agui", json=run_input("busy", "r2")).status_code == 409
            assert c.get("/api/threads").json()["threads"] == [{"id": "busy", "live": True}]
            assert c.post("/api/runs/r1/stop").json() == {"stopping": "r1"}
            last = [e for e in events][-1]
        gate.open()
    assert last["type"] == "RUN_FINISHED" and last["outcome"] == {"type": "cancelled"}


def test_a_decision_is_posted_for_a_call_that_waits_in_its_run_and_an_unknown_one_is_refused(tmp_path: Path) -> None:
    WriteNote.written.clear()
    script = [block_call("WriteNote", invocation_id="n", title="t", text="x"), "ok"]
    agent = Agent(model=MockModel(script), gadgets=[WriteNote()])
    app = to_asgi(agent, sessions=tmp_path / "s.db", approvals=InProcessApprovals())  # the run waits
    with serving(app) as url, httpx2.Client(base_url=url, timeout=20) as c:
        with c.stream("POST", "/agui", json=run_input("a", "r1")) as response:
            events = events_of(response)
            asked = next(e for e in events if e["type"] == "CUSTOM")
            assert asked["name"] == "llmist.approval_requested" and asked["value"]["toolCallId"] == "n"
            assert asked["value"]["parameters"] == {"title": "t", "text": "x"}
            unknown = c.post("/api/runs/r1/approvals/nope", json={"action": "approve"})
            assert unknown.status_code == 404 and "no call 'nope'" in unknown.json()["error"]
            bad = c.post("/api/runs/r1/approvals/n", json={"action": "maybe"})
            assert bad.status_code == 422 and "'approve', 'edit' or 'deny'" in bad.json()["error"]
            typo = c.post("/api/runs/r1/approvals/n", json={"action": "edit", "parameters": {"txt": "y"}})
            assert typo.status_code == 422 and "has no parameter 'txt'; its parameters: title, text" in typo.text
            assert c.post("/api/runs/r1/approvals/n", json={"action": "approve"}).json() == {"decided": "approve"}
            assert [e for e in events][-1]["type"] == "RUN_FINISHED"
        again = c.post("/api/runs/r1/approvals/n", json={"action": "approve"})
    assert again.status_code == 404
    assert WriteNote.written == [{"title": "t", "text": "x"}]


def test_a_call_that_waits_in_the_session_is_decided_on_its_conversation_which_resumes(tmp_path: Path) -> None:
    WriteNote.written.clear()
    script = [block_call("WriteNote", invocation_id="n", title="t", text="x"), "Noted."]
    agent = Agent(model=MockModel(script), gadgets=[WriteNote()])
    with serving(to_asgi(agent, sessions=tmp_path / "s.db")) as url, httpx2.Client(base_url=url, timeout=20) as c:
        events = post_run(c, run_input("a", "r1"))
        asked = next(e for e in events if e["type"] == "CUSTOM")
        assert (
            asked["value"]["threadId"] == "a"
            and asked["value"]["reason"] == "WriteNote needs a person's approval for each call"
        )
        assert events[-1]["type"] == "RUN_FINISHED" and events[-1]["result"]["stopReason"] == "awaiting_approval"
        assert WriteNote.written == []
        view = c.get("/api/threads/a").json()
        assert view["calls"]["n"]["status"] == "awaiting_approval" and view["calls"]["n"]["threadId"] == "a"
        unknown = c.post("/api/threads/a/approvals/nope", json={"action": "approve"})
        assert (
            unknown.status_code == 404 and "no call 'nope' waits for a decision; the calls that do: n" in unknown.text
        )
        typo = c.post("/api/threads/a/approvals/n", json={"action": "edit", "parameters": {"titel": "u"}})
        assert typo.status_code == 422 and "has no parameter 'titel'" in typo.text  # and the call still waits
        decided = c.post("/api/threads/a/approvals/n", json={"action": "approve"}).json()
        assert decided["decided"] == "approve" and decided["resumed"].startswith("run-")
        with c.stream("GET", f"/api/threads/a/live?run={decided['resumed']}") as response:
            resumed = list(events_of(response))
        twice = c.post("/api/threads/a/approvals/n", json={"action": "deny"})
    assert resumed[0]["type"] == "RUN_STARTED" and resumed[-1]["result"]["output"] == "Noted."
    assert twice.status_code == 404
    assert WriteNote.written == [{"title": "t", "text": "x"}]


def test_two_conversations_run_at_once_without_seeing_each_others_calls(tmp_path: Path) -> None:
    gate = Gate()

    def respond(messages: Any) -> str:  # each conversation: one call, then an answer
        return block_call("fetch", url="u") if messages[-1].role == "user" else "ok"

    agent = Agent(model=MockModel(respond), gadgets=[gated(gate)])
    results: dict[str, list[dict[str, Any]]] = {}
    with serving(to_asgi(agent, sessions=tmp_path / "s.db")) as url:

        def run(thread: str) -> None:
            with httpx2.Client(base_url=url, timeout=20) as c:
                results[thread] = post_run(c, run_input(thread, "run-" + thread))

        workers = [threading.Thread(target=run, args=(t,)) for t in ("one", "two")]
        for w in workers:
            w.start()
        deadline = time.monotonic() + 20
        with httpx2.Client(base_url=url) as c:
            while {t["id"] for t in c.get("/api/threads").json()["threads"] if t["live"]} != {"one", "two"}:
                assert time.monotonic() < deadline, "both conversations should be live at once"
        gate.open()
        for w in workers:
            w.join()
    for thread, events in results.items():
        starts = [e["toolCallId"] for e in events if e["type"] == "TOOL_CALL_START"]
        assert len(starts) == 1 and events[-1]["type"] == "RUN_FINISHED", thread
        assert all(e.get("threadId", thread) == thread for e in events)


def test_a_run_that_cannot_start_is_refused_with_the_reason(tmp_path: Path) -> None:
    blind = Agent(model=MockModel(["no"], vision=False))
    with serving(to_asgi(blind, sessions=tmp_path / "s.db")) as url, httpx2.Client(base_url=url) as c:
        image = {
            "type": "image",
            "source": {"type": "data", "value": base64.b64encode(PNG).decode(), "mimeType": "image/png"},
        }
        no_images = c.post("/agui", json=run_input("t", "r", [{"type": "text", "text": "see?"}, image]))
        empty = c.post("/agui", json={"threadId": "new", "runId": "r", "messages": []})
        not_an_image = {"type": "image", "source": {"type": "data", "value": "aGk=", "mimeType": "text/html"}}
        wrong_type = c.post("/agui", json=run_input("t", "r", [not_an_image]))
    assert no_images.status_code == 422 and "image" in no_images.json()["error"]
    assert empty.status_code == 422 and "needs a user message" in empty.json()["error"]
    assert wrong_type.status_code == 422
