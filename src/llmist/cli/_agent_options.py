"""The options that describe an agent, shared by ``llmist agent`` and ``llmist web``.

Both commands take the same gadget files, ``--builtins``, ``--mcp``, model and configuration;
:func:`agent_flags` turns the given options into the flags :func:`~llmist.cli._config.load_config`
layers over the configuration files.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any

import typer

from llmist.agent.options import OPTIONS

__all__ = [
    "AllowPathOption",
    "BuiltinsOption",
    "CommandsOption",
    "DenyOption",
    "FallbackOption",
    "GadgetOption",
    "MaxCostOption",
    "MaxIterationsOption",
    "McpOption",
    "ModelOption",
    "ProfileOption",
    "RootOption",
    "SkillsOption",
    "SyntaxChoice",
    "SyntaxOption",
    "SystemOption",
    "agent_flags",
]


class SyntaxChoice(StrEnum):
    """How the model calls gadgets."""

    block = "block"
    emoji = "emoji"
    native = "native"
    auto = "auto"


ModelOption = Annotated[
    str | None,
    typer.Option(
        "--model", "-m", metavar="MODEL", help="Model: 'sonnet', 'openai:gpt-4o', 'mock', 'mock:SCRIPT.json'."
    ),
]
GadgetOption = Annotated[
    list[str] | None, typer.Option("--gadget", "-g", metavar="FILE", help="Gadget file or module (repeatable).")
]
BuiltinsOption = Annotated[
    bool | None, typer.Option("--builtins/--no-builtins", help="Add the built-in file and command gadgets.")
]
RootOption = Annotated[str | None, typer.Option(metavar="DIR", help="Sandbox root of the built-in gadgets.")]
CommandsOption = Annotated[
    bool | None, typer.Option("--commands/--no-commands", help="With --builtins: include RunCommand.")
]
SyntaxOption = Annotated[
    SyntaxChoice | None, typer.Option(help="How the model calls gadgets (native: its API's tool calls).")
]
# The agent options' flags: their help is the option's declaration's (llmist.agent.options).
MaxIterationsOption = Annotated[int | None, typer.Option(min=1, metavar="N", help=OPTIONS["max_iterations"].help)]
MaxCostOption = Annotated[float | None, typer.Option(min=0, metavar="USD", help=OPTIONS["max_cost"].help)]
SystemOption = Annotated[str | None, typer.Option(metavar="TEXT", help=OPTIONS["system"].help)]
ProfileOption = Annotated[
    str | None, typer.Option("--profile", "-P", metavar="NAME", help="Configuration profile to use.")
]
FallbackOption = Annotated[
    list[str] | None,
    typer.Option(metavar="MODEL", help="A model to fall back to when the model fails (repeatable, in order)."),
]
DenyOption = Annotated[
    list[str] | None,
    typer.Option(metavar="REGEX", help="Refuse any gadget call whose parameters match this (repeatable)."),
]
AllowPathOption = Annotated[
    list[str] | None,
    typer.Option(
        "--allow-path", metavar="PATTERN", help="With --builtins: the only paths file gadgets may use (repeatable)."
    ),
]
SkillsOption = Annotated[
    list[str] | None,
    typer.Option(
        "--skills", metavar="DIR", help="A folder of Agent Skills, each a folder with a SKILL.md (repeatable)."
    ),
]
McpOption = Annotated[
    list[str] | None,
    typer.Option("--mcp", metavar="COMMAND", help="Command line of an MCP server whose tools to use (repeatable)."),
]


def agent_flags(
    *,
    model: str | None,
    gadget: list[str] | None,
    builtins: bool | None,
    root: str | None,
    allow_commands: bool | None,
    syntax: SyntaxChoice | None,
    max_iterations: int | None,
    max_cost: float | None,
    system: str | None,
    mcp: list[str] | None,
    fallback: list[str] | None = None,
    deny: list[str] | None = None,
    allow_path: list[str] | None = None,
    skills: list[str] | None = None,
) -> dict[str, Any]:
    """The command-line flags as configuration keys (``None``: not given)."""
    return {
        "fallback": fallback or None,
        "deny": deny or None,
        "allow_paths": allow_path or None,
        "model": model,
        "gadgets": gadget or None,
        "builtins": builtins,
        "root": root,
        "allow_commands": allow_commands,
        "syntax": syntax.value if syntax else None,
        "max_iterations": max_iterations,
        "max_cost": max_cost,
        "system": system,
        "mcp_servers": mcp or None,
        "skills": skills or None,
    }
