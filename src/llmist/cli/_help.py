"""How ``--help`` reads: click's plain layout (it wraps at word boundaries to the terminal's width,
and a pipe gets the same text), arguments named by their metavar alone.

Typer's own layout boxes the help in panels whose columns cut text mid-word at 80 columns, and
writes each argument as ``prompt <str>`` and a required one as ``{prompt}``; a command made with
:class:`Command` shows ``PROMPT`` instead, as ``--help`` of most Unix tools does.
"""

from __future__ import annotations

from typing import Any

from typer.core import TyperArgument, TyperCommand

__all__ = ["Command"]


def _argument_name(param: TyperArgument) -> str:
    return param.metavar or (param.name or "").upper()


class Command(TyperCommand):
    """A command whose usage line and Arguments section name each argument by its metavar."""

    # The context and formatter are click's, as vendored by typer: typed loosely here so that this
    # module names no private module of typer's.
    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        """``[OPTIONS] PROMPT`` (``[PROMPT]`` when it is optional)."""
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if isinstance(param, TyperArgument):
                name = _argument_name(param) + ("..." if param.nargs != 1 else "")
                pieces.append(name if param.required else f"[{name}]")
            else:
                pieces.extend(param.get_usage_pieces(ctx))
        return pieces

    def format_options(self, ctx: Any, formatter: Any) -> None:
        """The Arguments section (name and help, no type), then the Options section."""
        arguments: list[tuple[str, str]] = []
        options: list[tuple[str, str]] = []
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is None:
                continue
            if isinstance(param, TyperArgument):
                arguments.append((_argument_name(param), record[1]))
            else:
                options.append(record)
        for title, rows in (("Arguments", arguments), ("Options", options)):
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)
