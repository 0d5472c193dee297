"""The guide's examples run, each against a fake server, and the guide shows them verbatim."""

from __future__ import annotations

import re
import runpy
from pathlib import Path

import pytest

from tests.providers.fake_servers import FakeServer, anthropic_error, anthropic_stream, gemini_stream, openai_stream

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "providers"


def _run(name: str) -> None:
    runpy.run_path(str(EXAMPLES / name), run_name="__main__")


def test_complete_example(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    with FakeServer([openai_stream(["2, 3, 5"])]) as server:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        monkeypatch.setenv("OPENAI_BASE_URL", f"{server.base_url}/v1")
        _run("complete.py")
    assert "2, 3, 5" in capsys.readouterr().out


def test_streaming_example(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    with FakeServer([anthropic_stream(["Water ", "runs"], model="claude-sonnet-5-5")]) as server:
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        _run("streaming.py")
    assert "Water runs" in capsys.readouterr().out


def test_local_ollama_example(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    with FakeServer([openai_stream(["Bonjour"])]) as server:
        monkeypatch.setenv("OLLAMA_BASE_URL", f"{server.base_url}/v1")
        _run("local_ollama.py")
    assert "Bonjour" in capsys.readouterr().out
    assert "authorization" in server.requests[0].headers


def test_gemini_chunks_example(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    with FakeServer([gemini_stream(["Paris"], thoughts=["easy"])]) as server:
        monkeypatch.setenv("GEMINI_API_KEY", "gm-test")
        monkeypatch.setenv("GEMINI_BASE_URL", server.base_url)
        _run("gemini_chunks.py")
    out = capsys.readouterr().out
    assert "[thinking] easy" in out and "Paris" in out and "finish: stop" in out


def test_reliability_example(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    script = [openai_stream(["Hamlet "], cut_after=2)]
    with FakeServer(script) as server:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        monkeypatch.setenv("OPENAI_BASE_URL", f"{server.base_url}/v1")
        _run("reliability.py")
    assert "The stream broke; this much arrived: 'Hamlet '" in capsys.readouterr().out


def test_fallback_example(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    overloaded = anthropic_error(529, "Overloaded", headers={"retry-after": "0"})
    script = [openai_stream(["2, 3 and 5."], model="gpt-4o-mini"), openai_stream(["7, 11, 13"], model="gpt-4o-mini")]
    with FakeServer([overloaded] * 5) as claude, FakeServer(script) as gpt:
        _serve_anthropic(claude, monkeypatch)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        monkeypatch.setenv("OPENAI_BASE_URL", f"{gpt.base_url}/v1")
        _run("fallback.py")
    out = capsys.readouterr().out
    assert "2, 3 and 5." in out
    assert "anthropic:claude-sonnet-5-5 failed (ProviderOverloadedError: anthropic returned HTTP 529" in out
    assert "openai:gpt-4o-mini answered" in out and "openai:gpt-4o-mini: 1 response(s)" in out
    assert "7, 11, 13\n(answered by openai:gpt-4o-mini)" in out
    assert len(claude.requests) == 5  # its own retries, once: the second request went straight on


def test_costs_example(capsys: pytest.CaptureFixture[str]) -> None:
    _run("costs.py")
    assert "my-finetune: $0.002720" in capsys.readouterr().out


def _serve_anthropic(server: FakeServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)


def test_reasoning_example(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    stream = anthropic_stream(
        ["No: 221 = 13 × 17."], thinking=["Try 13: 13 × 17 = 221."], output_tokens=500, thinking_tokens=400
    )
    with FakeServer([stream]) as server:
        _serve_anthropic(server, monkeypatch)
        _run("reasoning.py")
    out = capsys.readouterr().out
    assert "[thinking] Try 13: 13 × 17 = 221." in out and "No: 221 = 13 × 17." in out
    assert "reasoning tokens: 400 of 500 output" in out
    assert server.requests[0].body["output_config"] == {"effort": "high"}


def test_caching_example(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    call = "!!!GADGET_START:add\n!!!ARG:a\n2\n!!!ARG:b\n3\n!!!GADGET_END\n"
    script = [
        anthropic_stream([call], input_tokens=50, cache_creation_input_tokens=1500),
        anthropic_stream(["5"], input_tokens=60, cache_read_input_tokens=1500),
    ]
    with FakeServer(script) as server:
        _serve_anthropic(server, monkeypatch)
        _run("caching.py")
    out = capsys.readouterr().out
    assert "input tokens: 3110, read from cache: 1500" in out
    assert "written to cache: 1500" in out


def test_native_tools_example(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    call = ("call_1", "add", '{"a": 2, "b": 3}')
    script = [openai_stream([], tool_calls=[call], finish_reason="tool_calls"), openai_stream(["2 + 3 = 5"])]
    with FakeServer(script) as server:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        monkeypatch.setenv("OPENAI_BASE_URL", f"{server.base_url}/v1")
        _run("native_tools.py")
    out = capsys.readouterr().out
    assert 'call call_1: add({"a": 2, "b": 3})' in out and "2 + 3 = 5" in out
    assert server.requests[1].body["messages"][-1] == {"role": "tool", "tool_call_id": "call_1", "content": "5"}


def test_guide_shows_every_example_verbatim() -> None:
    guide = (ROOT / "docs" / "providers.md").read_text()
    shown = re.findall(r"```python same-as=(\S+)\n(.*?)```", guide, flags=re.DOTALL)
    assert {name for name, _ in shown} == {f"examples/providers/{p.name}" for p in EXAMPLES.glob("*.py")}
    for name, code in shown:
        assert code == (ROOT / name).read_text(), name
