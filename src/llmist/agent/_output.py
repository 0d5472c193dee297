"""The output types of a spec as final-answer gadgets: the record :class:`~llmist.agent.spec.AgentSpec`
holds (``spec.output``), made from ``output_type`` when the spec is. The feature that runs them,
and types the result, is :mod:`llmist.agent._features.output` (see its docstring); this part sits
below the spec so that the spec imports no feature."""

from __future__ import annotations

import types
import typing
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, TypeAdapter, create_model

from llmist.gadgets import ExecutionContext, Gadget, TaskCompletionSignal

__all__ = ["DEFAULT_MAX_OUTPUT_RETRIES", "OutputSpec", "output_spec"]

DEFAULT_MAX_OUTPUT_RETRIES = 3
"""Failed final answers a run accepts before it gives up."""


class _FinalAnswer(Gadget):
    """One output type as a gadget: its execution ends the run with the validated value as JSON."""

    def __init__(self, name: str, output: type[Any], params: type[BaseModel], wrapped: bool, ends_run: bool) -> None:
        self.name = name
        self.Params = params
        self.output = output
        self.wrapped = wrapped
        # Only when prose is no answer: otherwise the prompt would tell the model to end by
        # calling it and, in the same breath, that it may answer in plain text.
        self.ends_run = ends_run
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
    return OutputSpec(tuple(_gadget_for(t, single, not allow_text) for t in typed), allow_text, max_retries)


def _members(output_type: Any) -> list[Any]:
    if isinstance(output_type, (list, tuple)):
        found = [m for t in output_type for m in _members(t)]
    else:
        is_union = typing.get_origin(output_type) in (typing.Union, types.UnionType)
        found = list(typing.get_args(output_type)) if is_union else [output_type]
    if not found:
        raise ValueError("output_type is empty; expected a type, a union of types or a list of types")
    return list(dict.fromkeys(found))


def _gadget_for(output: Any, single: bool, ends_run: bool) -> _FinalAnswer:
    name = "FinalAnswer" if single else f"FinalAnswer_{_type_name(output)}"
    if isinstance(output, type) and issubclass(output, BaseModel):
        return _FinalAnswer(name, output, output, wrapped=False, ends_run=ends_run)
    TypeAdapter(output)  # fails early, naming the type, when pydantic cannot validate it
    params = create_model(f"{name}Params", result=(output, ...))
    return _FinalAnswer(name, output, params, wrapped=True, ends_run=ends_run)


def _type_name(output: Any) -> str:
    return str(getattr(output, "__name__", None) or repr(output))
