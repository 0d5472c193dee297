"""``llmist models``: the model registry as a table (limits, prices, features, aliases)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated

import typer

from llmist.cli._common import stdout

if TYPE_CHECKING:
    from rich.table import Table

    from llmist.models import ModelSpec

__all__ = ["models_command"]


def _price(value: float | None) -> str:
    return "-" if value is None else f"${value:g}"


def _tokens(value: int | None) -> str:
    if value is None:
        return "-"
    return f"{value // 1000:,}k" if value >= 1000 else str(value)


def models_command(
    provider: Annotated[str | None, typer.Option("--provider", help="Only this provider's models.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
) -> None:
    """List the models llmist knows: context window, output limit, prices per million tokens, features."""
    from llmist.models import ModelRegistry

    registry = ModelRegistry()
    specs = registry.list_models(provider)
    aliases: dict[str, list[str]] = {}
    for alias, target in sorted(registry.aliases.items()):
        aliases.setdefault(target, []).append(alias)
    if as_json:
        stdout.out(json.dumps([_json_row(s, aliases) for s in specs], indent=2), highlight=False)
        return
    stdout.print(_table(specs, aliases))
    stdout.print(f"{len(specs)} models. Use any as -m provider:model, or an alias; local servers take any model name.")


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


def _table(specs: Sequence[ModelSpec], aliases: dict[str, list[str]]) -> Table:
    from rich.table import Table

    table = Table(title="Models (prices in USD per million tokens)", title_justify="left")
    for column in ("model", "aliases", "context", "max out", "input", "output", "cached", "features"):
        table.add_column(
            column, justify="right" if column in ("context", "max out", "input", "output", "cached") else "left"
        )
    for s in specs:
        flags = (("vision", s.vision), ("reasoning", s.reasoning), ("caching", s.caching), ("tools", s.native_tools))
        features = ", ".join(f for f, on in flags if on)
        table.add_row(
            s.ref,
            ", ".join(aliases.get(s.ref, [])),
            _tokens(s.context_window),
            _tokens(s.max_output_tokens),
            _price(s.input_price),
            _price(s.output_price),
            _price(s.cached_input_price),
            features,
        )
    return table
