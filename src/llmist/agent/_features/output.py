"""Structured final output: the model ends the run by calling a final-answer gadget.

``Agent(output_type=Model)`` adds one built-in gadget per output type (``FinalAnswer`` when there
is one; ``FinalAnswer_<Name>`` per member of a union) whose parameter schema *is* the type. The
answer therefore goes through the same parser, pointer assembly, schema-aware coercion and
validation as any call, and streams as ``gadget_args_partial`` events. A call that fails
validation goes back to the model like any invalid call; after ``max_output_retries`` failed
answers the run stops and :class:`OutputValidationError` is raised. The gadget ends the loop
with ``TaskCompletionSignal`` carrying the validated value as JSON; the wrapper here turns that
back into the typed instance. ``str`` among the types lets the model answer in prose instead.

As a feature: the gadgets are the final-answer gadgets; ``wrap`` adds the instruction to the
prompt and, for this run, an observer that counts failed answers, and types the result.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from llmist.agent._features import Feature
from llmist.agent._output import DEFAULT_MAX_OUTPUT_RETRIES, OutputSpec, output_spec
from llmist.agent._run.media import with_text
from llmist.agent.errors import OutputValidationError
from llmist.agent.hooks import Hooks, Observers
from llmist.agent.result import AgentResult
from llmist.execution import GadgetExecutionResult
from llmist.gadgets import Gadget

if TYPE_CHECKING:
    from llmist.agent._run.context import RunContext, RunEvents
    from llmist.agent.spec import AgentSpec

__all__ = ["DEFAULT_MAX_OUTPUT_RETRIES", "OutputSpec", "OutputValidationError", "TypedOutput", "output_spec"]


class TypedOutput(Feature):
    """Typed output as a feature: its gadgets, and the typed run around the loop."""

    def gadgets(self, spec: AgentSpec) -> Sequence[Gadget]:
        """The final-answer gadgets of the spec's output type (none for ``str``)."""
        return spec.output.gadgets if spec.output is not None else ()

    def wrap(self, run: RunContext, events: RunEvents) -> RunEvents:
        """A typed run: the prompt says how to finish, failed answers are counted (past the
        limit the run is cancelled), and the result's output becomes the validated value."""
        spec = run.spec.output
        if spec is None:
            return events
        return _TypedRun(self, run, spec).events(events)


class _TypedRun:
    """One typed run: why it gave up, if it did, and its result typed at the end."""

    def __init__(self, feature: TypedOutput, run: RunContext, spec: OutputSpec) -> None:
        self._feature = feature
        self._run = run
        self._spec = spec
        self._gave_up: str | None = None

    def give_up(self, reason: str) -> None:
        self._gave_up = reason
        self._run.signal.abort(reason)

    async def events(self, events: RunEvents) -> RunEvents:
        """The run's events, then the result typed (or :class:`OutputValidationError`).

        The prompt gets its instruction when the run starts, not when it is assembled: the
        features outside this one (an input guardrail) see the prompt the user gave."""
        run, spec = self._run, self._spec
        instruction = spec.instruction()
        run.prompt = instruction if run.prompt is None else with_text(run.prompt, instruction)
        run.add_hooks(self._feature, output_hooks(spec, self.give_up))  # per run: the count is this run's
        try:
            async for batch in events:
                yield batch
        finally:
            await events.aclose()
        run = self._run
        if run.result is not None:
            run.result = typed_result(self._spec, run.result, self._gave_up)


def output_hooks(spec: OutputSpec, on_give_up: Callable[[str], None]) -> Hooks:
    """An observer that counts a run's failed final answers and calls ``on_give_up`` past the limit."""
    names = {g.name for g in spec.gadgets}
    failures: list[str] = []

    def count(result: GadgetExecutionResult) -> None:
        if result.gadget_name in names and result.error is not None:
            failures.append(result.error)
            if len(failures) > spec.max_retries:
                on_give_up(
                    f"the model gave {len(failures)} invalid final answers (limit {spec.max_retries} retries); "
                    f"the last error: {result.error}"
                )

    return Hooks(observers=Observers(on_gadget_complete=count))


def typed_result(spec: OutputSpec, result: AgentResult[Any], gave_up: str | None) -> AgentResult[Any]:
    """``result`` with ``output`` the validated value; raises when there is none."""
    if gave_up is not None:
        raise OutputValidationError(f"no valid final answer: {gave_up}", result)
    if result.stop_reason == "awaiting_approval":  # not over: the answer comes once the calls are decided
        return result
    by_name = {g.name: g for g in spec.gadgets}
    for r in reversed(result.gadget_results):
        gadget = by_name.get(r.gadget_name)
        if gadget is not None and r.breaks_loop and r.error is None and r.result is not None:
            return dataclasses.replace(result, output=gadget.parse(r.result))
    if spec.allow_text and result.stop_reason == "no_calls":
        return result
    names = " or ".join(by_name)
    raise OutputValidationError(
        f"the run ended ({result.stop_reason}) without a final answer: the model never called {names} validly",
        result,
    )
