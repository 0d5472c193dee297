"""``llmist agent PROMPT``: run an agent with gadgets and watch it work."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import signal
import sys
from pathlib import Path
from typing import Annotated, Any, Protocol, TextIO

import typer
from rich.console import Console

from llmist.agent import (
    Agent,
    AgentEvent,
    AgentResult,
    Controllers,
    HookPresets,
    Hooks,
    Observers,
    Progress,
    RunOptions,
)
from llmist.agent.builtin_guardrails import allow_paths, deny_parameters
from llmist.agent.guardrails import Guardrail
from llmist.agent.sessions import flush_pending
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
    SkillsOption,
    SyntaxOption,
    SystemOption,
    agent_flags,
)
from llmist.cli._approval import TerminalApprover
from llmist.cli._common import CliError, fail, stderr, stdout
from llmist.cli._config import Config, agent_options, load_config
from llmist.cli._json_sink import JsonSink
from llmist.cli._loader import load_gadgets, load_guardrails
from llmist.cli._mock_script import load_mock_script, mock_script_path
from llmist.cli._sessions import SessionDbOption, SessionUrlOption, session_store
from llmist.cli._stdout import stdout_kept
from llmist.cli._view import AgentView
from llmist.cli.approvals_cmd import EXIT_AWAITING_APPROVAL, print_pending
from llmist.execution import run_main
from llmist.gadgets import Gadget, LlmistError
from llmist.gadgets.builtins import builtin_gadgets, requires_approval
from llmist.providers import ProviderError

__all__ = ["agent_command", "build_agent"]


class _Sink(Protocol):
    def start(self) -> None: ...
    def pause(self) -> None: ...
    def resume(self) -> None: ...
    def stop(self) -> None: ...
    def on_progress(self, progress: Progress) -> None: ...
    def handle(self, event: AgentEvent) -> None: ...
    def note(self, message: str) -> None: ...
    def summary(self, result: AgentResult | None, *, error: str | None = None) -> None: ...


_PromptArgument = Annotated[
    str | None,
    typer.Argument(metavar="PROMPT", help="The task (with --session: optional, the run then continues the session)."),
]
_SessionOption = Annotated[
    str | None,
    typer.Option(
        metavar="NAME",
        help="Keep the conversation under this name and continue it if it exists (saved each iteration).",
    ),
]


def agent_command(
    prompt: _PromptArgument = None,
    model: ModelOption = None,
    gadget: GadgetOption = None,
    builtins: BuiltinsOption = None,
    root: RootOption = None,
    allow_commands: CommandsOption = None,
    syntax: SyntaxOption = None,
    max_iterations: MaxIterationsOption = None,
    max_cost: MaxCostOption = None,
    system: SystemOption = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Approve every write and command without asking.")] = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print events as JSON lines instead of the live view.")
    ] = False,
    profile: ProfileOption = None,
    mcp: McpOption = None,
    fallback: FallbackOption = None,
    deny: DenyOption = None,
    allow_path: AllowPathOption = None,
    skills: SkillsOption = None,
    session: _SessionOption = None,
    session_db_flag: SessionDbOption = None,
    session_url_flag: SessionUrlOption = None,
) -> None:
    """Run an agent on PROMPT: the model calls gadgets, you watch each call and its result.

    With --session and no terminal to ask on, a call that needs approval pauses the run: it
    exits with 3 and lists the calls; llmist approve / deny decide them, and llmist agent
    --session NAME goes on."""
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
        skills=skills,
    )
    flags["session_db"] = str(session_db_flag) if session_db_flag is not None else None
    flags["session_url"] = session_url_flag
    if prompt is None and session is None:
        fail("give a PROMPT (or --session NAME to continue a saved conversation)")
    with stdout_kept() if as_json else contextlib.nullcontext(None) as json_out:
        agent, options, sink, config = _prepare(profile, flags, json_out, yes)
        if session is not None:
            options |= _session_options(config, session, prompt, yes)
        # Not asyncio.run: a gadget left running (it swallowed its cancellation) would keep the
        # command from ever ending.
        code = run_main(_run(agent, prompt, sink, session, options))
    raise typer.Exit(code)


def _session_options(config: Config, session: str, prompt: str | None, yes: bool) -> RunOptions:
    """The run's options for ``--session NAME``: the session (which must exist to continue it
    without a prompt), and deferred approvals when nobody can be asked. A bad store ends the command."""
    try:
        options: RunOptions = {"session": session_store(config).open(session, must_exist=prompt is None)}
    except CliError as exc:
        fail(str(exc))
    if not yes and not sys.stdin.isatty():  # nobody can be asked: a call that needs approval waits
        options["approvals"] = "defer"
    return options


def _prepare(
    profile: str | None, flags: dict[str, Any], json_out: TextIO | None, yes: bool
) -> tuple[Agent, RunOptions, _Sink, Config]:
    """The configured agent and its run's options, the sink its events go to (JSON lines on
    ``json_out`` with ``--json``: the real standard output, while what gadgets print goes to
    standard error; else the live view) and the configuration. A bad configuration ends the command."""
    as_json = json_out is not None
    sink: _Sink = (
        JsonSink(json_out) if as_json else AgentView(stdout, model="?", max_iterations=1, live=stdout.is_terminal)
    )
    try:
        config = load_config(profile=profile, flags=flags)
        agent, options = _watched_agent(config, sink, stderr if as_json else stdout, yes)
        return agent, options, sink, config
    except (CliError, LlmistError, ProviderError, ValueError, ImportError) as exc:
        fail(str(exc))


def _watched_agent(config: Config, sink: _Sink, ask_console: Console, yes: bool) -> tuple[Agent, RunOptions]:
    """The configured agent, and the options its run overrides (given to the run, not assigned to
    the agent): hooks reporting to ``sink`` and asking ``ask_console`` before guarded gadgets."""
    agent, guarded = build_agent(config)
    if isinstance(sink, AgentView):
        model = config["model"] or "(from the environment)"
        fallback = config["fallback"]
        sink.model = f"{model} (then {', '.join(fallback)})" if fallback else model
        sink.max_iterations = agent.max_iterations
    approver = TerminalApprover(
        ask_console,
        [g for g in agent.gadgets if g.name in guarded],
        approve_all=yes,
        pause=sink.pause,
        resume=sink.resume,
    )
    # The view shows a call "running" from when it starts, after its dependencies and approval.
    started = Hooks(observers=Observers(on_gadget_start=sink.on_gadget_start)) if isinstance(sink, AgentView) else None
    hooks = HookPresets.merge(
        HookPresets.progress_tracking(on_progress=sink.on_progress),
        Hooks(controllers=Controllers(before_gadget=approver)),
        started,
    )
    agent.system_prompt  # noqa: B018  (resolves the model now, so a bad one fails before the run)
    return agent, {"on_human_input": approver.answer, "hooks": hooks}


def build_agent(config: Config) -> tuple[Agent, list[str]]:
    """The agent the configuration describes, and the names of the gadgets that need approval."""
    gadgets: list[Gadget] = []
    guardrails: list[Guardrail] = []
    for source in config["gadgets"]:
        found = load_guardrails(source)
        gadgets += load_gadgets(source, required=not found)
        guardrails += found
    if config["builtins"]:
        root = Path(config["root"])
        if not root.is_dir():
            raise CliError(f"sandbox root {config['root']!r} (from {config.values['root'].source}) is not a directory")
        gadgets += builtin_gadgets(
            root,
            allow_commands=config["allow_commands"],
            command_timeout_s=float(config["command_timeout"]),
            env_passthrough=config["command_env_passthrough"],
            hide_env=config["command_hide_env"],
        )
    model: Any = _model(config["model"] or "", gadgets, config["syntax"])
    if config["fallback"]:
        model = [model, *(_model(spec, gadgets, config["syntax"]) for spec in config["fallback"])]
    agent = Agent(
        model=model,
        gadgets=gadgets,
        mcp_servers=_mcp_servers(config),
        guardrails=[*guardrails, *_ready_guardrails(config)],
        **agent_options(config),  # system, syntax, max_iterations...: each key that names its option
    )
    return agent, [g.name for g in agent.gadgets if requires_approval(g)]


def _model(spec: str, gadgets: list[Gadget], syntax: str) -> Any:
    """A model string as the agent takes it: ``mock:FILE.json`` loaded as a scripted model."""
    script = mock_script_path(spec)
    return load_mock_script(script, gadgets, syntax) if script is not None else spec


def _ready_guardrails(config: Config) -> list[Guardrail]:
    """The ready-made guardrails the configuration asks for: ``deny`` on every gadget's
    parameters, ``allow_paths`` on the file gadgets' paths under ``root``."""
    ready: list[Guardrail] = []
    if config["deny"]:
        ready.append(deny_parameters(*config["deny"]))
    if config["allow_paths"]:
        ready.append(allow_paths(*config["allow_paths"], root=config["root"]))
    return ready


def _mcp_servers(config: Config) -> list[Any]:
    """The configured MCP servers: a command line (shell-split) runs over stdio; a table names its transport."""
    entries: list[Any] = config["mcp_servers"]
    if not entries:
        return []
    from llmist.mcp import MCPServerHTTP, MCPServerStdio

    servers: list[Any] = []
    timeout = float(config["mcp_timeout"])
    for entry in entries:
        if isinstance(entry, str):
            try:
                argv = shlex.split(entry)
            except ValueError as exc:
                source = config.values["mcp_servers"].source
                raise CliError(f"MCP server command {entry!r} (from {source}) cannot be split: {exc}") from None
            servers.append(MCPServerStdio(argv[0], argv[1:], connect_timeout_s=timeout))
        elif "url" in entry:
            prefix = entry.get("tool_prefix", "")
            servers.append(
                MCPServerHTTP(entry["url"], entry.get("headers"), tool_prefix=prefix, connect_timeout_s=timeout)
            )
        else:
            servers.append(
                MCPServerStdio(
                    entry["command"],
                    entry.get("args", []),
                    entry.get("env"),
                    entry.get("cwd"),
                    tool_prefix=entry.get("tool_prefix", ""),
                    connect_timeout_s=timeout,
                )
            )
    return servers


async def _run(agent: Agent, prompt: str | None, sink: _Sink, session: str | None, options: RunOptions) -> int:
    """Stream the run, with ``options`` overriding the agent's, into ``sink``; Ctrl-C or SIGTERM
    cancels it (a second one: quit at once, stopping MCP servers first). The exit code:
    :data:`EXIT_AWAITING_APPROVAL` when calls wait for approval (listed for ``session``)."""
    stream = agent.stream(prompt, **options)
    loop = asyncio.get_running_loop()
    presses = 0
    cancelled_code = 130

    def interrupt(code: int) -> None:
        nonlocal presses, cancelled_code
        presses += 1
        cancelled_code = code
        if presses == 1:
            sink.note("Cancelling: running gadgets are being stopped (press Ctrl-C again to quit at once)")
            stream.cancel()
        else:
            _quit_now(sink, code)

    loop.add_signal_handler(signal.SIGINT, interrupt, 130)
    loop.add_signal_handler(signal.SIGTERM, interrupt, 143)
    sink.start()
    try:
        async for event in stream:
            sink.handle(event)
    except Exception as exc:
        sink.summary(None, error=f"{type(exc).__name__}: {exc}")
        return 1
    finally:
        loop.remove_signal_handler(signal.SIGINT)
        loop.remove_signal_handler(signal.SIGTERM)
    result = stream.result
    sink.summary(result)
    if result is not None and result.stop_reason == "awaiting_approval":
        if isinstance(sink, AgentView):
            print_pending(sink.console, session or "SESSION", result.pending)
        return EXIT_AWAITING_APPROVAL
    return cancelled_code if result is not None and result.stop_reason == "cancelled" else 0


def _quit_now(sink: _Sink, code: int) -> None:
    """Leave at once (``os._exit``, which skips every cleanup), after what must not be lost or left
    behind: the session's completed iterations, and the processes of stdio MCP servers."""
    sink.stop()
    sys.stdout.flush()
    flush_pending(timeout_s=2.0)
    mcp = sys.modules.get("llmist.mcp")
    if mcp is not None:
        mcp.stop_stdio_servers()
    os._exit(code)
