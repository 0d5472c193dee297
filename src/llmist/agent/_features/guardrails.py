"""Guardrails in a run (what each kind checks and each verdict means: :mod:`llmist.agent.guardrails`).

As a feature it adds no gadget and no hook to the plan: a run's checks keep state of their own
(the records, the tripwire, a parallel check's verdict), so ``wrap`` adds them to the run:

- **input** checks run when the run starts, before the loop (the session's history loaded
  first, so they see it); a parallel one runs beside the loop, and calls wait for it;
- **tool-call** checks are a ``before_gadget`` controller: a feature's, it decides before the
  agent's own controllers, and this feature sits before approvals (a person is not asked about
  a refused call);
- **tool-result** checks are an ``after_gadget`` controller: a rewrite changes what is recorded,
  streamed and sent;
- **output** checks run on the result once the loop and the features inside this one (typed
  output) made it.

A tripwire during the run aborts the run's signal (the model's stream and running calls stop,
as for a cancel); the result then says ``"guardrail"`` instead of ``"cancelled"``. Each check
becomes a :class:`~llmist.agent.events.GuardrailEvent` in the stream, placed before the batch of
events that follows it (so before the result of a call it refused), and goes to the
``on_guardrail`` observers (tracing makes its span there). ``Agent.run`` then raises
:class:`~llmist.agent.errors.GuardrailTripped` instead of returning, with ``raise_on_tripwire``
(:meth:`Guarding.returning`; a stream ends as usual).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from llmist.agent._features import Feature
from llmist.agent._features.session import load_history
from llmist.agent._run.loop import start_messages
from llmist.agent.errors import GuardrailTripped, OutputValidationError
from llmist.agent.events import AgentEvent, GuardrailEvent
from llmist.agent.guardrails import (
    GuardedCall,
    GuardedInput,
    GuardedOutput,
    GuardedResult,
    Guardrail,
    GuardrailRecord,
    Guardrails,
    Refuse,
    Rewrite,
    Tripwire,
    run_guardrail,
)
from llmist.agent.hooks import (
    Controllers,
    GadgetContext,
    Hooks,
    LLMCallContext,
    Observers,
    ReplaceParameters,
    ReplaceResult,
    SkipGadget,
    call_observer,
)
from llmist.agent.result import AgentResult
from llmist.execution import GadgetExecutionResult
from llmist.providers.base import ContentPart, Message, Usage

if TYPE_CHECKING:
    from llmist.agent._run.context import RunContext, RunEvents

__all__ = ["Guarding"]


class Guarding(Feature):
    """Guardrails as a feature: nothing in the plan; each run's checks around it."""

    def wrap(self, run: RunContext, events: RunEvents) -> RunEvents:
        """A run with guardrails: its input checked first, its calls and results as they come,
        its output at the end."""
        guardrails = run.spec.guardrails
        if guardrails is None:
            return events
        return _GuardedRun(self, run, guardrails).events(events)

    def returning(self, run: RunContext, result: AgentResult[Any]) -> None:
        """``run()`` raises :class:`GuardrailTripped` on a tripwire, with ``raise_on_tripwire``."""
        guardrails = run.spec.guardrails
        if result.tripwire is not None and guardrails is not None and guardrails.raise_on_tripwire:
            raise GuardrailTripped(result.tripwire, result)


class _GuardedRun:
    """The checks of one run, their records, and the tripwire that stopped it (if one did)."""

    def __init__(self, feature: Guarding, run: RunContext, guardrails: Guardrails) -> None:
        self._feature = feature
        self._run = run
        self._guardrails = guardrails
        self._records: list[GuardrailRecord] = []
        self._pending: list[AgentEvent] = []
        self._tripped: GuardrailRecord | None = None
        self._messages: Sequence[Message] = ()
        self._verdict: asyncio.Future[bool] | None = None
        self._observe: Any = None
        self._iteration = 0
        self._ended = False

    async def events(self, events: RunEvents) -> RunEvents:
        """The run's events with the checks' events among them; the result completed at the end."""
        run = self._run
        obs = run.hooks_for(run.plan).observers
        self._observe = obs.on_guardrail if obs is not None else None
        try:
            await self._check_input()
            if self._tripped is not None:
                run.result = self._unstarted_result()
            else:
                run.add_hooks(self._feature, self._hooks())
                self._start_parallel()
                try:
                    async for batch in events:
                        yield self._with_pending(batch)
                except OutputValidationError as error:  # no final answer: the tripwire says why
                    if self._tripped is None:
                        raise
                    run.result = error.result
                if self._verdict is not None:
                    await asyncio.shield(self._verdict)  # a run that ended before its verdict
                await self._check_output()
        finally:
            await events.aclose()
            if self._verdict is not None and not self._verdict.done():
                self._verdict.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await self._verdict
        result = run.result
        if result is not None:
            result.guardrails = self._records
            if self._tripped is not None:
                result.tripwire = self._tripped
                result.stop_reason = "guardrail"
        if self._pending:
            yield self._with_pending([])

    # --- records ---------------------------------------------------------------------------

    async def _note(self, record: GuardrailRecord) -> None:
        self._records.append(record)
        self._pending.append(GuardrailEvent(record))
        if self._observe is not None:
            await call_observer(self._observe, record)

    def _with_pending(self, batch: list[AgentEvent]) -> list[AgentEvent]:
        if not self._pending:
            return batch
        events, self._pending = [*self._pending, *batch], []
        return events

    def _trip(self, record: GuardrailRecord) -> None:
        """The run stops: what is in flight is cancelled, as for a cancel."""
        if self._tripped is None:
            self._tripped = record
            if not self._ended:
                self._run.signal.abort(record.describe())

    async def _check(
        self, check: Guardrail, subject: Any, *, iteration: int = 0, gadget: str | None = None, call: str | None = None
    ) -> Any:
        """Run one check and note it; its verdict."""
        record, verdict = await run_guardrail(check, subject, iteration=iteration, gadget=gadget, invocation_id=call)
        await self._note(record)
        if isinstance(verdict, Tripwire):
            self._trip(record)
        return verdict

    # --- input ------------------------------------------------------------------------------

    async def _check_input(self) -> None:
        """The sequential input checks, in order (a rewrite is what the next one and the model read)."""
        run = self._run
        checks = [g for g in self._guardrails.of_kind("input") if not g.parallel]
        if not checks or run.prompt is None:
            return
        await load_history(run)
        prompt = run.prompt
        for check in checks:
            verdict = await self._check(check, self._input(prompt))
            if isinstance(verdict, Tripwire):
                return
            if isinstance(verdict, Rewrite):
                prompt = verdict.value
        run.prompt = prompt

    def _input(self, prompt: str | tuple[ContentPart, ...]) -> GuardedInput:
        text = prompt if isinstance(prompt, str) else "".join(getattr(p, "text", "") or "" for p in prompt)
        return GuardedInput(text, prompt, tuple(self._run.history or ()))

    def _start_parallel(self) -> None:
        """The parallel input checks, beside the run (calls wait for their verdict)."""
        checks = [g for g in self._guardrails.of_kind("input") if g.parallel]
        if checks and self._run.prompt is not None:
            self._verdict = asyncio.ensure_future(self._parallel(checks, self._input(self._run.prompt)))

    async def _parallel(self, checks: list[Guardrail], subject: GuardedInput) -> bool:
        for check in checks:
            if isinstance(await self._check(check, subject), Tripwire):
                return False
        return True

    def _unstarted_result(self) -> AgentResult[Any]:
        """The result of a run an input check stopped before the loop: no model call, no output."""
        run = self._run
        try:
            messages = start_messages(run.plan.system_message, run.prompt, run.history or ())
        except ValueError:
            messages = []
        return AgentResult("", [], Usage(), 0.0, 0.0, 0, "guardrail", messages)

    # --- calls and results ------------------------------------------------------------------

    def _hooks(self) -> Hooks:
        calls = bool(self._guardrails.of_kind("tool_call")) or any(
            g.parallel for g in self._guardrails.of_kind("input")
        )
        results = bool(self._guardrails.of_kind("tool_result"))
        return Hooks(
            observers=Observers(on_llm_call_start=self._seen),
            controllers=Controllers(
                before_gadget=self._before_gadget if calls else None,
                after_gadget=self._after_gadget if results else None,
            ),
        )

    def _seen(self, ctx: LLMCallContext) -> None:
        self._messages = ctx.messages  # the run's conversation (the loop's own list)
        self._iteration = ctx.iteration

    async def _before_gadget(self, ctx: GadgetContext) -> SkipGadget | ReplaceParameters | None:
        if self._verdict is not None:
            await asyncio.shield(self._verdict)  # no call runs before the parallel checks passed
        if self._tripped is not None:
            return SkipGadget(f"Not run: {self._tripped.describe()}")
        params, changed = ctx.parameters, False
        name, call = ctx.gadget_name, ctx.invocation_id
        for check in self._guardrails.of_kind("tool_call"):
            if not check.applies_to(name):
                continue
            subject = GuardedCall(name, params, call, tuple(self._messages))
            verdict = await self._check(check, subject, iteration=ctx.iteration, gadget=name, call=call)
            if isinstance(verdict, Tripwire):
                return SkipGadget(f"Not run: guardrail {check.name!r} stopped the run: {verdict.reason}")
            if isinstance(verdict, Refuse):
                return SkipGadget(f"Refused by guardrail {check.name!r}: {verdict.reason}")
            if isinstance(verdict, Rewrite):
                params, changed = verdict.value, True
        return ReplaceParameters(params) if changed else None

    async def _after_gadget(self, r: GadgetExecutionResult) -> ReplaceResult | None:
        if r.status == "skipped" or self._tripped is not None:
            return None  # not run: there is no result to check
        result, changed = r.result, False
        name, call = r.gadget_name, r.invocation_id
        for check in self._guardrails.of_kind("tool_result"):
            if not check.applies_to(name):
                continue
            subject = GuardedResult(name, r.parameters, call, result, r.error, tuple(self._messages))
            verdict = await self._check(check, subject, iteration=self._iteration, gadget=name, call=call)
            if isinstance(verdict, Tripwire):
                return ReplaceResult(f"Withheld: guardrail {check.name!r} stopped the run: {verdict.reason}")
            if isinstance(verdict, Rewrite):
                result, changed = verdict.value, True
        return ReplaceResult(result, r.error) if changed else None

    # --- output -----------------------------------------------------------------------------

    async def _check_output(self) -> None:
        result = self._run.result
        checks = self._guardrails.of_kind("output")
        if result is None or not checks or self._tripped is not None:
            return
        self._ended = True  # nothing left to cancel: the signal stays as it is
        output = result.output
        messages = tuple(result.messages)
        for check in checks:
            subject = GuardedOutput(output, _as_text(output), messages)
            verdict = await self._check(check, subject, iteration=result.iterations)
            if isinstance(verdict, Tripwire):
                return
            if isinstance(verdict, Rewrite):
                output = verdict.value
        result.output = output


def _as_text(output: object) -> str:
    """An answer as text: a typed one as its JSON."""
    if isinstance(output, str):
        return output
    dump = getattr(output, "model_dump_json", None)
    if callable(dump):
        return str(dump())
    from pydantic import TypeAdapter

    return TypeAdapter(type(output)).dump_json(output).decode()
