"""``llmist config show``: the merged configuration and where each value came from."""

from __future__ import annotations

import json
import os
from typing import Annotated

import typer

from llmist.cli._common import fail, stdout
from llmist.cli._config import API_KEY_VARIABLES, ConfigError, load_config
from llmist.cli._help import Command

__all__ = ["config_app"]

config_app = typer.Typer(name="config", help="Inspect the configuration.", no_args_is_help=True, rich_markup_mode=None)


@config_app.command("show", cls=Command, short_help="Print every setting, its value and where it came from.")
def show_command(
    profile: Annotated[str | None, typer.Option("--profile", "-P", metavar="NAME", help="Apply this profile.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")] = False,
) -> None:
    """Print every setting, its value and where it came from; the files read; which API keys are set."""
    try:
        config = load_config(profile=profile)
    except ConfigError as exc:
        fail(str(exc))
    keys = {name: ("set" if os.environ.get(name) else "not set") for name in API_KEY_VARIABLES}
    if as_json:
        record = {
            "settings": {k: {"value": s.value, "source": s.source} for k, s in config.values.items()},
            "profile": None
            if config.profile is None
            else {"name": config.profile.value, "source": config.profile.source},
            "files": [{"role": f.role, "path": str(f.path), "found": f.found} for f in config.files],
            "api_keys": keys,
        }
        stdout.out(json.dumps(record, indent=2), highlight=False)
        return
    from rich.markup import escape
    from rich.table import Table

    files = Table(title="Config files (later ones win)", title_justify="left")
    files.add_column("role")
    files.add_column("path")
    files.add_column("")
    for f in config.files:
        files.add_row(f.role, escape(str(f.path)), "[green]read[/]" if f.found else "[dim]not found[/]")
    stdout.print(files)
    if config.profile is not None:
        stdout.print(f"profile: [bold]{escape(config.profile.value)}[/] (from {escape(config.profile.source)})")
    settings = Table(title="Settings", title_justify="left")
    settings.add_column("key", style="bold")
    settings.add_column("value")
    settings.add_column("from")
    for key, s in config.values.items():
        settings.add_row(key, _show(s.value), escape(s.source) if s.source != "default" else "[dim]default[/]")
    stdout.print(settings)
    api = Table(title="API keys (environment)", title_justify="left")
    api.add_column("variable")
    api.add_column("")
    for name, state in keys.items():
        api.add_row(name, "[green]set[/]" if state == "set" else "[dim]not set[/]")
    stdout.print(api)


def _show(value: object) -> str:
    from rich.markup import escape

    if value is None:
        return "[dim]-[/]"
    if isinstance(value, list):
        return escape(", ".join(map(str, value))) or "[dim](none)[/]"
    if isinstance(value, bool):
        return "true" if value else "false"
    text = str(value)
    return escape(text if len(text) <= 60 else text[:57] + "...")
