"""``llmist web``: the agent's page in a browser (and its AG-UI endpoint), served on loopback."""

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
from llmist.cli._sessions import SessionDbOption, SessionUrlOption, session_store, session_store_path
from llmist.cli.agent_cmd import build_agent
from llmist.gadgets import LlmistError
from llmist.providers import ProviderError

__all__ = ["web_command"]

_TOKEN_ENV = WEB_TOKEN  # also llmist.web.TOKEN_ENV (not imported here: the web extra may be missing)


_MaxBodyOption = Annotated[
    int | None,
    typer.Option(
        metavar="BYTES",
        help="Largest request body served; a larger one gets 413 (default 8 MiB; config max_body_bytes).",
    ),
]
_TokenOption = Annotated[
    str | None,
    typer.Option(
        envvar=_TOKEN_ENV,
        show_envvar=True,
        metavar="TOKEN",
        help="Require this token (the page takes it from its URL).",
    ),
]


def web_command(
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
    token: _TokenOption = None,
    session_db: SessionDbOption = None,
    session_url: SessionUrlOption = None,
    max_body_bytes: _MaxBodyOption = None,
) -> None:
    """Serve the agent's page: watch gadget calls stream in and approve them with a click."""
    _check_web_extra()
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
    flags.update(
        session_db=str(session_db) if session_db is not None else None,
        session_url=session_url,
        max_body_bytes=max_body_bytes,
    )
    token = token or None
    config, agent, guarded, sessions = _web_agent(flags, profile, host, token)
    _serve(agent, config, guarded, sessions, host=host, port=port, token=token)


def _check_web_extra() -> None:
    """End the command, naming the exact install command, when the web extra is missing."""
    try:
        import llmist.web  # noqa: F401
    except ImportError as exc:
        missing = (exc.name or "a package").split(".")[0]
        # The same command the providers' missing-SDK errors give: this Python's pip, and this
        # checkout when llmist runs from one (a bare 'llmist[web]' would fetch the released package).
        fail(
            f"llmist web needs the 'web' extra ({missing} is not installed). Install it with: {install_command('web')}"
        )


def _serve(
    agent: Any, config: Any, guarded: list[str], sessions: str | Path, *, host: str, port: int, token: str | None
) -> None:
    """Serve until Ctrl-C; announce the address only once the port is ours."""
    from llmist.web import ListenError, serve_web

    def listening(url: str) -> None:
        # Called once the port is ours: a taken port fails before anything is announced.
        shown = url + (f"#token={token}" if token else "")
        stdout.print(f"llmist web: {_describe(agent)} on {shown}  (Ctrl-C to stop)", highlight=False, soft_wrap=True)

    try:
        serve_web(
            agent,
            host=host,
            port=port,
            token=token,
            sessions=sessions,
            builtins=bool(config["builtins"]),
            guarded=guarded,
            max_body_bytes=int(config["max_body_bytes"]),
            on_listening=listening,
        )
    except ListenError as exc:
        fail(str(exc))


def _web_agent(
    flags: dict[str, Any], profile: str | None, host: str, token: str | None
) -> tuple[Any, Any, list[str], str | Path]:
    """The configuration, the agent it describes, the gadgets needing approval and the sessions'
    store (a database URL or an SQLite file); every problem with them ends the command, named."""
    from llmist.web import WebSecurityError, check_exposure

    try:
        config = load_config(profile=profile, flags=flags)
        check_exposure(host, token, builtins=bool(config["builtins"]))
        agent, guarded = build_agent(config)
        agent.system_prompt  # noqa: B018  (resolves the model now, so a bad one fails before serving)
        store = session_store(config)
        sessions: str | Path = store.url if store.url is not None else session_store_path(store.path, store.source)
    except (CliError, LlmistError, ProviderError, ValueError, ImportError, WebSecurityError) as exc:
        fail(str(exc))
    return config, agent, guarded, sessions


def _describe(agent: Any) -> str:
    names = [g.name for g in agent.gadgets]
    model = agent.model if isinstance(agent.model, str) else getattr(agent.model, "name", "model")
    return f"{model} with {len(names)} gadget{'s' if len(names) != 1 else ''}"
