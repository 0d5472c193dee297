"""Structured final output: the model ends the run by calling a final-answer gadget.

``Agent(output_type=Model)`` adds one built-in gadget per output type (``FinalAnswer`` when there
is one; ``FinalAnswer_<Name>`` per member of a union) whose parameter schema *is* the type. The
answer therefore goes through the same parser, pointer assembly, schema-aware coercion and
validation as any call, and streams as ``gadget_args_partial`` events. A call that fails
validation goes back to the model like any invalid call; after ``max_output_retries`` failed
answers the run stops and :class:`OutputValidationError` is raised. The gadget ends the loop
with ``TaskCompletionSignal`` carrying the validated value as JSON; the wrapper here turns that
back into the typed instance. ``str`` among the types lets the model answer in prose instead.

Kept apart from the loop: the run is wrapped (extra gadgets, one observer, the result
rewritten), not changed.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, TypeAdapter, create_model

from llmist.agent.hooks import Hooks, Observers
from llmist.agent.result import AgentResult
from llmist.errors import LlmistError
from llmist.execution import GadgetExecutionResult
from llmist.gadgets import ExecutionContext, Gadget, TaskCompletionSignal

__all__ = ["DEFAULT_MAX_OUTPUT_RETRIES", "OutputSpec", "OutputValidationError", "output_spec"]

DEFAULT_MAX_OUTPUT_RETRIES = 3
"""Failed final answers a run accepts before it gives up."""


class OutputValidationError(LlmistError):
    """The run ended without a valid final answer of the requested output type."""

    def __init__(self, message: str, result: AgentResult[Any]) -> None:
        super().__init__(message)
        self.result = result
        """The run's result (``output`` is the last prose; ``gadget_results`` hold the failed answers)."""


class _FinalAnswer(Gadget):
    """One output type as a gadget: its execution ends the run with the validated value as JSON."""

    def __init__(self, name: str, output: type[Any], params: type[BaseModel], wrapped: bool) -> None:
        self.name = name
        self.Params = params
        self.output = output
        self.wrapped = wrapped
        self.description = (
            f"Give your final answer as a {_type_name(output)} and end the task. "
            "Call this once, when the task is done, with every required field; nothing after it runs."
        )

    def execute(self, params: BaseModel, ctx: ExecutionContext) -> str:
        raise TaskCompletionSignal(params.model_dump_json(by_alias=True))

    def parse(self, summary: str) -> Any:
        """The typed value from the JSON the call ended the run with."""
        value = self.Params.model_validate_json(summary)
        return value.result if self.wrapped else value  # type: ignore[attr-defined]


@dataclass(frozen=True, slots=True)
class OutputSpec:
    """The output types of a run, as final-answer gadgets, plus whether prose is an answer."""

    gadgets: tuple[_FinalAnswer, ...]
    allow_text: bool
    max_retries: int

    def instruction(self) -> str:
        """What the user prompt adds so the model knows how to finish."""
        names = " or ".join(g.name for g in self.gadgets)
        text = f"When the task is done, give your final answer by calling {names}."
        if self.allow_text:
            text += " You may also answer in plain text without calling a gadget."
        return text


def output_spec(output_type: Any, max_retries: int) -> OutputSpec | None:
    """The spec for ``output_type`` (a type, a ``A | B`` union or a list of types); ``None`` for ``str``."""
    members = _members(output_type)
    allow_text = str in members
    typed = [m for m in members if m is not str]
    if not typed:
        return None
    if max_retries < 0:
        raise ValueError(f"max_output_retries must be 0 or more, got {max_retries}")
    single = len(typed) == 1
    return OutputSpec(tuple(_gadget_for(t, single) for t in typed), allow_text, max_retries)


def _members(output_type: Any) -> list[Any]:
    if isinstance(output_type, (list, tuple)):
        found = [m for t in output_type for m in _members(t)]
    else:
        is_union = typing.get_origin(output_type) in (typing.Union, types.UnionType)
        found = list(typing.get_args(output_type)) if is_union else [output_type]
    if not found:
        raise ValueError("output_type is empty; expected a type, a union of types or a list of types")
    return list(dict.fromkeys(found))


def _gadget_for(output: Any, single: bool) -> _FinalAnswer:
    name = "FinalAnswer" if single else f"FinalAnswer_{_type_name(output)}"
    if isinstance(output, type) and issubclass(output, BaseModel):
        return _FinalAnswer(name, output, output, wrapped=False)
    TypeAdapter(output)  # fails early, naming the type, when pydantic cannot validate it
    params = create_model(f"{name}Params", result=(output, ...))
    return _FinalAnswer(name, output, params, wrapped=True)


def _type_name(output: Any) -> str:
    return str(getattr(output, "__name__", None) or repr(output))


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


async def typed_events(
    events: AsyncGenerator[Any, None],
    finish: Callable[[], None],
) -> AsyncGenerator[Any, None]:
    """The run's events, then ``finish()`` (which types the result or raises)."""
    try:
        async for event in events:
            yield event
    finally:
        await events.aclose()
    finish()
