"""The Berkeley Function Calling Leaderboard (BFCL) through llmist, graded by BFCL's own AST checker.

    make bfcl-setup eval-setup            # bfcl-eval (pinned, --no-deps) in .venv; the llama.cpp server
    flock /tmp/llm-model.lock .venv/bin/python benchmarks/bfcl.py --model qwen1.5b --mode block \\
        --per-category 10 --out benchmarks/results/bfcl-qwen1.5b-block.jsonl

Data, possible answers, checker, BFCL's prompt-mode prompt and decoder all come from the pinned
``bfcl-eval`` package (see ``_bfcl_package.py``). Categories: the non-live AST ones, ``simple_python``,
``multiple``, ``parallel``, ``parallel_multiple`` and ``irrelevance`` (passes when no call is made,
as BFCL grades it: a call llmist refused to run, to a gadget that does not exist or with invalid
values, was made all the same, as BFCL's decoder would read it in prompt mode), the development
set and the default. BFCL's live categories (``--categories live_simple,live_multiple,...``, see
``LIVE_CATEGORIES``), functions and questions users contributed, judge a change on tasks of kinds
the development set lacks: a case's own system message joins llmist's system prompt as
``system_extra`` (BFCL's prompt mode joins it to its own), an earlier exchange is the run's
history, and ``live_relevance`` passes when a call is made. One model turn per case: BFCL grades
the calls of the first response.

Modes (``--mode``, repeatable), all on one llama.cpp server serving the same GGUF file:

- ``block``, ``emoji``, ``native``: a default llmist ``Agent`` (``max_iterations=1``) in that syntax,
  with one gadget per BFCL function. The answer is the calls the loop ran, after its repairs, with
  the parameters as validated; each gadget records them and returns a neutral "Done.".
- ``constrained``: the same with ``Agent(constrained=True)`` (grammar-constrained block calls).
- ``bfcl-prompt``: BFCL's own prompt-mode method, its system prompt and its decoder
  (``default_decode_ast_prompting``), through the openai SDK, temperature 0.
- ``server-fc``: the server's own function calling, without llmist: the functions as OpenAI tools
  (BFCL's ``convert_to_tool``), its ``tool_calls`` as the answer. llama-cpp-python's server returns
  Qwen's calls as text, never ``tool_calls`` (and its ``chatml-function-calling`` handler returns the
  chosen function's name as text), so this mode serves the same GGUF file with llama.cpp's own
  ``llama-server --jinja`` (``--llama-server PATH``), which parses Qwen's ``<tool_call>`` into
  ``tool_calls``. Debian bookworm packages none; it builds from llama.cpp's source in about 15
  minutes on two cores (portable: ``cmake -DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON
  -DGGML_F16C=ON -DLLAMA_OPENSSL=OFF``, ``cmake --build build --target llama-server``). Without
  it the mode is skipped with the reason. Measured on Qwen2.5-Coder-1.5B (benchmarks/RESULTS.md), the
  model wrote each call in a ```json fence instead of the ``<tool_call>`` tags of its own template,
  so the server returned no ``tool_calls`` at all: irrelevance "passes" because no call was parsed.

BFCL's function types become JSON schema as BFCL converts them for OpenAI-style tools (``dict``:
object, ``float``: number, ``tuple``: array, ``any``: string), and BFCL's Python hint is added to
every description, as BFCL does before inference. Dotted names (``math.factorial``) become
``math_factorial`` as BFCL renames them for such APIs, and are mapped back before grading.

A table (accuracy per category, prompt and completion tokens per case, seconds per case) goes to
stdout and every case (raw response, decoded calls, verdict, checker error) to ``--out`` (JSONL), each
as soon as it is graded, so a run stopped midway keeps the cases it finished.
A verdict is ``pass``, ``fail`` (the checker's), or ``error`` (the harness or the request failed;
counted as a failure, and listed). If the server dies, the run stops, nothing is scored and the
server's last log lines are printed (exit code 3).
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import inspect
import json
import os
import random
import shutil
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from _bfcl_package import BFCL_VERSION, Bfcl, BfclMissing, load_bfcl, read_category

from llmist import Agent
from llmist.evals.local import SERVER_DIED, LlamaCppServer, ServerDied
from llmist.evals.local_models import LOCAL_MODELS, install_model, local_model
from llmist.gadgets import create_gadget
from llmist.providers import Message

CATEGORIES = ("simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance")
"""The non-live AST categories: the development set, and the default."""
LIVE_CATEGORIES = ("live_simple", "live_multiple", "live_parallel", "live_parallel_multiple", "live_irrelevance",
                   "live_relevance")  # fmt: skip
"""BFCL's live categories: functions and questions users contributed. Never tuned on, they judge a change
on tasks of kinds the development set lacks (``--categories``, never the default)."""
LLMIST_MODES = ("block", "emoji", "native", "constrained")
MODES = (*LLMIST_MODES, "bfcl-prompt", "server-fc")
SEED = 39
"""The sample's seed: ``--per-category N`` draws the same cases on every run."""
NO_SERVER_FC = (
    "skipped server-fc: it needs llama.cpp's own llama-server (--llama-server PATH, or on PATH), whose --jinja "
    "parses Qwen's <tool_call> text into tool_calls. llama-cpp-python's server returns Qwen's calls as text with "
    "the model's template, and its chatml-function-calling handler (0.3.36, tool_choice=auto) answers with the "
    "chosen name as text ('functions.NAME:') and no tool_calls; Debian bookworm packages no llama.cpp."
)
ROOT = Path(__file__).resolve().parents[1]
NEUTRAL_RESULT = "Done."


@dataclass
class Case:
    """One BFCL entry, prepared as BFCL prepares it for inference."""

    id: str
    category: str
    messages: list[dict[str, str]]
    """The first turn as BFCL gives it: a user message, in some live cases after a system message
    or an earlier exchange."""
    functions: list[dict[str, Any]]
    """BFCL's function docs (with its Python hint), dotted names kept."""
    tools: list[dict[str, Any]]
    """The same as OpenAI tools (JSON schema types, dots as underscores)."""
    names: dict[str, str]
    """Tool name -> BFCL's name."""
    answer: Any = None


@dataclass
class Outcome:
    """One case's run and verdict (a line of ``--out``)."""

    id: str
    category: str
    mode: str
    model: str
    verdict: str = "error"
    error: list[str] = field(default_factory=list)
    error_type: str = ""
    raw: str = ""
    decoded: list[dict[str, Any]] | None = None
    decode_error: str = ""
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    seconds: float = 0.0
    repairs: dict[str, int] = field(default_factory=dict)
    rejected: list[dict[str, Any]] = field(default_factory=list)
    """llmist's calls that did not run (unknown gadget, invalid parameters...) and why."""


# --- cases ------------------------------------------------------------------------------------


def load_cases(bfcl: Bfcl, categories: Sequence[str], per_category: int | None, ids: Sequence[str]) -> list[Case]:
    """The cases to run: ``ids`` if given, else each category whole or a fixed-seed sample."""
    cases: list[Case] = []
    wanted = set(ids)
    for category in categories:
        entries, answers = read_category(category)
        if wanted:
            entries = [e for e in entries if e["id"] in wanted]
        elif per_category is not None and per_category < len(entries):
            picked = set(random.Random(f"{SEED}:{category}").sample(range(len(entries)), per_category))
            entries = [e for i, e in enumerate(entries) if i in picked]
        bfcl.add_language_hint(entries)
        for entry in entries:
            tools = bfcl.to_openai_tools(entry["function"])
            names = {t["function"]["name"]: f["name"] for t, f in zip(tools, entry["function"], strict=True)}
            if len(names) != len(tools):
                raise ValueError(f"{entry['id']}: two functions share a name once dots become underscores")
            cases.append(Case(entry["id"], category, entry["question"][0], entry["function"], tools, names,
                              answers.get(entry["id"])))  # fmt: skip
    missing = wanted - {c.id for c in cases}
    if missing:
        raise ValueError(f"unknown case ids (or not in --categories): {', '.join(sorted(missing))}")
    return cases


def grade(bfcl: Bfcl, case: Case, out: Outcome) -> None:
    """Set ``out``'s verdict as BFCL's eval runner does (``_evaluate_single_ast_entry`` and, for
    the (ir)relevance categories, ``_evaluate_single_relevance_entry``: irrelevance passes when no
    call could be decoded, relevance when one could)."""
    if out.verdict == "error":
        return
    if "relevance" in case.category:
        # BFCL's decoder reads any call the model wrote, to a function that exists or not. llmist
        # runs only the calls that bind, so a call it refused (a made-up gadget's name, invalid
        # values) was written all the same, and counts as a call as it would in BFCL's prompt mode.
        made_call = (out.decoded is not None and not bfcl.is_empty_output(out.decoded)) or bool(out.rejected)
        if "irrelevance" in case.category:
            out.verdict = "fail" if made_call else "pass"
            if made_call:
                out.error = ["Valid syntax. Successfully decode AST when it should not."]
                out.error_type = "irrelevance_error:decoder_success"
        else:
            out.verdict = "pass" if made_call else "fail"
            if not made_call:
                out.error = ["Invalid syntax. Failed to decode AST when it should have."]
                out.error_type = "relevance_error:decoder_failed"
        return
    if out.decoded is None:
        out.verdict, out.error_type = "fail", "ast_decoder:decoder_failed"
        out.error = [f"Invalid syntax. Failed to decode AST. {out.decode_error}"]
        return
    if not bfcl.is_call_list(out.decoded):
        out.verdict, out.error_type = "fail", "ast_decoder:decoder_wrong_output_format"
        return
    result = bfcl.ast_checker(case.functions, out.decoded, case.answer, bfcl.python, case.category, "llmist")
    out.verdict = "pass" if result["valid"] else "fail"
    if not result["valid"]:
        out.error, out.error_type = [str(e) for e in result["error"]], str(result["error_type"])


# --- modes ------------------------------------------------------------------------------------


def constrained_supported() -> bool:
    """Whether this llmist's ``Agent`` takes ``constrained=`` (grammar-constrained calls)."""
    from llmist.agent.options import FlatOptions

    return "constrained" in inspect.signature(Agent).parameters or "constrained" in FlatOptions.__annotations__


def _gadget_schema(parameters: dict[str, Any]) -> dict[str, Any]:
    """A tool's schema for a gadget: a property's ``default`` is said in its description instead,
    because a gadget's validated parameters would hold a default the model never wrote, and BFCL
    grades what the model wrote."""
    schema = copy.deepcopy(parameters)
    for prop in schema.get("properties", {}).values():
        if isinstance(prop, dict) and "default" in prop:
            default = prop.pop("default")
            prop["description"] = f"{prop.get('description', '')} Default: {json.dumps(default)}.".strip()
    return schema


async def run_llmist(case: Case, mode: str, model: Any, cap: int | None, out: Outcome) -> None:
    """One default ``Agent`` turn of ``model`` (a model string, or a ``MockModel`` replaying a
    recorded response); the calls that ran are the answer."""
    ran: list[dict[str, Any]] = []

    def recorder(name: str) -> Any:
        async def record(params: dict[str, Any]) -> str:
            ran.append({name: params})
            return NEUTRAL_RESULT

        return record

    functions = [t["function"] for t in case.tools]
    gadgets = [
        create_gadget(name=f["name"], description=f.get("description", ""), schema=_gadget_schema(f["parameters"]),
                      execute=recorder(case.names[f["name"]]))
        for f in functions
    ]  # fmt: skip
    extra: dict[str, Any] = {"constrained": True} if mode == "constrained" else {}
    syntax = "block" if mode == "constrained" else mode
    if cap is not None:
        extra["max_response_tokens"] = cap
    # A live case's own system message joins llmist's system prompt as a user's instructions do
    # (``system_extra``), as BFCL's prompt mode joins it to its own; an earlier exchange is the
    # history the run continues.
    system = "\n\n".join(m["content"] for m in case.messages if m["role"] == "system")
    if system:
        extra["system_extra"] = system
    *earlier, last = [m for m in case.messages if m["role"] != "system"]
    agent = Agent(model=model, gadgets=gadgets, syntax=syntax, max_iterations=1, **extra)  # type: ignore[arg-type]
    history = [Message(m["role"], m["content"]) for m in earlier]  # type: ignore[arg-type]
    result = await agent.run(last["content"], history=history)
    first = next((m for m in result.messages if m.role == "assistant"), None)
    if first is not None:
        native = [{"name": c.name, "arguments": c.arguments} for c in first.tool_calls]
        out.raw = first.text + (("\n" + json.dumps(native)) if native else "")
    out.decoded, out.verdict = ran, "graded"
    out.repairs = dict(result.repairs)
    out.rejected = [{"gadget": r.gadget_name, "parameters": r.parameters, "error": r.error}
                    for r in result.gadget_results if not r.ok]  # fmt: skip
    usage = result.usage
    if usage.input_tokens or usage.output_tokens:  # 0 and 0: the server reported no usage
        out.prompt_tokens, out.completion_tokens = usage.input_tokens, usage.output_tokens


async def run_openai(case: Case, mode: str, bfcl: Bfcl, client: Any, alias: str, cap: int | None, out: Outcome) -> None:
    """``bfcl-prompt``: BFCL's system prompt and decoder; ``server-fc``: the server's tool calls."""
    limit = {} if cap is None else {"max_tokens": cap}  # no cap: as BFCL sends its requests
    if mode == "bfcl-prompt":
        messages = bfcl.system_prompt(copy.deepcopy(case.messages), case.functions, case.id)
        response = await client.chat.completions.create(model=alias, messages=messages, temperature=0, **limit)
        out.raw = response.choices[0].message.content or ""
        try:
            out.decoded = bfcl.decode_prompting(out.raw)
        except Exception as exc:  # BFCL counts any decoder failure as "no call decoded"
            out.decode_error = f"{type(exc).__name__}: {exc}"
    else:
        response = await client.chat.completions.create(
            model=alias,
            messages=case.messages,
            tools=case.tools,
            temperature=0,
            **limit,
        )
        message = response.choices[0].message
        calls = message.tool_calls or []
        native = [{"name": c.function.name, "arguments": c.function.arguments} for c in calls]
        out.raw = (message.content or "") + ("\n" + json.dumps(native) if native else "")
        try:
            out.decoded = [{case.names.get(c.function.name, c.function.name): json.loads(c.function.arguments)}
                           for c in calls]  # fmt: skip
        except json.JSONDecodeError as exc:
            out.decode_error = f"arguments are not JSON: {exc}"
    out.verdict = "graded"
    if response.usage is not None:
        out.prompt_tokens, out.completion_tokens = response.usage.prompt_tokens, response.usage.completion_tokens


class LlamaServer(LlamaCppServer):
    """llama.cpp's own ``llama-server`` binary (``python``: its path) with ``--jinja``: the model's chat
    template renders the tools, and the server parses the model's calls into ``tool_calls``. Watched,
    waited for and stopped as :class:`LlamaCppServer` is."""

    def command(self) -> list[str]:
        """``llama-server`` on :attr:`port`, with the model's own chat template (``--jinja``)."""
        return [self.python, "--model", str(self.model_path), "--alias", self.alias, "--host", "127.0.0.1",
                "--port", str(self.port), "--ctx-size", str(self.n_ctx), "--threads", str(self.n_threads),
                "--seed", str(self.seed), "--jinja"]  # fmt: skip


# --- the run ----------------------------------------------------------------------------------


async def run_mode(mode: str, cases: Sequence[Case], bfcl: Bfcl, server: LlamaCppServer, label: str,
                   cap: int | None, died: threading.Event,
                   record: Callable[[Outcome], None]) -> list[Outcome]:  # fmt: skip
    """Every case in ``mode``, in order, each given to ``record`` once graded; stops with
    :class:`ServerDied` if the server dies."""
    from openai import AsyncOpenAI

    outcomes: list[Outcome] = []
    async with AsyncOpenAI(base_url=server.base_url, api_key="none", max_retries=0) as client:
        for case in cases:
            outcomes.append(await _run_case(case, mode, bfcl, client, server, label, cap, died))
            record(outcomes[-1])
    return outcomes


def recorder(out: Path | None) -> Callable[[Outcome], None]:
    """What writes each graded case to ``--out`` at once (emptied first): a run stopped midway, by
    Ctrl-C or a dead server, keeps the cases it finished, which ``--replay`` can read."""
    if out is None:
        return lambda outcome: None
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("")

    def record(outcome: Outcome) -> None:
        with out.open("a") as f:
            f.write(json.dumps(asdict(outcome), default=str) + "\n")

    return record


async def _run_case(case: Case, mode: str, bfcl: Bfcl, client: Any, server: LlamaCppServer, label: str,
                    cap: int | None, died: threading.Event) -> Outcome:  # fmt: skip
    """Run, time and grade one case; raises :class:`ServerDied` if the server died meanwhile."""
    out = Outcome(case.id, case.category, mode, label)
    started = time.perf_counter()
    try:
        if mode in LLMIST_MODES:
            await run_llmist(case, mode, f"llamacpp:{server.alias}", cap, out)
        else:
            await run_openai(case, mode, bfcl, client, server.alias, cap, out)
    except Exception as exc:  # the harness's or the request's failure, never the model's score
        out.verdict, out.error, out.error_type = "error", [f"{type(exc).__name__}: {exc}"], "harness"
    out.seconds = round(time.perf_counter() - started, 2)
    if died.is_set() or not server.alive:
        raise server.died()
    grade(bfcl, case, out)
    mark = {"pass": "pass", "fail": "FAIL"}.get(out.verdict, "ERROR")
    print(f"{mark} {mode:<11} {case.id:<22} {out.seconds:6.1f}s {'; '.join(out.error)}"[:240], file=sys.stderr)
    return out


def table(outcomes: Sequence[Outcome]) -> str:
    """Accuracy, tokens and seconds per case, per mode and category, then over all categories."""
    lines = ["| mode | category | cases | accuracy | prompt tok/case | completion tok/case | s/case | errors |",
             "|---|---|---:|---:|---:|---:|---:|---:|"]  # fmt: skip
    modes = list(dict.fromkeys(o.mode for o in outcomes))
    for mode in modes:
        mine = [o for o in outcomes if o.mode == mode]
        categories = [c for c in (*CATEGORIES, *LIVE_CATEGORIES) if any(o.category == c for o in mine)]
        groups = [(c, [o for o in mine if o.category == c]) for c in categories] + [("all", mine)]
        for category, group in groups:
            if not group:
                continue
            n = len(group)
            passed = sum(o.verdict == "pass" for o in group)
            counted = [o for o in group if o.prompt_tokens is not None]
            if counted:
                tokens = (f"{sum(o.prompt_tokens or 0 for o in counted) / len(counted):.0f}",
                          f"{sum(o.completion_tokens or 0 for o in counted) / len(counted):.0f}")  # fmt: skip
            else:
                tokens = ("n/a (not reported)", "n/a (not reported)")
            errors = sum(o.verdict == "error" for o in group)
            seconds = sum(o.seconds for o in group) / n
            lines.append(f"| {mode} | {category} | {n} | {100 * passed / n:.0f}% ({passed}/{n}) | {tokens[0]} | "
                         f"{tokens[1]} | {seconds:.1f} | {errors} |")  # fmt: skip
    return "\n".join(lines)


REPLAYABLE = ("block", "emoji", "constrained")
"""The modes whose recorded response is text alone, so a ``MockModel`` can send it again."""


def replay(path: Path, bfcl: Bfcl) -> tuple[list[Outcome], list[str]]:
    """Each text-mode case of an earlier ``--out`` file, its recorded first response sent again
    through this checkout's llmist (a ``MockModel`` in place of the server) and graded anew; and a
    line for each case whose verdict changed. At temperature 0 and one turn per case the model
    would write the same response (the prompt aside: a change to the prompt needs a real run),
    so a change to how llmist reads calls is measured in seconds, without a model."""
    from llmist.testing import MockModel

    recorded = [Outcome(**json.loads(line)) for line in path.read_text().splitlines() if line.strip()]
    skipped = sorted({o.mode for o in recorded} - set(REPLAYABLE))
    if skipped:
        print(f"replay: skipped the {', '.join(skipped)} cases (only text responses replay)", file=sys.stderr)
    recorded = [o for o in recorded if o.mode in REPLAYABLE]
    categories = list(dict.fromkeys(o.category for o in recorded))
    cases = {c.id: c for c in load_cases(bfcl, categories, None, [o.id for o in recorded])}
    outcomes: list[Outcome] = []
    changed: list[str] = []
    for old in recorded:
        case = cases[old.id]
        new = Outcome(old.id, old.category, old.mode, old.model, prompt_tokens=old.prompt_tokens,
                      completion_tokens=old.completion_tokens, seconds=old.seconds)  # fmt: skip
        # A constrained response is read as block text: the grammar shaped what the model wrote,
        # not how llmist reads it (and a mock model takes no grammar).
        mode = "block" if old.mode == "constrained" else old.mode
        asyncio.run(run_llmist(case, mode, MockModel([old.raw]), None, new))
        new.raw, new.prompt_tokens, new.completion_tokens = old.raw, old.prompt_tokens, old.completion_tokens
        grade(bfcl, case, new)
        if new.verdict != old.verdict:
            changed.append(f"{old.mode} {old.id}: {old.verdict} -> {new.verdict} {'; '.join(new.error)}"[:300])
        outcomes.append(new)
    return outcomes, changed


def serve_and_run(args: argparse.Namespace, cases: Sequence[Case], bfcl: Bfcl) -> list[Outcome] | None:
    """Run every mode, one server per mode; ``None`` if a server died (its log went to stderr)."""
    record = recorder(args.out)
    spec = local_model(args.model)
    model_file = install_model(spec)
    outcomes: list[Outcome] = []
    for mode in args.mode:
        if mode == "constrained" and not constrained_supported():
            print("skipped constrained: this llmist's Agent has no constrained= option yet", file=sys.stderr)
            continue
        if mode == "server-fc" and not args.llama_server:
            print(NO_SERVER_FC, file=sys.stderr)
            continue
        died = threading.Event()
        kind = LlamaServer if mode == "server-fc" else LlamaCppServer
        python = args.llama_server if mode == "server-fc" else args.server_python
        try:
            with kind(model_file, python=python, alias=spec.alias, n_ctx=args.n_ctx) as server:
                server.watch(lambda _, died=died: died.set())
                os.environ["LLAMACPP_BASE_URL"] = server.base_url
                cap = args.max_response_tokens
                outcomes += asyncio.run(run_mode(mode, cases, bfcl, server, spec.label, cap, died, record))
        except (ServerDied, TimeoutError) as exc:
            kept = " (--out keeps the cases graded before)" if args.out is not None else ""
            print(f"error: the model server died during the {mode} run; no score is reported{kept}.\n{exc}",
                  file=sys.stderr)  # fmt: skip
            return None
    return outcomes


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the options, run, print the table and write ``--out``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="qwen1.5b", choices=sorted(LOCAL_MODELS))
    parser.add_argument("--mode", action="append", choices=MODES, help="repeatable (default: block)")
    parser.add_argument("--categories", default=",".join(CATEGORIES), help="comma-separated")
    parser.add_argument("--per-category", type=int, default=None, help="a fixed-seed sample (default: all)")
    parser.add_argument("--cases", default="", help="comma-separated BFCL ids (instead of a sample)")
    parser.add_argument("--out", type=Path, default=None, help="JSONL: one line per case")
    parser.add_argument("--n-ctx", type=int, default=8192)
    parser.add_argument("--max-response-tokens", type=int, default=None,
                        help="cap every mode's response (default: none, a default Agent's setting)")  # fmt: skip
    parser.add_argument("--server-python", default=os.environ.get("LLMIST_LOCAL_MODEL_PYTHON")
                        or str(ROOT / ".venv-eval" / "bin" / "python"))  # fmt: skip
    parser.add_argument("--llama-server", default=os.environ.get("LLAMA_SERVER") or shutil.which("llama-server"),
                        help="llama.cpp's llama-server, for server-fc (default: $LLAMA_SERVER or on PATH)")  # fmt: skip
    parser.add_argument("--replay", type=Path, default=None, metavar="OUT.jsonl",
                        help="grade an earlier run's recorded responses again through this llmist, without a model "
                             "(text modes; the other options but --out are ignored)")  # fmt: skip
    args = parser.parse_args(argv)
    if args.replay is not None:
        return main_replay(args.replay, args.out)
    args.mode = args.mode or ["block"]
    categories = [c for c in args.categories.split(",") if c]
    unknown = sorted(set(categories) - {*CATEGORIES, *LIVE_CATEGORIES})
    if unknown:
        parser.error(f"unknown categories {unknown}; expected some of {', '.join((*CATEGORIES, *LIVE_CATEGORIES))}")
    try:
        bfcl = load_bfcl()
        cases = load_cases(bfcl, categories, args.per_category, [c for c in args.cases.split(",") if c])
    except (BfclMissing, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    outcomes = serve_and_run(args, cases, bfcl)
    if outcomes is None:
        return SERVER_DIED
    print(f"BFCL {BFCL_VERSION}, {local_model(args.model).label}, {len(cases)} cases")
    print(table(outcomes))
    return 0


def main_replay(path: Path, out: Path | None) -> int:
    """``--replay``: the table of the recorded responses read again, and the verdicts that changed."""
    try:
        bfcl = load_bfcl()
        outcomes, changed = replay(path, bfcl)
    except (BfclMissing, ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"BFCL {BFCL_VERSION}, the responses of {path} replayed ({len(outcomes)} cases)")
    print(table(outcomes))
    print(f"{len(changed)} verdict(s) changed" + "".join(f"\n  {line}" for line in changed))
    if out is not None:
        out.write_text("".join(json.dumps(asdict(o), default=str) + "\n" for o in outcomes))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
