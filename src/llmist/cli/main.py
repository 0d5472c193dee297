"""Entry point of the ``llmist`` command: one Typer app, one module per command."""

from __future__ import annotations

import sys

import typer

from llmist.cli._common import fail
from llmist.cli._config import LOG_LEVELS, ConfigError
from llmist.cli._help import Command
from llmist.cli._logging import configure_logging, log_settings
from llmist.cli.a2a_cmd import a2a_app
from llmist.cli.agent_cmd import agent_command
from llmist.cli.approvals_cmd import approvals_command, approve_command, deny_command
from llmist.cli.batch_cmd import batch_command
from llmist.cli.complete_cmd import complete_command
from llmist.cli.config_cmd import config_app
from llmist.cli.eval_cmd import eval_command
from llmist.cli.gadget_cmd import gadget_app
from llmist.cli.mcp_cmd import mcp_app
from llmist.cli.models_cmd import models_command
from llmist.cli.parse_cmd import parse_command
from llmist.cli.web_cmd import web_command

app = typer.Typer(
    name="llmist",
    help="Tool calling for any text model: parse, inspect and run gadget calls.",
    no_args_is_help=True,
    rich_markup_mode=None,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _global_options(
    log_level: str | None = typer.Option(
        None,
        "--log-level",
        metavar="LEVEL",
        help="Level of llmist's and the gadgets' logs: trace, debug, info, warning (default), error, critical. "
        "Env LLMIST_LOG_LEVEL, config key log_level.",
    ),
    log_file: str | None = typer.Option(
        None,
        "--log-file",
        metavar="FILE",
        help="Write logs to this file instead of standard error. Env LLMIST_LOG_FILE, key log_file.",
    ),
) -> None:
    """Tool calling for any text model: parse, inspect and run gadget calls."""
    if log_level is not None and log_level.lower() not in LOG_LEVELS:
        raise typer.BadParameter(
            f"expected one of {', '.join(LOG_LEVELS)}, got {log_level!r}", param_hint="--log-level"
        )
    try:
        level, file = log_settings(log_level, log_file)
        configure_logging(level.value, file)
    except ConfigError as exc:
        fail(str(exc))


app.command("agent", cls=Command, short_help="Run an agent on a task; watch its gadget calls.")(agent_command)
app.command("approvals", cls=Command, short_help="List a session's calls that wait for approval.")(approvals_command)
app.command("approve", cls=Command, short_help="Approve a call a paused session waits on.")(approve_command)
app.command("deny", cls=Command, short_help="Deny a call a paused session waits on.")(deny_command)
app.command("batch", cls=Command, short_help="Run an agent over a file of tasks, many at once.")(batch_command)
app.command("complete", cls=Command, short_help="Stream a model's answer to one prompt.")(complete_command)
app.command("eval", cls=Command, short_help="Measure tool-use success of a model in each syntax.")(eval_command)
app.command("models", cls=Command, short_help="List the models llmist knows: limits, prices, features.")(models_command)
app.command("parse", cls=Command, short_help="Show the text and gadget calls the parser finds.")(parse_command)
app.command("web", cls=Command, short_help="Serve a web page for an agent: watch, approve, stop.")(web_command)
app.add_typer(gadget_app)
app.add_typer(config_app)
app.add_typer(mcp_app)
app.add_typer(a2a_app)


@app.command(cls=Command)
def version(
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Also show the Python and which modules are compiled."),
) -> None:
    """Print the installed llmist version."""
    import platform

    from llmist import __version__
    from llmist.execution import executor
    from llmist.syntax import COMPILED

    typer.echo(__version__)
    if verbose:
        typer.echo(f"python {platform.python_version()} ({platform.python_implementation()})")
        pure = "pure Python (editable install, or no C compiler when it was installed)"
        typer.echo(f"parser: {'compiled (mypyc)' if COMPILED else pure}")
        loop_compiled = not str(executor.__file__).endswith(".py")
        typer.echo(f"execution and agent loop: {'compiled (mypyc)' if loop_compiled else pure}")


_GLOBAL_OPTIONS = ("--log-level", "--log-file")


def hoist_global_options(argv: list[str]) -> list[str]:
    """``argv`` with the global options moved in front of the command, so that
    ``llmist agent ... --log-level debug`` works as well as ``llmist --log-level debug agent ...``.
    Nothing after a ``--`` separator moves."""
    front: list[str] = []
    rest: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            rest.extend(argv[i:])
            break
        if arg in _GLOBAL_OPTIONS and i + 1 < len(argv):
            front += argv[i : i + 2]
            i += 2
            continue
        (front if arg.split("=", 1)[0] in _GLOBAL_OPTIONS else rest).append(arg)
        i += 1
    return front + rest


def main() -> None:
    """Run the command line (the ``llmist`` console script)."""
    app(args=hoist_global_options(sys.argv[1:]), prog_name="llmist")
