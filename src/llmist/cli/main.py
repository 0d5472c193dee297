"""Entry point of the ``llmist`` command: one Typer app, one module per command."""

from __future__ import annotations

import typer

from llmist.cli.agent_cmd import agent_command
from llmist.cli.complete_cmd import complete_command
from llmist.cli.config_cmd import config_app
from llmist.cli.gadget_cmd import gadget_app
from llmist.cli.mcp_cmd import mcp_app
from llmist.cli.models_cmd import models_command
from llmist.cli.parse_cmd import parse_command

app = typer.Typer(
    name="llmist",
    help="Tool calling for any text model: parse, inspect and run gadget calls.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.command("agent")(agent_command)
app.command("complete")(complete_command)
app.command("models")(models_command)
app.command("parse")(parse_command)
app.add_typer(gadget_app)
app.add_typer(config_app)
app.add_typer(mcp_app)


@app.command()
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


def main() -> None:
    """Run the command line (the ``llmist`` console script)."""
    app()
