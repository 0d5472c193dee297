"""Who may use the page: loopback by default, a token for anything else, no cross-origin requests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from llmist import Agent
from llmist.testing import MockModel
from llmist.web import WebSecurityError, check_exposure, is_loopback, to_asgi
from tests.cli.helpers import llmist
from tests.web.servers import serving

TOKEN = "s3cret-token"
RUN = {"threadId": "t", "runId": "r", "messages": [{"id": "m", "role": "user", "content": "hi"}]}


@pytest.fixture
def with_token(tmp_path: Path) -> Iterator[str]:
    app = to_asgi(Agent(model=MockModel(["hello"] * 5)), sessions=tmp_path / "s.db", token=TOKEN)
    with serving(app) as url:
        yield url


@pytest.fixture
def without_token(tmp_path: Path) -> Iterator[str]:
    with serving(to_asgi(Agent(model=MockModel(["hello"] * 5)), sessions=tmp_path / "s.db")) as url:
        yield url


@pytest.mark.parametrize(("method", "path"), [("GET", "/api/threads"), ("GET", "/api/info"), ("POST", "/agui")])
def test_a_request_without_the_token_is_refused(with_token: str, method: str, path: str) -> None:
    response = httpx2.request(method, with_token + path, json=RUN)
    assert response.status_code == 401
    assert "Authorization: Bearer <token>" in response.json()["error"]


def test_a_request_with_a_wrong_token_is_refused(with_token: str) -> None:
    response = httpx2.get(with_token + "/api/threads", headers={"Authorization": "Bearer nope"})
    assert response.status_code == 401


def test_a_request_with_the_token_is_served_and_the_page_itself_needs_none(with_token: str) -> None:
    auth = {"Authorization": f"Bearer {TOKEN}"}
    assert httpx2.get(with_token + "/api/threads", headers=auth).json() == {"threads": []}
    with httpx2.stream("POST", with_token + "/agui", json=RUN, headers=auth) as response:
        assert response.status_code == 200 and "RUN_FINISHED" in response.read().decode()
    assert httpx2.get(with_token + "/").status_code == 200
    assert httpx2.get(with_token + "/static/app.js").status_code == 200


def test_without_a_token_a_request_naming_another_host_is_refused(without_token: str) -> None:
    # A page whose domain name was rebound to 127.0.0.1 sends its own name as Host.
    response = httpx2.get(without_token + "/api/threads", headers={"Host": "attacker.example"})
    assert response.status_code == 403 and "not a loopback name" in response.json()["error"]
    assert httpx2.get(without_token + "/api/threads", headers={"Host": "localhost"}).status_code == 200


def test_a_request_from_another_origin_is_refused(without_token: str) -> None:
    response = httpx2.post(without_token + "/agui", json=RUN, headers={"Origin": "https://evil.example"})
    assert response.status_code == 403 and "another origin" in response.json()["error"]
    same = httpx2.get(without_token + "/api/threads", headers={"Origin": without_token})
    assert same.status_code == 200


def test_every_response_forbids_inline_scripts_and_framing(without_token: str) -> None:
    headers = httpx2.get(without_token + "/").headers
    assert "script-src 'self'" in headers["content-security-policy"]
    assert "frame-ancestors 'none'" in headers["content-security-policy"]
    assert headers["x-content-type-options"] == "nosniff"


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "::1", "[::1]", "127.8.9.10"])
def test_loopback_addresses_are_loopback(host: str) -> None:
    assert is_loopback(host)


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.4", "example.org", "::"])
def test_other_addresses_are_not(host: str) -> None:
    assert not is_loopback(host)


def test_serving_on_another_address_without_a_token_is_refused() -> None:
    with pytest.raises(WebSecurityError, match=r"refusing to serve the agent on '0\.0\.0\.0' without a token"):
        check_exposure("0.0.0.0", None)
    check_exposure("0.0.0.0", TOKEN)
    check_exposure("127.0.0.1", None)


@pytest.mark.slow
def test_llmist_web_refuses_another_host_without_a_token_and_names_the_builtins(tmp_path: Path) -> None:
    result = llmist("web", "-m", "mock", "--builtins", "--root", str(tmp_path), "--host", "0.0.0.0", cwd=tmp_path)
    assert result.returncode == 2
    assert "without a token" in result.stderr and "--builtins" in result.stderr and "LLMIST_WEB_TOKEN" in result.stderr
