"""``llmist a2a serve``: an agent served over the A2A protocol (``pip install 'llmist[a2a]'``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from llmist._credentials import WEB_TOKEN
from llmist._install import install_command
from llmist.cli._agent_options import (
    AllowPathOption,
    BuiltinsOption,
    CommandsOption,
    DenyOption,
    FallbackOption,
    GadgetOption,
    MaxCostOption,
    MaxIterationsOption,
    McpOption,
    ModelOption,
    ProfileOption,
    RootOption,
    SyntaxOption,
    SystemOption,
    agent_flags,
)
from llmist.cli._common import CliError, fail, stdout
from llmist.cli._config import load_config
from llmist.cli._help import Command
from llmist.cli._sessions import SessionDbOption
from llmist.cli.agent_cmd import build_agent
from llmist.gadgets import LlmistError
from llmist.providers import ProviderError

__all__ = ["a2a_app"]

a2a_app = typer.Typer(
    name="a2a", help="Serve an agent over the A2A protocol.", no_args_is_help=True, rich_markup_mode=None
)


@a2a_app.command("serve", cls=Command, short_help="Serve an agent to other agents over A2A.")
def serve_command(
    model: ModelOption = None,
    gadget: GadgetOption = None,
    builtins: BuiltinsOption = None,
    root: RootOption = None,
    allow_commands: CommandsOption = None,
    syntax: SyntaxOption = None,
    max_iterations: MaxIterationsOption = None,
    max_cost: MaxCostOption = None,
    system: SystemOption = None,
    profile: ProfileOption = None,
    mcp: McpOption = None,
    fallback: FallbackOption = None,
    deny: DenyOption = None,
    allow_path: AllowPathOption = None,
    host: Annotated[
        str, typer.Option(metavar="HOST", help="Address to listen on; any but loopback needs --token.")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, metavar="PORT", help="Port to listen on.")] = 8000,
    token: Annotated[
        str | None,
        typer.Option(envvar=WEB_TOKEN, show_envvar=True, metavar="TOKEN", help="Require this bearer token."),
    ] = None,
    session_db: SessionDbOption = None,
    name: Annotated[str | None, typer.Option(metavar="NAME", help="The agent's name on its card.")] = None,
    description: Annotated[str | None, typer.Option(metavar="TEXT", help="What the agent does, on its card.")] = None,
) -> None:
    """Serve the agent over A2A: its card, message/send and message/stream; tasks kept with --session-db."""
    _check_a2a_extra()
    flags = agent_flags(
        model=model,
        gadget=gadget,
        builtins=builtins,
        root=root,
        allow_commands=allow_commands,
        syntax=syntax,
        max_iterations=max_iterations,
        max_cost=max_cost,
        system=system,
        mcp=mcp,
        fallback=fallback,
        deny=deny,
        allow_path=allow_path,
    )
    flags["session_db"] = str(session_db) if session_db is not None else None
    token = token or None
    config, agent = _a2a_agent(flags, profile, host, token)
    agent.name, agent.description = name or agent.name, description or agent.description
    _serve(agent, config, host=host, port=port, token=token)


def _check_a2a_extra() -> None:
    """End the command, naming the exact install command, when the a2a extra is missing."""
    try:
        import llmist.a2a  # noqa: F401
    except ImportError as exc:
        missing = (exc.name or "a package").split(".")[0]
        fail(
            f"llmist a2a needs the 'a2a' extra ({missing} is not installed). Install it with: {install_command('a2a')}"
        )


def _a2a_agent(flags: dict[str, Any], profile: str | None, host: str, token: str | None) -> tuple[Any, Any]:
    """The configuration and the agent it describes; every problem with them ends the command, named."""
    from llmist.web import WebSecurityError, check_exposure

    try:
        config = load_config(profile=profile, flags=flags)
        check_exposure(host, token, builtins=bool(config["builtins"]))
        agent, _guarded = build_agent(config)  # calls that need approval are deferred: the task waits
        agent.system_prompt  # noqa: B018  (resolves the model now, so a bad one fails before serving)
    except (CliError, LlmistError, ProviderError, ValueError, ImportError, WebSecurityError) as exc:
        fail(str(exc))
    return config, agent


def _serve(agent: Any, config: Any, *, host: str, port: int, token: str | None) -> None:
    """Serve until Ctrl-C; announce the card's address once the port is ours."""
    from llmist.a2a import serve_a2a
    from llmist.web import ListenError

    def listening(url: str) -> None:
        stdout.print(f"llmist a2a: agent card at {url}/.well-known/agent-card.json  (Ctrl-C to stop)", highlight=False)

    db = config["session_db"]
    try:
        serve_a2a(
            agent,
            host=host,
            port=port,
            token=token,
            session_db=Path(db) if db else None,
            builtins=bool(config["builtins"]),
            on_listening=listening,
        )
    except ListenError as exc:
        fail(str(exc))
