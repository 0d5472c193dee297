"""The built-in suite's plain-function cases through llmist and its peers, on the same served model.

The peers (pinned in ``benchmarks/peers-requirements.txt``) run in their own venv beside llmist:

    python3 -m venv .venv-peers
    .venv-peers/bin/pip install -r benchmarks/peers-requirements.txt -e '.[openai]'
    make eval-setup                      # .venv-eval: the llama.cpp server (and its portable build)
    .venv-peers/bin/python benchmarks/eval_peers.py --model qwen1.5b --out benchmarks/results/peers-qwen1.5b.jsonl

Frameworks (``--framework``, repeatable; default all): ``smolagents-code`` (CodeAgent),
``smolagents-tools`` (ToolCallingAgent), ``pydantic-ai``, and ``llmist-block``, ``llmist-emoji``,
``llmist-native`` (a default ``Agent``). Each gets the same cases (the suite's categories that plain
function tools express: no dependencies between calls, no output viewer, no completion signal),
the same tools (the cases' gadgets as plain functions, validated by the gadget's schema), six
model calls at most, temperature 0, and the same server.

Tokens are counted by one meter for every framework: a proxy between the framework and the
server adds up what each request sends (messages and tool schemas) and what each response
returns, with the estimator llmist's eval uses (tiktoken's cl100k_base where installed).
``--table FILE...`` prints the table of earlier ``--out`` files without running anything.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import os
import sys
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from llmist.evals import BUILTIN_SUITE, CallRecord, CaseResult, EvalCase, grade, read_results, write_results
from llmist.evals.local import LlamaCppServer, ServerDied
from llmist.evals.local_models import install_model, local_model
from llmist.gadgets import ExecutionContext, Gadget, GadgetResult, as_gadget
from llmist.providers.mock import estimate_tokens

CATEGORIES = ("single", "coercion", "multiline", "nested", "parallel", "validation", "fails_once")
"""The categories plain function tools express in every framework."""
PEERS = ("smolagents-code", "smolagents-tools", "pydantic-ai")
LLMIST = ("llmist-block", "llmist-emoji", "llmist-native")
QUICK = ("add_numbers", "multiply_decimal", "count_poem_lines", "register_ada", "weather_two_cities",
         "meeting_iso_date", "stock_retry")  # fmt: skip
"""One case of each of these categories (``--quick``), for a machine too busy for all 23."""
MAX_STEPS = 6
MAX_TOKENS = 300
"""Every framework's cap on one response (a rambling small model would write to the context's end)."""
ROOT = Path(__file__).resolve().parents[1]


# --- the meter --------------------------------------------------------------------------------


@dataclass
class Meter:
    """What went through the proxy since the last :meth:`take`."""

    requests: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, sent: str, received: str) -> None:
        with self.lock:
            self.requests += 1
            self.tokens_in += estimate_tokens(sent)
            self.tokens_out += estimate_tokens(received)

    def take(self) -> tuple[int, int, int]:
        with self.lock:
            done = (self.requests, self.tokens_in, self.tokens_out)
            self.requests = self.tokens_in = self.tokens_out = 0
            return done


def _request_text(body: dict[str, Any]) -> str:
    """Everything a chat request gives the model to read: messages (text and calls) and tools."""
    parts: list[str] = []
    for m in body.get("messages") or []:
        content = m.get("content")
        if isinstance(content, list):
            parts += [str(p.get("text", "")) for p in content if isinstance(p, dict)]
        elif content:
            parts.append(str(content))
        parts += [json.dumps(c.get("function", c)) for c in m.get("tool_calls") or []]
    if body.get("tools"):
        parts.append(json.dumps(body["tools"]))
    return "\n".join(parts)


def _response_text(raw: bytes, streamed: bool) -> str:
    """The text and tool calls of a response, streamed (SSE) or whole."""
    messages: list[dict[str, Any]] = []
    if streamed:
        for line in raw.decode(errors="replace").splitlines():
            if line.startswith("data:") and line[5:].strip() not in ("", "[DONE]"):
                try:
                    messages += [c.get("delta") or {} for c in json.loads(line[5:]).get("choices") or []]
                except ValueError:
                    continue
    else:
        try:
            messages = [c.get("message") or {} for c in json.loads(raw).get("choices") or []]
        except ValueError:
            return ""
    out: list[str] = []
    for m in messages:
        out.append(str(m.get("content") or ""))
        for call in m.get("tool_calls") or []:
            fn = call.get("function") or {}
            out.append(str(fn.get("name") or "") + str(fn.get("arguments") or ""))
    return "".join(out)


@contextmanager
def metering_proxy(upstream: str, meter: Meter) -> Iterator[str]:
    """A loopback proxy to ``upstream`` (an OpenAI-compatible API root) that meters every chat
    request; yields the proxy's API root."""
    target = urllib.parse.urlsplit(upstream)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:
            pass

        def _forward(self, body: bytes | None) -> None:
            conn = http.client.HTTPConnection(target.hostname or "127.0.0.1", target.port, timeout=3600)
            headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "content-length")}
            if body is not None:
                headers["Content-Length"] = str(len(body))
            conn.request(self.command, self.path, body=body, headers=headers)
            upstream_response = conn.getresponse()
            self.send_response(upstream_response.status)
            streamed = "event-stream" in (upstream_response.getheader("Content-Type") or "")
            for k, v in upstream_response.getheaders():
                if k.lower() not in ("transfer-encoding", "content-length", "connection"):
                    self.send_header(k, v)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            received = bytearray()
            while piece := upstream_response.read1(65536):
                received += piece
                self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
            conn.close()
            if body is not None and self.path.endswith("/chat/completions"):
                meter.add(_request_text(json.loads(body)), _response_text(bytes(received), streamed))

        def do_GET(self) -> None:
            self._forward(None)

        def do_POST(self) -> None:
            self._forward(self.rfile.read(int(self.headers.get("Content-Length") or 0)))

    proxy = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=proxy.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{proxy.server_address[1]}{target.path}"
    finally:
        proxy.shutdown()
        proxy.server_close()


# --- the tools, as plain functions ------------------------------------------------------------


class Calls:
    """The calls one run made, as the grader reads them; ``step`` says which model response."""

    def __init__(self, step: Callable[[], int]) -> None:
        self.records: list[CallRecord] = []
        self.step = step

    def run(self, gadget: Gadget, arguments: dict[str, Any]) -> str:
        """Validate ``arguments`` with the gadget's schema and run it; record the call."""
        call_id = f"call_{len(self.records) + 1}"
        try:
            params = gadget.Params.model_validate(arguments)
            ctx = ExecutionContext(gadget_name=gadget.name, invocation_id=call_id)
            out = gadget.invocation().call(params, ctx)  # a function gadget's own signature, as the executor calls it
            if asyncio.iscoroutine(out):
                out = asyncio.run(out)
            text = out.result if isinstance(out, GadgetResult) else str(out)
        except Exception as exc:
            self.records.append(CallRecord(gadget.name, call_id, arguments, False, str(exc), self.step()))
            raise
        self.records.append(CallRecord(gadget.name, call_id, params.model_dump(), True, None, self.step()))
        return text


def _schema(gadget: Gadget) -> dict[str, Any]:
    return gadget.Params.model_json_schema()


def _smol_tools(gadgets: Sequence[Gadget], calls: Calls) -> list[Any]:
    from smolagents import Tool

    tools = []
    for g in gadgets:
        schema = _schema(g)
        required = set(schema.get("required") or ())
        inputs = {}
        for name, prop in (schema.get("properties") or {}).items():
            kind = prop.get("type") or "any"
            entry = {"type": kind if isinstance(kind, str) else "any", "description": prop.get("description") or name}
            if name not in required:
                entry["nullable"] = True
            inputs[name] = entry
        names = list(inputs)

        def forward(self: Any, *args: Any, _g: Gadget = g, _names: list[str] = names, **kwargs: Any) -> str:
            kwargs.update(zip(_names, args, strict=False))
            return calls.run(_g, {k: v for k, v in kwargs.items() if v is not None})

        attrs = {"name": g.name, "description": " ".join(g.description.split()), "inputs": inputs,
                 "output_type": "string", "skip_forward_signature_validation": True, "forward": forward}  # fmt: skip
        tools.append(type(f"Tool_{g.name}", (Tool,), attrs)())
    return tools


def _pydantic_tools(gadgets: Sequence[Gadget], calls: Calls, steps: dict[str, int]) -> list[Any]:
    from pydantic_ai import ModelRetry, RunContext, Tool

    tools = []
    for g in gadgets:

        def function(ctx: RunContext[None], _g: Gadget = g, **kwargs: Any) -> str:
            steps["n"] = ctx.run_step
            try:
                return calls.run(_g, kwargs)
            except Exception as exc:  # the idiom: an error the model can fix is a retry
                raise ModelRetry(str(exc)) from exc

        description = " ".join(g.description.split())
        tools.append(Tool.from_schema(function, g.name, description, _schema(g), takes_ctx=True))
    return tools


# --- the runs --------------------------------------------------------------------------------


def run_peer(framework: str, case: EvalCase, model: str, base_url: str) -> tuple[str, list[CallRecord], str, int]:
    """One case through a peer: (final answer, calls, error or "", model responses)."""
    gadgets = [as_gadget(g) for g in case.make_gadgets()]
    if framework.startswith("smolagents"):
        from smolagents import CodeAgent, OpenAIServerModel, ToolCallingAgent

        # llama-cpp-python's server refuses a system message whose content is a list of parts.
        llm = OpenAIServerModel(model_id=model, api_base=base_url, api_key="none", temperature=0.0,
                                max_tokens=MAX_TOKENS, flatten_messages_as_text=True)  # fmt: skip
        holder: list[Any] = []
        calls = Calls(lambda: int(getattr(holder[0], "step_number", 1)) if holder else 1)
        kind = CodeAgent if framework == "smolagents-code" else ToolCallingAgent
        agent = kind(tools=_smol_tools(gadgets, calls), model=llm, max_steps=MAX_STEPS, verbosity_level=0)
        holder.append(agent)
        try:
            answer = agent.run(case.prompt)
        except Exception as exc:
            return "", calls.records, f"{type(exc).__name__}: {exc}", 0
        return str(answer if answer is not None else ""), calls.records, "", 0
    from pydantic_ai import Agent as PAgent
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider
    from pydantic_ai.usage import UsageLimits

    steps = {"n": 1}
    calls = Calls(lambda: steps["n"])
    llm = OpenAIChatModel(model, provider=OpenAIProvider(base_url=base_url, api_key="none"))
    agent = PAgent(llm, tools=_pydantic_tools(gadgets, calls, steps))
    try:
        result = agent.run_sync(
            case.prompt,
            model_settings={"temperature": 0.0, "max_tokens": MAX_TOKENS},
            usage_limits=UsageLimits(request_limit=MAX_STEPS),
        )
    except Exception as exc:
        return "", calls.records, f"{type(exc).__name__}: {exc}", 0
    return str(result.output), calls.records, "", 0


def _result(framework: str, case: EvalCase, label: str, answer: str, calls: list[CallRecord], error: str,
            metered: tuple[int, int, int], latency: float) -> CaseResult:  # fmt: skip
    failures = [f"run failed: {error}"] if error else grade(case, answer, "no_calls", calls)
    requests, tokens_in, tokens_out = metered
    return CaseResult(model=label, syntax=framework, case=case.name, category=case.category, run=1,  # type: ignore[arg-type]
                      passed=not failures, failures=failures, calls=len(calls), malformed=0, repairs={},
                      iterations=requests, input_tokens=tokens_in, output_tokens=tokens_out, cost=0.0,
                      latency_s=latency, stop_reason="error" if error else "done", output=answer)  # fmt: skip


def run_all(args: argparse.Namespace, cases: Sequence[EvalCase], base_url: str, meter: Meter) -> list[CaseResult]:
    model = local_model(args.model)
    results: list[CaseResult] = []

    def show(r: CaseResult) -> None:
        mark = "pass" if r.passed else "FAIL"
        print(f"{mark} {r.syntax:<16} {r.case} ({r.latency_s:.1f}s) {'; '.join(r.failures)}"[:300], file=sys.stderr)
        results.append(r)
        write_results(args.out, results)  # after every case: a long run keeps what it measured

    for framework in args.framework:
        if framework in LLMIST:
            results_llmist = _run_llmist(framework.split("-")[1], cases, model.alias, model.label, base_url, meter)
            for r in results_llmist:
                show(r)
            continue
        for case in cases:
            meter.take()
            started = time.perf_counter()
            answer, calls, error, _ = run_peer(framework, case, model.alias, base_url)
            show(
                _result(framework, case, model.label, answer, calls, error, meter.take(), time.perf_counter() - started)
            )
    return results


def _run_llmist(syntax: str, cases: Sequence[EvalCase], alias: str, label: str, base_url: str,
                meter: Meter) -> list[CaseResult]:  # fmt: skip
    from llmist.evals import EvalSuite, run_suite

    os.environ["LLAMACPP_BASE_URL"] = base_url
    done: list[CaseResult] = []

    def metered(r: CaseResult) -> None:
        requests, r.input_tokens, r.output_tokens = meter.take()
        r.iterations = requests
        r.syntax = f"llmist-{syntax}"  # type: ignore[assignment]
        done.append(r)

    meter.take()
    suite = EvalSuite("peers", tuple(cases))
    options = {"max_response_tokens": MAX_TOKENS}
    model = f"llamacpp:{alias}"
    asyncio.run(
        run_suite(suite, model, syntaxes=(syntax,), agent_options=options, on_result=metered, model_label=label)
    )
    return done


def table(results: Sequence[CaseResult]) -> str:
    """One row per framework: success, tokens per task (in + out), model calls and seconds per task."""
    rows = ["| framework | success | tokens/task | model calls/task | secs/task |", "|---|---:|---:|---:|---:|"]
    order: dict[str, list[CaseResult]] = {}
    for r in results:
        order.setdefault(f"{r.model} {r.syntax}", []).append(r)
    for name, runs in order.items():
        n = len(runs)
        passed = sum(r.passed for r in runs)
        tokens = sum(r.input_tokens + r.output_tokens for r in runs) / n
        calls, secs = sum(r.iterations for r in runs) / n, sum(r.latency_s for r in runs) / n
        rows.append(f"| {name} | {passed}/{n} ({passed / n:.0%}) | {tokens:,.0f} | {calls:.1f} | {secs:.1f} |")
    return "\n".join(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default="qwen1.5b", help="qwen1.5b, qwen0.5b or smollm2")
    ap.add_argument("--framework", action="append", choices=[*PEERS, *LLMIST])
    ap.add_argument("--case", action="append", default=[])
    ap.add_argument("--out", help="results, one JSON line per run (rewritten after each case)")
    ap.add_argument("--server-python", default=str(ROOT / ".venv-eval" / "bin" / "python"))
    ap.add_argument("--table", nargs="+", metavar="FILE", help="print the table of earlier --out files")
    ap.add_argument("--threads", type=int, help="the server's threads (default: every core)")
    ap.add_argument("--quick", action="store_true", help="one case of each category")
    args = ap.parse_args()
    if args.table:
        print(table([r for path in args.table for r in read_results(path)]))
        return
    if not args.out:
        ap.error("--out is required to run")
    args.framework = args.framework or [*PEERS, *LLMIST]
    names = [*args.case, *(QUICK if args.quick else ())]
    cases = BUILTIN_SUITE.select(names, () if names else CATEGORIES).cases
    model = local_model(args.model)
    path = install_model(model)
    meter = Meter()
    with LlamaCppServer(path, python=args.server_python, alias=model.alias, n_threads=args.threads) as server:
        deaths: list[ServerDied] = []
        server.watch(deaths.append)
        with metering_proxy(server.base_url, meter) as base_url:
            results = run_all(args, cases, base_url, meter)
        if deaths or not server.alive:
            Path(args.out).unlink(missing_ok=True)
            sys.exit(f"the model server died; no score:\n{deaths[0] if deaths else server.died()}")
    print(table(results))


if __name__ == "__main__":
    main()
