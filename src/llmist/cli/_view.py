"""The live terminal view of ``llmist agent``: streamed prose, each call as it is parsed, a spinner
while it runs, its (folded) result, a status line, and a summary at the end.

A call is "waiting" from the moment it is parsed until it starts (its dependencies are done and,
where it needs one, a person approved it: the ``on_gadget_start`` observer says so), and
"running", with a timer, from then on. While a question is open (:meth:`AgentView.pause`) nothing
of the view is printed: what comes meanwhile is printed once the question is answered, never on
the question's own line."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.spinner import Spinner
from rich.table import Table
from rich.text import Text

from llmist._text import visible
from llmist.agent import (
    AgentEvent,
    AgentResult,
    GadgetContext,
    GadgetPendingEvent,
    GadgetResultEvent,
    GadgetSkippedEvent,
    GuardrailEvent,
    LLMResponseEndEvent,
    ModelFallbackEvent,
    Progress,
    ReasoningEvent,
    SubagentEvent,
)
from llmist.cli._summary import declined, exit_code, print_summary
from llmist.execution import GadgetExecutionResult
from llmist.syntax import ArgsPartialEvent, GadgetCallEvent, ParsedCall, TextEvent

__all__ = ["AgentView", "fold"]

FOLD_LINES = 12
"""Results longer than this many lines are folded."""
_VALUE_LINES = 6


def fold(text: str, max_lines: int = FOLD_LINES) -> str:
    """``text`` cut to its first lines with a note of what was left out."""
    lines = text.splitlines()
    if len(lines) <= max_lines:
        return text.rstrip("\n")
    keep = max(1, max_lines - 2)
    hidden = lines[keep:]
    return "\n".join(lines[:keep]) + f"\n… {len(hidden)} more lines ({sum(map(len, hidden))} characters) folded"


@dataclass(slots=True)
class _Running:
    name: str
    invocation_id: str
    dependencies: tuple[str, ...] = ()
    started: float | None = None
    """When the call started (``None``: it waits for a dependency, an approval or a free slot)."""
    spinner: Spinner = field(default_factory=lambda: Spinner("dots", style="cyan"))


class AgentView:
    """Renders agent events on a rich console; ``live`` animates the bottom status area."""

    def __init__(self, console: Console, *, model: str, max_iterations: int, live: bool = True) -> None:
        self.console = console
        self.model = model
        self.max_iterations = max_iterations
        self.started = time.perf_counter()
        self.progress = Progress(0, 0, 0, 0.0, 0.0, 0.0, 0)
        self.responses = 0
        self.running: dict[str, _Running] = {}
        """Calls parsed and not finished: waiting, or running once started."""
        self.started_at: dict[str, float] = {}
        """When each call started (``on_gadget_start``), by invocation id."""
        self.done: set[str] = set()
        """Calls that ended (a result, a skip, a wait for a decision), by invocation id."""
        self.took: dict[int, float] = {}
        """How long each finished call ran, in ms, as shown (see :meth:`_elapsed_ms`), by ``id()`` of
        its result: a model may give calls of two responses the same invocation id."""
        self.results: list[GadgetExecutionResult] = []
        self.skipped: list[GadgetSkippedEvent] = []
        self.notice: str | None = None
        self._in_response = False
        self._line = ""
        self._thinking = False
        self._paused = False
        self._held: list[RenderableType] = []
        self._live: Live | None = (
            Live(_Bottom(self), console=console, refresh_per_second=12, transient=True) if live else None
        )

    # --- lifecycle ----------------------------------------------------------------------

    def start(self) -> None:
        """Start animating the status area."""
        self.console.print(
            Text.assemble(
                ("llmist agent", "bold"),
                " · model ",
                (self.model, "cyan"),
                f" · up to {self.max_iterations} iterations",
            )
        )
        if self._live is not None:
            self._live.start()

    def pause(self) -> None:
        """Stop animating (to ask the user something) and hold what the view would print, so that
        nothing lands on the question's line; :meth:`resume` prints it and animates again. A line
        of prose still being written is kept whole, not cut at the question."""
        if self._live is not None:
            self._live.stop()
        self._paused = True

    def resume(self) -> None:
        """Print what came while paused, and animate again after :meth:`pause`."""
        self._release()
        if self._live is not None:
            self._live.start()

    def stop(self) -> None:
        """Flush pending text and stop animating."""
        self._release()
        self._flush_text()
        if self._live is not None:
            self._live.stop()

    def on_gadget_start(self, ctx: GadgetContext) -> None:
        """A call starts running (the ``on_gadget_start`` observer): its dependencies are done and
        it was approved. Until now it was shown waiting."""
        now = time.perf_counter()
        self.started_at[ctx.invocation_id] = now
        run = self.running.get(ctx.invocation_id)
        if run is not None:
            run.started = now

    def _release(self) -> None:
        self._paused = False
        held, self._held = self._held, []
        for renderable in held:
            self._print(renderable)

    def on_progress(self, progress: Progress) -> None:
        """Take tokens and costs from ``HookPresets.progress_tracking``."""
        self.progress = progress

    def note(self, message: str) -> None:
        """Show a notice in the status area (e.g. that the run is being cancelled)."""
        self.notice = message
        self._print(Text(message, style="yellow"))

    # --- events -------------------------------------------------------------------------

    def handle(self, event: AgentEvent) -> None:
        """Render one event."""
        if isinstance(event, LLMResponseEndEvent):
            self._in_response = False
        elif isinstance(event, (TextEvent, GadgetCallEvent, ArgsPartialEvent)):
            self._in_response = True
        if isinstance(event, TextEvent):
            self._text(event.content)
        elif isinstance(event, GadgetCallEvent):
            self._flush_text()
            self._call(event.call)
        elif isinstance(event, GadgetResultEvent):
            self._result(event.result)
        elif isinstance(event, GadgetSkippedEvent):
            self.running.pop(event.invocation_id, None)
            self.done.add(event.invocation_id)
            self.skipped.append(event)
            self._print(
                Text.assemble(
                    ("  ⤼ ", "yellow"),
                    (visible(event.gadget_name), "bold"),
                    f" ({visible(event.invocation_id)}) skipped: it depends on ",
                    (visible(event.failed_dependency), "bold"),
                    f", which failed ({visible(event.failed_dependency_error)})",
                )
            )
        elif isinstance(event, GadgetPendingEvent):
            waiting = event.pending
            self.running.pop(waiting.invocation_id, None)
            self.done.add(waiting.invocation_id)
            why = f"runs after {waiting.waits_for}" if waiting.waits_for else f"waits for approval: {waiting.reason}"
            name = (waiting.gadget_name, "bold")
            self._print(Text.assemble(("  ⏸ ", "yellow"), name, f" ({waiting.invocation_id}) {why}"))
        elif isinstance(event, LLMResponseEndEvent):
            self._flush_text()
            self.responses += 1
        elif isinstance(event, ReasoningEvent):
            self._text(event.content, thinking=True)
        elif isinstance(event, SubagentEvent):
            self._subagent(event)
        elif isinstance(event, (GuardrailEvent, ModelFallbackEvent)):
            self._note(event)

    def _note(self, event: GuardrailEvent | ModelFallbackEvent) -> None:
        """A guardrail's check, or a model taking over from one that failed."""
        if isinstance(event, GuardrailEvent):
            self._guardrail(event)
            return
        self._flush_text()
        then = "starts the answer over (the text above is void)" if event.restart else "answers"
        line = Text.assemble(("  ⟳ ", "magenta bold"), (event.failed, "bold"), f" failed ({event.error}); ")
        line.append_text(Text.assemble((event.model, "bold"), f" {then}"))
        self._print(line)

    def _guardrail(self, event: GuardrailEvent) -> None:
        """A guardrail that did something (a pass is not shown)."""
        g = event.record
        if g.outcome == "pass":
            return
        self._flush_text()
        mark, style, verb = {
            "tripwire": ("⛔", "red", "tripped"),
            "refuse": ("⊘", "yellow", "refused"),
            "rewrite": ("✎", "yellow", "rewrote"),
        }[g.outcome]
        what = f"{g.gadget} ({g.invocation_id})" if g.gadget else g.kind.replace("_", " ")
        line = Text.assemble((f"  {mark} guardrail ", style), (g.name, f"bold {style}"), f" {verb} {what}")
        if g.reason:
            line.append(f": {g.reason}", style=style)
        self._print(line)

    def _subagent(self, event: SubagentEvent) -> None:
        """A subagent's calls and results, one line each, under the path of the calls that led there
        (its prose stays in its own result, which the calling gadget returns)."""
        inner = event.event
        where = visible(" › ".join(step.split(":")[0] for step in event.path))
        if isinstance(inner, GadgetCallEvent):
            call = inner.call
            self._print(
                Text.assemble(("  " * event.depth + "▷ ", "cyan"), (where, "dim"), f" {visible(call.gadget_name)}")
            )
        elif isinstance(inner, GadgetResultEvent):
            mark, style = ("✗", "red") if inner.result.error is not None else ("✓", "green")
            indent = "  " * event.depth
            name = visible(inner.result.gadget_name)
            self._print(Text.assemble((f"{indent}{mark} ", style), (where, "dim"), f" {name}"))

    def _text(self, content: str, *, thinking: bool = False) -> None:
        """Prose (or a reasoning model's thinking, dimmed) printed line by line as it streams."""
        if thinking != self._thinking:
            self._flush_text()
            self._thinking = thinking
        *done, self._line = (self._line + visible(content)).split("\n")
        for line in done:
            self._print(Text(line, style=self._style()))

    def _flush_text(self) -> None:
        if self._line:
            line, self._line = self._line, ""
            if line.strip():
                self._print(Text(line, style=self._style()))

    def _style(self) -> str:
        return "dim italic" if self._thinking else ""

    def _call(self, call: ParsedCall) -> None:
        # The start may already be known: the executor can start a call before its event is shown.
        started = self.started_at.get(call.invocation_id)
        self.done.discard(call.invocation_id)  # an earlier call of this id is not this one
        self.running[call.invocation_id] = _Running(call.gadget_name, call.invocation_id, call.dependencies, started)
        head = Text.assemble(
            ("▶ ", "cyan bold"), (visible(call.gadget_name), "bold cyan"), (f" ({visible(call.invocation_id)})", "dim")
        )
        if call.dependencies:
            head.append(f" after {visible(', '.join(call.dependencies))}", style="dim")
        lines = [head]
        if call.syntax == "emoji":
            params: dict[str, Any] = {}
            if call.raw_args:
                params["args"] = call.raw_args
            if call.body:
                params["body"] = call.body
        else:
            params = call.parameters or {}
            if call.parse_error:
                lines.append(Text(f"    parse error: {visible(call.parse_error)}", style="red"))
        for key, value in params.items():
            lines.append(_param_line(key, value))
        self._print(Group(*lines))

    def _result(self, r: GadgetExecutionResult) -> None:
        self.running.pop(r.invocation_id, None)
        self.done.add(r.invocation_id)
        self.results.append(r)  # kept, so that the id() keys of ``took`` stay its own
        self.took[id(r)] = ms = self._elapsed_ms(r)
        never_ran = r.status == "cancelled" and r.invocation_id not in self.started_at
        self.started_at.pop(r.invocation_id, None)  # a later call may take the same id
        took = " (cancelled before it started)" if never_ran else f" {ms:,.0f} ms"
        name, call_id = visible(r.gadget_name), f" ({visible(r.invocation_id)})"
        code = exit_code(r)
        if r.error is not None:
            head = Text.assemble(("  ✗ ", "red bold"), (name, "bold red"), (call_id, "dim"), (took, "dim"))
            body = Text(_indent(fold(visible(r.error))), style="red")
        elif code is not None and code != 0:
            # The gadget worked, the command failed: not the ✓ of a command that succeeded.
            head = Text.assemble(
                ("  ✗ ", "red bold"), (name, "bold red"), (call_id, "dim"), (f" exit code {code}", "red"), (took, "dim")
            )
            body = Text(_indent(fold(visible(r.result or ""))), style="dim")
        elif declined(r):
            head = Text.assemble(("  ⊘ ", "yellow bold"), (name, "bold yellow"), (call_id, "dim"), " declined")
            body = Text(_indent(fold(visible(r.result or ""))), style="dim")
        else:
            head = Text.assemble(("  ✓ ", "green bold"), (name, "bold green"), (call_id, "dim"))
            if code is not None:
                head.append(f" exit code {code}", style="green")
            head.append(took, style="dim")
            if r.cost:
                head.append(f" ${r.cost:.4f}", style="dim")
            body = Text(_indent(fold(visible(r.result or "(empty)"))), style="dim")
        self._print(Group(head, body))

    def _elapsed_ms(self, r: GadgetExecutionResult) -> float:
        """How long ``r``'s call ran, from its start (``on_gadget_start``) to its result. The
        result's own time counts from when the call was ready, so it includes the wait for a
        person's approval; and a call that the run's cancellation ended reports none at all."""
        started = self.started_at.get(r.invocation_id)
        if started is None:
            return r.execution_time_ms
        seen = (time.perf_counter() - started) * 1000  # an upper bound: the event reached us a bit later
        return seen if r.status == "cancelled" else min(r.execution_time_ms, seen)

    def _print(self, renderable: RenderableType) -> None:
        if self._paused:
            self._held.append(renderable)
            return
        self.console.print(renderable, soft_wrap=False)

    # --- status and summary -------------------------------------------------------------

    def status_line(self) -> Text:
        """Iteration, tokens, cost and elapsed time."""
        p = self.progress
        waiting_on_calls = bool(self.running) and not self._in_response
        iteration = min(self.responses if waiting_on_calls else self.responses + 1, self.max_iterations)
        elapsed = time.perf_counter() - self.started
        return Text.assemble(
            ("iteration ", "dim"),
            f"{iteration}/{self.max_iterations}",
            ("  tokens ", "dim"),
            f"{p.input_tokens:,} in / {p.output_tokens:,} out",
            ("  cost ", "dim"),
            f"${p.total_cost:.4f}",
            ("  elapsed ", "dim"),
            f"{elapsed:.1f}s",
        )

    def summary(self, result: AgentResult | None, *, error: str | None = None) -> None:
        """The closing tables: how the run ended, then each gadget's calls."""
        self.stop()
        results = result.gadget_results if result is not None else self.results
        print_summary(
            self.console, result, results, took=self.took, elapsed=time.perf_counter() - self.started, error=error
        )


class _Bottom:
    """The animated area under the log: running calls with spinners, the current line, the status."""

    def __init__(self, view: AgentView) -> None:
        self.view = view

    def __rich__(self) -> RenderableType:
        v = self.view
        rows: list[RenderableType] = []
        if v._line.strip():
            rows.append(Text(v._line[-200:], style="italic"))
        now = time.perf_counter()
        for run in list(v.running.values()):
            grid = Table.grid(padding=(0, 1))
            label = Text.assemble((visible(run.name), "bold"), f" ({visible(run.invocation_id)})")
            if run.started is not None:
                label.append(" running")
                label.append(f" {now - run.started:.1f}s", style="dim")
                grid.add_row(run.spinner, label)
            else:
                # No timer: nothing runs yet. It waits for its dependencies, else to be let start
                # (an approval, or a free slot under a concurrency limit).
                waits_for = [d for d in run.dependencies if d not in v.done]
                label.append(f" waiting for {visible(', '.join(waits_for))}" if waits_for else " waiting to start")
                grid.add_row(Text("⏸", style="yellow"), label)
            rows.append(grid)
        rows.append(v.status_line())
        return Group(*rows)


def _param_line(key: str, value: Any) -> Text:
    key = visible(key)
    text = visible(value if isinstance(value, str) else repr(value))
    if "\n" in text.rstrip("\n"):
        shown = fold(text, _VALUE_LINES)
        return Text.assemble(("    " + key + ":\n", "bold"), (_indent(shown, 6), ""))
    text = text.rstrip("\n")
    if len(text) > 160:
        text = text[:157] + "..."
    return Text.assemble(("    " + key + ": ", "bold"), text)


def _indent(text: str, n: int = 4) -> str:
    pad = " " * n
    return "\n".join(pad + line for line in text.splitlines()) or pad
