"""``llmist gadget run | info | validate``: try the gadgets of a file without a model."""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterable
from enum import StrEnum
from typing import Annotated, Any

import typer
from rich.text import Text

from llmist.cli._common import CliError, fail, stderr, stdout
from llmist.cli._help import Command
from llmist.cli._loader import load_gadgets, pick_gadget, split_target
from llmist.gadgets import Gadget, UntypedParameterWarning, render_gadget
from llmist.syntax import BlockParseError, parse_block_params
from llmist.testing import test_gadget

__all__ = ["gadget_app"]

gadget_app = typer.Typer(
    name="gadget",
    help="Run, inspect and check the gadgets of a file or module.",
    no_args_is_help=True,
    rich_markup_mode=None,
)


class SyntaxChoice(StrEnum):
    """A call syntax."""

    block = "block"
    emoji = "emoji"


@gadget_app.command("run", cls=Command, short_help="Run one gadget with parameters; print its result.")
def run_command(
    target: Annotated[str, typer.Argument(metavar="FILE:NAME", help="Gadget file or module, then ':' and its name.")],
    param: Annotated[
        list[str] | None,
        typer.Option("--param", "-p", metavar="KEY=VALUE", help="A parameter (repeatable); KEY may be a path a/0/b."),
    ] = None,
    json_params: Annotated[str | None, typer.Option("--json", metavar="JSON", help="All parameters as JSON.")] = None,
) -> None:
    """Run one gadget once with the given parameters and print its result."""
    try:
        source, name = split_target(target)
        gadgets = load_gadgets(source)
        if name is None:
            if len(gadgets) != 1:
                raise CliError(f"{source} defines {len(gadgets)} gadgets; name one: {source}:NAME")
            g = gadgets[0]
        else:
            g = pick_gadget(gadgets, name, source)
        params = _params(g, param or [], json_params)
    except CliError as exc:
        fail(str(exc))
    outcome = test_gadget(g, params)
    if outcome.error is not None:
        stderr.print(Text.assemble((f"{g.name} failed:", "bold red"), " ", outcome.error), soft_wrap=True)
        raise typer.Exit(1)
    stdout.out(outcome.result or "", highlight=False)
    if outcome.cost:
        stderr.print(f"cost: ${outcome.cost:.6f}")


def _params(g: Gadget, pairs: list[str], json_text: str | None) -> dict[str, Any]:
    if json_text is not None and pairs:
        raise CliError("give parameters with --param KEY=VALUE or with --json, not both")
    if json_text is not None:
        try:
            data = json.loads(json_text)
        except json.JSONDecodeError as exc:
            raise CliError(f"--json is not valid JSON: {exc.msg} at character {exc.pos}") from None
        if not isinstance(data, dict):
            raise CliError(f"--json must be a JSON object of parameters, got {type(data).__name__}")
        return data
    lines: list[str] = []
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise CliError(f"--param {pair!r} must look like KEY=VALUE")
        lines += [f"!!!ARG:{key}", value]
    try:
        return parse_block_params("\n".join(lines), schema=g.Params) if lines else {}
    except BlockParseError as exc:
        raise CliError(f"bad --param keys: {exc}") from None


@gadget_app.command("info", cls=Command, short_help="Print what a model sees of each gadget.")
def info_command(
    target: Annotated[str, typer.Argument(metavar="FILE[:NAME]", help="Gadget file or module, optionally ':NAME'.")],
    syntax: Annotated[SyntaxChoice, typer.Option(help="Call syntax the instructions use.")] = SyntaxChoice.block,
) -> None:
    """Print the instructions a model sees for each gadget (description, parameters, examples)."""
    try:
        source, name = split_target(target)
        gadgets = load_gadgets(source)
        chosen = [pick_gadget(gadgets, name, source)] if name else gadgets
    except CliError as exc:
        fail(str(exc))
    stdout.out("\n\n".join(render_gadget(g, syntax.value) for g in chosen), highlight=False)


@gadget_app.command("validate", cls=Command, short_help="Check that a file's gadgets load, render and validate.")
def validate_command(
    source: Annotated[str, typer.Argument(metavar="FILE", help="Gadget file or module.")],
) -> None:
    """Check that a file's gadgets load, their schemas render and their examples validate.

    A parameter without a type hint is a warning (the model is told it takes any value): the
    gadget is still valid and the exit code stays 0."""
    from rich.table import Table

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UntypedParameterWarning)  # shown here even if shown before
        try:
            gadgets = load_gadgets(source)
        except CliError as exc:
            _print_warnings(_untyped(caught).values())
            fail(str(exc))
    warned = _untyped(caught)
    table = Table(title=f"Gadgets in {source}", title_justify="left")
    for column in ("gadget", "parameters", "examples", "status"):
        table.add_column(column)
    problems: list[str] = []
    for g in gadgets:
        own: list[str] = []
        for syntax in ("block", "emoji"):
            try:
                render_gadget(g, syntax)
            except Exception as exc:
                own.append(f"its {syntax} instructions do not render: {type(exc).__name__}: {exc}")
        n_params = len(g.Params.model_json_schema().get("properties", {}))
        status = (
            f"[red]{len(own)} problem(s)[/]"
            if own
            else "[yellow]ok, with warnings[/]"
            if g.name in warned
            else "[green]ok[/]"
        )
        table.add_row(Text(g.name), str(n_params), str(len(g.examples)), status)
        problems += [f"{g.name}: {p}" for p in own]
    stdout.print(table)
    _print_warnings(warned.values())
    if problems:
        for p in problems:
            stderr.print(Text.assemble(("✗", "red"), " ", p), soft_wrap=True)
        raise typer.Exit(1)
    with_warnings = sum(g.name in warned for g in gadgets)
    note = f", {with_warnings} with warnings" if with_warnings else ""
    stdout.print(f"[green]✓[/] {len(gadgets)} gadget(s) valid{note}")


def _untyped(caught: list[warnings.WarningMessage]) -> dict[str, str]:
    """The untyped-parameter warnings of ``caught`` by gadget name; any other warning is shown
    as Python would have shown it."""
    found: dict[str, str] = {}
    for w in caught:
        if isinstance(w.message, UntypedParameterWarning):
            found[w.message.gadget_name] = str(w.message)
        else:
            warnings.showwarning(w.message, w.category, w.filename, w.lineno, w.file, w.line)
    caught.clear()
    return found


def _print_warnings(messages: Iterable[str]) -> None:
    for message in messages:
        stderr.print(Text.assemble(("warning:", "bold yellow"), " ", message), soft_wrap=True)
