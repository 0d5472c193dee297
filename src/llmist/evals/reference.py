"""The reference model: replays a case's ``solution`` in the syntax under test (native: as
tool calls through the mock model's tool-calling API).

``llmist eval -m mock`` runs it. Every case of a suite should pass with it; a case that does
not has a wrong solution or a wrong grader, so the suite's own test runs it for each case.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from llmist.evals.case import Call, EvalCase, SyntaxName
from llmist.gadgets import Gadget, as_gadget
from llmist.providers.base import Message
from llmist.providers.mock import MockModel, MockReply
from llmist.testing import block_call, emoji_call, tool_call

__all__ = ["reference_model", "write_calls"]


def reference_model(case: EvalCase, syntax: SyntaxName) -> MockModel:
    """A scripted model answering ``case`` with its solution, written in ``syntax``."""
    gadgets = {g.name: g for g in (as_gadget(x) for x in case.make_gadgets())}

    def answer(messages: Sequence[Message]) -> str | MockReply:
        turn = sum(1 for m in messages if m.role == "assistant")
        if turn >= len(case.solution):
            return "Done."
        step = case.solution[turn]
        if callable(step):
            step = step(messages[-1].text)
        if isinstance(step, str):
            return step
        if syntax == "native":
            return MockReply(tool_calls=[tool_call(c.gadget, dict(c.params), id=c.id) for c in step])
        return write_calls(step, syntax, gadgets)

    return MockModel(answer, name="reference")


def write_calls(calls: Sequence[Call], syntax: SyntaxName, gadgets: Mapping[str, Gadget]) -> str:
    """``calls`` as a model writes them in a text syntax (emoji: named arguments, and the body
    field of the gadget in the body)."""
    if syntax != "emoji":
        return "".join(block_call(c.gadget, dict(c.params), invocation_id=c.id, deps=c.deps) for c in calls)
    return "".join(_emoji(c, gadgets.get(c.gadget)) for c in calls)


def _emoji(call: Call, gadget: Gadget | None) -> str:
    body_field = _body_field(gadget) if gadget is not None else None
    args = [f"{k}={_arg(v)}" for k, v in call.params.items() if k != body_field]
    body = call.params.get(body_field) if body_field is not None else None
    return emoji_call(call.gadget, *args, body=None if body is None else _arg(body))


def _arg(value: Any) -> str:
    if isinstance(value, list):
        return ",".join(_arg(v) for v in value)
    if isinstance(value, dict):
        return json.dumps(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _body_field(gadget: Gadget) -> str | None:
    props = gadget.Params.model_json_schema().get("properties", {})
    return next((name for name, p in props.items() if p.get("body") is True), None)
