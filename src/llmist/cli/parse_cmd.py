"""``llmist parse``: show what the call parser sees in a model transcript."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from llmist._text import visible
from llmist.cli._json_sink import event_record, json_line, record
from llmist.syntax import (
    DEFAULT_ARG_PREFIX,
    DEFAULT_END_PREFIX,
    DEFAULT_START_PREFIX,
    EmojiCallParser,
    GadgetCallParser,
    SyntaxEvent,
)


class SyntaxChoice(StrEnum):
    """Which call syntax the transcript uses."""

    block = "block"
    emoji = "emoji"


def parse_command(
    file: Annotated[str, typer.Argument(metavar="FILE", help="Transcript to parse, or - for standard input.")] = "-",
    syntax: Annotated[SyntaxChoice, typer.Option(help="Call syntax of the transcript.")] = SyntaxChoice.block,
    chunk: Annotated[
        int,
        typer.Option(
            min=0, metavar="N", help="Feed the text in chunks of N characters (0: all at once), as a stream would."
        ),
    ] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON lines instead of a terminal view.")] = False,
    partials: Annotated[bool, typer.Option(help="Also show argument partials (block syntax, when chunked).")] = False,
    start_prefix: Annotated[str, typer.Option(metavar="TEXT", help="Block start marker.")] = DEFAULT_START_PREFIX,
    end_prefix: Annotated[str, typer.Option(metavar="TEXT", help="Block end marker.")] = DEFAULT_END_PREFIX,
    arg_prefix: Annotated[str, typer.Option(metavar="TEXT", help="Block argument marker.")] = DEFAULT_ARG_PREFIX,
) -> None:
    """Show each text segment and gadget call the parser finds in a model transcript."""
    text = _read(file)
    if syntax is SyntaxChoice.emoji:
        parser: GadgetCallParser | EmojiCallParser = EmojiCallParser()
    else:
        try:
            parser = GadgetCallParser(start_prefix, end_prefix, arg_prefix)
        except ValueError as exc:
            raise typer.BadParameter(str(exc)) from exc
    records = list(_records(parser, text, chunk or len(text) or 1, partials))
    if as_json:
        sys.stdout.write("".join(json_line(line) + "\n" for line in records))
    else:
        _render([_shown(record) for record in records], file, syntax.value, chunk)


def _shown(value: Any, key: str = "") -> Any:
    """A line with the control characters of its texts made visible, for the terminal (the
    parameters are shown by their ``repr``, which escapes them already)."""
    if isinstance(value, str):
        return visible(value)
    if isinstance(value, dict) and key != "parameters":
        return {k: _shown(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_shown(v) for v in value]
    return value


def _read(file: str) -> str:
    if file == "-":
        return sys.stdin.read()
    path = Path(file)
    try:
        with path.open(encoding="utf-8", newline="") as f:
            return f.read()
    except FileNotFoundError:
        raise typer.BadParameter(f"no such file: {file}", param_hint="FILE") from None
    except UnicodeDecodeError as exc:
        raise typer.BadParameter(f"{file} is not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def _records(
    parser: GadgetCallParser | EmojiCallParser, text: str, size: int, partials: bool
) -> Iterator[dict[str, Any]]:
    """Events as the JSON lines of ``agent --json`` (one schema: ``cli/_json_sink.py``), consecutive
    text events merged into one segment."""
    pending: list[str] = []

    def events() -> Iterator[SyntaxEvent]:
        for i in range(0, len(text), size):
            yield from parser.feed(text[i : i + size])
        yield from parser.finalize()

    for event in events():
        if event.type == "text":
            pending.append(event.content)  # type: ignore[union-attr]
            continue
        if pending and (event.type == "gadget_call" or partials):
            yield record("text", content="".join(pending))
            pending.clear()
        if event.type == "gadget_call" or partials:
            yield event_record(event)
    if pending:
        yield record("text", content="".join(pending))


def _render(records: list[dict[str, Any]], file: str, syntax: str, chunk: int) -> None:
    from rich.console import Console, Group
    from rich.panel import Panel
    from rich.pretty import Pretty
    from rich.table import Table
    from rich.text import Text

    console = Console()
    how = f"in chunks of {chunk} characters" if chunk else "whole"
    console.print(Text.assemble(("llmist parse ", "bold"), (f"{file} ", "cyan"), f"({syntax} syntax, fed {how})"))
    n_calls = n_errors = 0
    for line in records:
        kind = line["type"]
        if kind == "text":
            console.print(
                Panel(Text(line["content"].strip("\n") or " "), title="text", title_align="left", border_style="dim")
            )
        elif kind == "gadget_call":
            call = line["call"]
            n_calls += 1
            deps = ", ".join(call["dependencies"]) or "none"
            title = Text.assemble(
                (call["gadget_name"], "bold"), "  id=", (call["invocation_id"], "cyan"), f"  after: {deps}"
            )
            if call["syntax"] == "emoji":
                body: Any = Group(
                    Text.assemble(("args: ", "bold"), call["raw_args"] or "(none)"),
                    Text.assemble(("body:\n", "bold"), call["gadget_body"] or "(empty)"),
                )
                style = "green"
            elif call["parse_error"] is not None:
                n_errors += 1
                body = Text.assemble(("parse error: ", "bold red"), call["parse_error"])
                style = "red"
            else:
                body = Pretty(call["parameters"], expand_all=True)
                style = "green"
            console.print(Panel(body, title=title, title_align="left", border_style=style))
        else:
            console.print(
                Text(
                    f"  partial {line['field_path']} +{len(line['delta'])} chars"
                    f"{' (complete)' if line['is_field_complete'] else ''}",
                    style="dim",
                )
            )
    summary = Table.grid(padding=(0, 2))
    summary.add_row("calls", str(n_calls), "parse errors", str(n_errors))
    console.print(summary)
