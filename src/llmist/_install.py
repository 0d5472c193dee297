"""The command that installs an optional extra into the llmist being run.

A root module (no layer): the providers' missing-SDK errors, ``llmist.mcp``, the Ray backend and
the CLI's ``llmist web`` all name the same command, and the layer rule lets each import it.
"""

from __future__ import annotations

import importlib.metadata
import json
import sys
import urllib.parse

__all__ = ["install_command"]


def install_command(extra: str) -> str:
    """The command that adds ``extra`` to the llmist this Python runs: for the same interpreter
    (a venv's, say), and from the same checkout when llmist was installed from one (``make demo``
    installs the repository, editable), else from the package index."""
    pip = f"{sys.executable} -m pip install"
    source = _installed_from()
    if source is None:
        return f"{pip} 'llmist[{extra}]'"
    path, editable = source
    return f"{pip} {'-e ' if editable else ''}'{path}[{extra}]'"


def _installed_from() -> tuple[str, bool] | None:
    """The local directory llmist was installed from and whether editable, per PEP 610."""
    try:
        text = importlib.metadata.distribution("llmist").read_text("direct_url.json")
    except importlib.metadata.PackageNotFoundError:
        return None
    if not text:
        return None
    info = json.loads(text)
    url = str(info.get("url", ""))
    if not url.startswith("file://"):
        return None
    return urllib.parse.unquote(urllib.parse.urlparse(url).path), bool(info.get("dir_info", {}).get("editable"))
