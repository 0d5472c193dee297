"""The system prompt: teaches the active call syntax and lists the gadgets.

Kept tight (every token is paid on every call). Users replace the preamble with ``system=``
or add to it with ``system_extra=``; the syntax section and the gadget list are always there
when the agent has gadgets. With the native syntax the gadgets go to the provider's
tool-calling API instead (:func:`tool_specs`), and the prompt only says how to use them.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, TypeAlias

from llmist.agent.ending import when_done
from llmist.agent.repairs import TAUGHT_IDS
from llmist.execution.names import native_name
from llmist.gadgets import Gadget, render_call, render_gadget, sample_params
from llmist.providers.base import Message, ToolCall, ToolSpec
from llmist.syntax.schema import json_schema
from llmist.syntax.writing import EMOJI_END, EMOJI_START

__all__ = [
    "COPIED_LINE_MAX",
    "DEFAULT_PREAMBLE",
    "Markers",
    "PromptStyle",
    "Syntax",
    "SyntaxOption",
    "estimate_prompt_tokens",
    "example_exchanges",
    "prompt_lines",
    "render_gadget_entry",
    "render_system_prompt",
    "tool_specs",
]

Syntax: TypeAlias = Literal["block", "emoji", "native"]
"""How a model calls gadgets: it writes ``"block"`` (``!!!GADGET_START:``) or ``"emoji"``
(``🛠️[``) calls in its text, or uses its provider's tool-calling API (``"native"``)."""

SyntaxOption: TypeAlias = Literal["block", "emoji", "native", "auto"]
"""An agent's ``syntax`` option: a :data:`Syntax`, or ``"auto"``: native where the model
registry says the model calls tools well natively, the block syntax otherwise."""

PromptStyle: TypeAlias = Literal["full", "compact"]
"""How much the system prompt teaches: ``"full"`` (every rule, every parameter's type, default
and description) or ``"compact"`` (for small models: one call form, one line per gadget)."""

DEFAULT_PREAMBLE = "You are a helpful assistant that completes tasks by calling gadgets (tools)."

_NATIVE_RULES = (
    "Call the tools you need through function calling; several calls in one answer run in parallel, "
    "and their results come back in the next message. Get every result by calling a tool; never work "
    "a result out or guess it yourself. When a call needs the result of another, make the first call "
    "alone and wait for its result. When the task is done, "
)


@dataclass(frozen=True, slots=True)
class Markers:
    """The three block-format markers (configurable, as the spec allows)."""

    start: str = "!!!GADGET_START:"
    """The marker that begins a call; the gadget's name (and id, dependencies) follow it on its line."""
    end: str = "!!!GADGET_END"
    """The marker that ends a call."""
    arg: str = "!!!ARG:"
    """The marker that begins a parameter; its name (a JSON pointer) follows it, its value comes below."""


_CALL_RULES = (
    "- Get every result by calling a gadget; never work a result out or guess it yourself.\n"
    "- After your calls, stop: the results come back in the next message. Never write a result yourself.\n"
    "- When a call needs the result of another, make the first call alone and wait for its result; "
    "then make the next call with the value.\n"
    "- When the task is done, "
)
"""The rules every syntax shares. Qwen2.5-Coder answered 37 × 43 without calling ``multiply``, and
sent a chained call at once with ``[result...]`` as its argument (benchmarks/RESULTS.md)."""


def _shown_call(gadget: Gadget | None, syntax: Literal["block", "emoji"], m: Markers) -> tuple[str, str] | None:
    """A real call of ``gadget`` with concrete values and what it does in words, or ``None``."""
    if gadget is None:
        return None
    params = sample_params(gadget)
    try:
        text = render_call(gadget, params, syntax, start_prefix=m.start, end_prefix=m.end, arg_prefix=m.arg)
    except ValueError:  # a value the emoji header cannot hold
        return None
    values = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in params.items())
    return text, f"{gadget.name} with {values}" if values else gadget.name


def _block_syntax(m: Markers, gadgets: Sequence[Gadget] = ()) -> str:
    s, e, a = m.start, m.end, m.arg
    first = gadgets[0] if gadgets else None
    # The agent's own gadgets in the dependency form too: Qwen2.5-Coder called an example
    # gadget `Summarize` five times over, with the example's ids.
    one = first.name if first else "gadget_name"
    two = gadgets[1].name if len(gadgets) > 1 else one
    # A model copies the form it is shown, placeholders too (Qwen2.5-Coder wrote `value` as a
    # value): the form is a real call of the agent's first gadget.
    shown = _shown_call(first, "block", m)
    form = f"For example, to call {shown[1]}:\n{shown[0]}" if shown else f"{s}gadget_name\n{a}a\n2\n{e}"
    return f"""\
# How to call a gadget
Write one block per call. {form}

- Each `{a}` line names one parameter; its value is on the lines after it, up to the next `{a}` or \
`{e}`, written as is: no quotes, no escaping, several lines allowed.
- A list of plain values is one line of JSON: `[2, 3]`, `["a", "b"]`. Nested fields and lists of \
objects use paths: `{a}config/timeout`, `{a}items/0/name`.
- Several blocks in one answer run in parallel.
- A call that must run after another without needing its result (a file written into a folder \
made first): give the first call an id after its name, and put that id after the second call's \
own id: `{s}{one}:{TAUGHT_IDS[0]}` runs before `{s}{two}:{TAUGHT_IDS[1]}:{TAUGHT_IDS[0]}`.
{_CALL_RULES}{when_done(gadgets, "answer in plain text without any block")}."""


def _emoji_syntax(m: Markers, gadgets: Sequence[Gadget]) -> str:
    shown = _shown_call(gadgets[0] if gadgets else None, "emoji", m)
    form = f"For example, to call {shown[1]}:\n{shown[0]}" if shown else '🛠️[gadget_name 2 "two words"]\n🛠️[/end]'
    return f"""\
# How to call a gadget
Write one block per call. {form}

- Arguments after the name fill the gadget's parameters in the order listed; quote one that \
has spaces. The body (may be empty) fills its body parameter, written as is, several lines allowed.
- A body that must contain the end marker itself writes it `🛠️[\\/end]`: the gadget gets `🛠️[/end]`.
- Several blocks in one answer run in parallel.
{_CALL_RULES}{when_done(gadgets, "answer in plain text without any block")}."""


def _compact_syntax(syntax: Syntax, m: Markers, gadgets: Sequence[Gadget]) -> str:
    if syntax == "emoji":
        form = "🛠️[tool_name argument1 argument2]\n🛠️[/end]"
        where = "arguments in the order listed; a body parameter goes on the lines before 🛠️[/end]"
    else:
        form = f"{m.start}tool_name\n{m.arg}parameter_name\nvalue\n{m.end}"
        where = f"one {m.arg} line per parameter; nested: {m.arg}user/name, lists: {m.arg}items/0"
    return (
        f"To call a tool, write exactly this form ({where}):\n{form}\n"
        "Then stop: the result comes back in the next message. Never write a result yourself. "
        f"When you have what you need, {when_done(gadgets, 'answer in plain text')}."
    )


def _compact_gadget(gadget: Gadget, syntax: Syntax) -> str:
    """One line: name, description, the parameters' names and types (emoji: the body field last)."""
    schema = json_schema(gadget.Params)
    props = schema.properties
    required = set(schema.root.get("required") or ())
    body = next((n for n, p in props.items() if schema.resolve(p).get("body") is True), None)
    names = [n for n in props if n != body] + ([body] if body is not None else [])
    facts = []
    for n in names:
        field = schema.resolve(props[n])
        enum = field.get("enum")
        kind = " or ".join(str(v) for v in enum) if isinstance(enum, list) else schema.kind(field) or "value"
        if kind == "array":
            kind = f"list of {schema.kind(field.get('items')) or 'value'}"
        elif kind == "object" and isinstance(field.get("properties"), dict):
            kind = "object with " + ", ".join(field["properties"])
        extra = ("" if n in required else ", optional") + (", the body" if syntax == "emoji" and n == body else "")
        facts.append(f"{n} ({kind}{extra})")
    return f"- {gadget.name}: {' '.join(gadget.description.split())} Parameters: {', '.join(facts) or 'none'}"


def render_gadget_entry(
    gadget: Gadget, *, syntax: Syntax = "block", markers: Markers = Markers(), style: PromptStyle = "full"
) -> str:
    """One gadget's entry in the system prompt, in ``style`` (native: its name and description,
    the rest is the tool's schema)."""
    if syntax == "native":
        return f"- {gadget.name}: {' '.join(gadget.description.split())}"
    if style == "compact":
        return _compact_gadget(gadget, syntax)
    return render_gadget(gadget, syntax, start_prefix=markers.start, end_prefix=markers.end, arg_prefix=markers.arg)


def render_system_prompt(
    gadgets: Sequence[Gadget],
    *,
    syntax: Syntax = "block",
    markers: Markers = Markers(),
    system: str | None = None,
    system_extra: str | None = None,
    style: PromptStyle = "full",
) -> str:
    """Build the system prompt: preamble (``system`` replaces the default), ``system_extra``,
    then, when there are gadgets, the syntax rules with a worked example and each gadget's
    rendered instructions (schema and examples in the active syntax). ``style="compact"``
    teaches one call form and lists each gadget on one line, for small models. The native
    syntax lists no gadget (:func:`tool_specs` gives them to the provider) and teaches no form."""
    parts = [DEFAULT_PREAMBLE if system is None else system]
    if system_extra:
        parts.append(system_extra)
    parts.extend(_gadget_sections(gadgets, syntax, markers, style))
    return "\n\n".join(p for p in parts if p)


def _gadget_sections(gadgets: Sequence[Gadget], syntax: Syntax, markers: Markers, style: PromptStyle) -> list[str]:
    """What the system prompt says after the user's texts: how to call, and the gadgets."""
    if not gadgets:
        return []
    if syntax == "native":
        # The gadgets themselves go to the API: see tool_specs.
        return [f"{_NATIVE_RULES}{when_done(gadgets, 'answer in plain text')}."]
    if style == "compact":
        listed = "\n".join(_compact_gadget(g, syntax) for g in gadgets)
        return [_compact_syntax(syntax, markers, gadgets), f"Tools:\n{listed}"]
    rules = _block_syntax(markers, gadgets) if syntax == "block" else _emoji_syntax(markers, gadgets)
    rendered = "\n\n".join(render_gadget_entry(g, syntax=syntax, markers=markers) for g in gadgets)
    return [rules, "# Gadgets\n" + rendered]


_COPIED_LINE_MIN = 16
"""Shorter lines ("Parameters:", a value) are too common in an answer to say it copies the prompt."""

COPIED_LINE_MAX = 1000
"""Longer prompt lines are not watched for (so a prose line is never buffered past this)."""


def prompt_lines(
    gadgets: Sequence[Gadget],
    *,
    syntax: Syntax = "block",
    markers: Markers = Markers(),
    style: PromptStyle = "full",
    extra: Sequence[str] = (),
) -> frozenset[str]:
    """The lines llmist writes in a system prompt for ``gadgets`` (and in ``extra`` texts, such as
    the output viewer's instructions): the rules, the call forms and their usage notes, each
    parameter's line, the examples' titles. Each is stripped; left out are the lines of the
    gadgets' own descriptions, the calls shown (a model is meant to write those), lines shorter
    than 16 characters or longer than :data:`COPIED_LINE_MAX`, and everything for the native
    syntax. A response's prose line that is one of them copies the prompt: after its call,
    Qwen2.5-Coder-0.5B went on writing the gadget's entry, usage note, parameters and example
    call, and the example's call ran (benchmarks/RESULTS.md, issue 23)."""
    if syntax == "native":
        return frozenset()
    own = {line.strip() for g in gadgets for line in g.description.splitlines()}
    start, end = (EMOJI_START, EMOJI_END) if syntax == "emoji" else (markers.start, markers.end)
    found: set[str] = set()
    in_call = False
    for text in (*_gadget_sections(gadgets, syntax, markers, style), *extra):
        for raw in text.splitlines():
            line = raw.strip()
            if line.startswith(end):  # an end marker; the usage note after it is ours
                in_call, line = False, line[len(end) :].strip()
            elif in_call or line.startswith(start):
                in_call = True
                continue
            if _COPIED_LINE_MIN <= len(line) <= COPIED_LINE_MAX and line not in own:
                found.add(line)
    return frozenset(found)


def estimate_prompt_tokens(text: str) -> int:
    """Tokens of ``text``: exact with tiktoken (``cl100k_base``) when installed, else chars / 4."""
    try:
        tiktoken = importlib.import_module("tiktoken")
    except ImportError:
        return (len(text) + 3) // 4
    try:
        return len(tiktoken.get_encoding("cl100k_base").encode(text))
    except Exception:  # encoding files not available offline
        return (len(text) + 3) // 4


def example_exchanges(
    gadgets: Sequence[Gadget], *, syntax: Syntax = "block", markers: Markers = Markers(), limit: int = 2
) -> list[Message]:
    """Earlier turns showing the model a whole exchange: a task, the call, its result, the answer.
    In the block syntax the last exchange's task, call and result come once more at the end, so
    the turn a small model copies is a call.

    Built from the first example (``GadgetExample``) of up to ``limit`` gadgets that have one
    with an ``output``; its ``comment`` is the task (else "Use <gadget>."). Small models copy
    the form of a call they have seen answered far better than they follow written rules.
    """
    from llmist.agent.conversation import result_message
    from llmist.execution import GadgetExecutionResult

    turns: list[Message] = []
    for g in gadgets:
        example = next((e for e in g.examples if e.output is not None), None)
        if example is None or len(turns) >= 4 * limit:
            continue
        n = len(turns) // 4 + 1
        call_id = f"example_{n}"
        if syntax == "native":
            arguments = json.dumps(example.params, ensure_ascii=False, default=str)
            asked = Message("assistant", "", tool_calls=(ToolCall(call_id, native_name(g.name), arguments),))
        else:
            try:
                text = render_call(
                    g,
                    example.params,
                    syntax,
                    start_prefix=markers.start,
                    end_prefix=markers.end,
                    arg_prefix=markers.arg,
                )
            except ValueError:  # a value the emoji header cannot hold: no example beats a wrong one
                continue
            asked = Message("assistant", text)
        done = GadgetExecutionResult(g.name, call_id, dict(example.params), example.output, None, 0.0)
        answer = result_message(done, native=syntax == "native")
        turns += [
            Message("user", example.comment or f"Use {g.name}."),
            asked,
            answer,
            Message("assistant", f"The result is: {example.output}"),
        ]
    if syntax == "block" and turns:
        # Small models copy the assistant turn just before the task. After a final answer there,
        # SmolLM2 answered every block-syntax task at once, without a call (its long call form
        # loses to the short answer); with the last exchange's task, call and result once more,
        # a call is the last thing it saw (benchmarks/RESULTS.md: block 0/31 -> 1/31; in the
        # emoji syntax the same change cost 4 of 11 passes, so it is the block syntax's only).
        turns += turns[-4:-1]
    return turns


def tool_specs(gadgets: Sequence[Gadget]) -> tuple[ToolSpec, ...]:
    """The gadgets as native tools: name, description (with the gadget's first example call),
    and the JSON schema of the parameters."""
    return tuple(_tool_spec(g) for g in gadgets)


def _tool_spec(gadget: Gadget) -> ToolSpec:
    description = " ".join(gadget.description.split())
    example = gadget.examples[0] if gadget.examples else None
    if example is not None:
        description += f" Example arguments: {json.dumps(example.params, ensure_ascii=False, default=str)}"
    return ToolSpec(native_name(gadget.name), description, gadget.Params.model_json_schema())
