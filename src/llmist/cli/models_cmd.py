"""``llmist models``: the model registry as a table (limits, prices, features, aliases).

On a terminal it is a table; in a pipe (standard output not a terminal) it is tab-separated lines
under a header, every value whole (a table would cut ids to fit 80 columns); ``--json`` gives
JSON either way.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated

import typer

from llmist.cli._common import fail, stderr, stdout

if TYPE_CHECKING:
    from rich.table import Table

    from llmist.models import ModelRegistry, ModelSpec

__all__ = ["models_command"]


def _price(value: float | None) -> str:
    return "-" if value is None else f"${value:g}"


def _tokens(value: int | None) -> str:
    if value is None:
        return "-"
    return f"{value // 1000:,}k" if value >= 1000 else str(value)


def models_command(
    provider: Annotated[
        str | None, typer.Option("--provider", metavar="NAME", help="Only this provider's models.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
) -> None:
    """List the models llmist knows: context window, output limit, prices per million tokens,
    features. In a pipe: tab-separated lines, ids whole."""
    from llmist.models import ModelRegistry

    registry = ModelRegistry()
    specs = registry.list_models(provider)
    if provider is not None and not specs:
        _no_models_of(provider, registry)
    aliases: dict[str, list[str]] = {}
    for alias, target in sorted(registry.aliases.items()):
        aliases.setdefault(target, []).append(alias)
    if as_json:
        stdout.out(json.dumps([_json_row(s, aliases) for s in specs], indent=2), highlight=False)
        return
    if not stdout.is_terminal:
        # Written as is: Rich would expand the tabs into spaces.
        sys.stdout.write("".join(line + "\n" for line in _tsv_lines(specs, aliases)))
        return
    stdout.print(_table(specs, aliases))
    stdout.print(f"{len(specs)} models: pass one as -m provider:model or by its alias.", highlight=False)
    stdout.print("A local server's provider (ollama:, vllm:, ...) takes any model name.", highlight=False)


def _no_models_of(provider: str, registry: ModelRegistry) -> None:
    """Explain an empty list: a provider with no catalog (a local server) is fine, a typo is an error."""
    from llmist.providers.registry import registered_providers

    with_models = sorted({s.provider for s in registry.list_models()})
    if provider in registered_providers():
        stderr.print(
            f"The catalog lists no {provider} models: {provider}:NAME takes any model the server has "
            f"(catalogued providers: {', '.join(with_models)})",
            soft_wrap=True,
            highlight=False,
        )
        return
    known = sorted(set(with_models) | set(registered_providers()))
    fail(f"unknown provider {provider!r}; known providers: {', '.join(known)}")


_TSV_COLUMNS = (
    "model",
    "aliases",
    "context_window",
    "max_output_tokens",
    "input_price",
    "output_price",
    "cached_input_price",
    "features",
)


def _tsv_lines(specs: Sequence[ModelSpec], aliases: dict[str, list[str]]) -> list[str]:
    """A header and one tab-separated line per model: numbers as numbers, empty when unknown."""

    def cell(value: object) -> str:
        return "" if value is None else str(value)

    lines = ["\t".join(_TSV_COLUMNS)]
    for s in specs:
        row = (
            s.ref,
            ",".join(aliases.get(s.ref, [])),
            s.context_window,
            s.max_output_tokens,
            s.input_price,
            s.output_price,
            s.cached_input_price,
            ",".join(_features(s)),
        )
        lines.append("\t".join(cell(v) for v in row))
    return lines


def _features(s: ModelSpec) -> list[str]:
    flags = (("vision", s.vision), ("reasoning", s.reasoning), ("caching", s.caching), ("tools", s.native_tools))
    return [name for name, on in flags if on]


def _json_row(s: ModelSpec, aliases: dict[str, list[str]]) -> dict[str, object]:
    return {
        "model": s.ref,
        "context_window": s.context_window,
        "max_output_tokens": s.max_output_tokens,
        "input_price": s.input_price,
        "output_price": s.output_price,
        "cached_input_price": s.cached_input_price,
        "vision": s.vision,
        "reasoning": s.reasoning,
        "caching": s.caching,
        "native_tools": s.native_tools,
        "aliases": aliases.get(s.ref, []),
    }


_ABBREVIATIONS = {"vision": "V", "reasoning": "R", "caching": "C", "tools": "T"}
_LEGEND = "has: V vision (images), R reasoning, C prompt caching, T native tool calls"


def _table(specs: Sequence[ModelSpec], aliases: dict[str, list[str]]) -> Table:
    """The terminal's table: ids never cut (a pipe gets tab-separated lines instead), features as
    letters so that it fits 80 columns; the limits beside the context window only when wide."""
    from rich import box
    from rich.table import Table

    wide = stdout.width >= 110
    table = Table(
        title="Models (prices in USD per million tokens)", title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False
    )
    table.add_column("model", no_wrap=True)
    table.add_column("aliases", no_wrap=True)
    for column in ("context", *(["max out"] if wide else []), "input", "output", *(["cached"] if wide else [])):
        table.add_column(column, justify="right", no_wrap=True)
    table.add_column("has", no_wrap=True)
    for s in specs:
        limits = [_tokens(s.context_window), *([_tokens(s.max_output_tokens)] if wide else [])]
        prices = [_price(s.input_price), _price(s.output_price), *([_price(s.cached_input_price)] if wide else [])]
        features = "".join(_ABBREVIATIONS[f] for f in _features(s))
        table.add_row(s.ref, ", ".join(aliases.get(s.ref, [])), *limits, *prices, features)
    table.caption = _LEGEND
    table.caption_justify = "left"
    return table
