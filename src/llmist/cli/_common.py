"""What every command shares: the consoles and the way a command fails."""

from __future__ import annotations

from typing import NoReturn

import typer
from rich.console import Console
from rich.text import Text

__all__ = ["CliError", "fail", "stderr", "stdout"]

stdout = Console(highlight=False)
"""Where commands print what they produce."""
stderr = Console(stderr=True, highlight=False)
"""Where commands print errors and progress meant for people."""


class CliError(Exception):
    """A mistake in how a command was called or configured; its message says what to do."""


def fail(message: str, *, code: int = 2) -> NoReturn:
    """Print ``error: message`` on stderr and exit with ``code``."""
    # The message is plain text: brackets in it ("pip install 'llmist[anthropic]'", a gadget's
    # "[/x]") are shown as written, never read as Rich markup.
    stderr.print(Text.assemble(("error:", "bold red"), " ", message), highlight=False, soft_wrap=True)
    raise typer.Exit(code)
