"""Who may call a served agent, and the bad requests a server gets."""

from __future__ import annotations

import httpx
import pytest

from llmist import Agent
from llmist.a2a import serve_a2a, to_a2a
from llmist.testing import MockModel
from llmist.web import WebSecurityError
from tests.a2a.remotes import asgi
from tests.web.servers import serving

CARD = "/.well-known/agent-card.json"


def agent(delay_s: float = 0.0) -> Agent:
    return Agent(
        model=MockModel(lambda _: "Hello there, how are you today?", chunk_size=4, delay_s=delay_s), name="greeter"
    )


async def test_without_a_token_a_request_naming_another_host_is_refused() -> None:
    async with asgi(to_a2a(agent())) as http:
        answer = await http.get(CARD, headers={"host": "agents.example.com"})
    assert answer.status_code == 403 and "loopback" in answer.json()["error"]


async def test_with_a_token_every_request_needs_it_the_card_too() -> None:
    async with asgi(to_a2a(agent(), token="s3cret")) as http:
        assert (await http.get(CARD)).status_code == 401
        assert (await http.post("/a2a", json={"jsonrpc": "2.0", "id": 1, "method": "GetTask"})).status_code == 401
        ok = await http.get(CARD, headers={"authorization": "Bearer s3cret", "host": "agents.example.com"})
    assert ok.status_code == 200 and ok.json()["name"] == "greeter"


def test_serving_off_loopback_without_a_token_is_refused_before_listening() -> None:
    with pytest.raises(WebSecurityError, match="without a token"):
        serve_a2a(agent(), host="0.0.0.0", port=0)


async def test_malformed_json_rpc_gets_a_parse_error() -> None:
    async with asgi(to_a2a(agent())) as http:
        answer = (await http.post("/a2a", content=b"{not json", headers={"content-type": "application/json"})).json()
    assert answer["error"]["code"] == -32700


async def test_an_unknown_method_gets_method_not_found() -> None:
    async with asgi(to_a2a(agent())) as http:
        answer = (await http.post("/a2a", json={"jsonrpc": "2.0", "id": 7, "method": "tasks/explode"})).json()
    assert answer["id"] == 7 and answer["error"]["code"] == -32601


async def test_a_body_past_the_limit_is_refused_with_413_unread() -> None:
    async with asgi(to_a2a(agent(), max_body_bytes=1000)) as http:
        answer = await http.post("/a2a", content=b"x" * 5000, headers={"content-type": "application/json"})
    assert answer.status_code == 413 and "1,000 bytes" in answer.json()["error"]


@pytest.mark.slow
def test_a_client_that_leaves_mid_stream_leaves_the_server_serving() -> None:
    app = to_a2a(agent(delay_s=0.05))
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "message/stream",
        "params": {"message": {"role": "user", "messageId": "m1", "parts": [{"kind": "text", "text": "hi"}]}},
    }
    with serving(app) as base:
        with httpx.Client(timeout=10) as http, http.stream("POST", base + "/a2a", json=body) as stream:
            first = next(stream.iter_lines())  # the task exists; then the client goes away
        assert first.startswith("data:")
        with httpx.Client(timeout=10) as http:
            card = http.get(base + CARD)
            answer = http.post(base + "/a2a", json={**body, "method": "message/send", "id": 2}).json()
        assert card.status_code == 200
        assert answer["result"]["status"]["state"] == "completed"
