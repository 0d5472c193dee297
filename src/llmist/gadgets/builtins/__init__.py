"""Built-in gadgets: files confined to a sandbox root, and shell commands.

::

    from llmist.gadgets.builtins import builtin_gadgets

    agent = Agent(model="sonnet", gadgets=builtin_gadgets("./workdir"))

Each gadget takes the root directory in its constructor (``ReadFile(root=".")``). Paths
the model gives are relative to it; absolute paths, ``..`` and symlinks leading out of it
are refused with a :class:`SandboxError`. ``WriteFile``, ``EditFile`` and ``RunCommand``
require a person's approval of each call (:attr:`~llmist.gadgets.Gadget.requires_approval`):
``llmist agent`` asks in the terminal unless ``--yes`` is given, ``llmist web`` on the page, and
``Agent(approvals="defer")`` keeps the call waiting in the session.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from llmist.gadgets.approval import may_need_approval
from llmist.gadgets.base import Gadget
from llmist.gadgets.builtins._sandbox import Sandbox, SandboxError
from llmist.gadgets.builtins.command import RunCommand
from llmist.gadgets.builtins.files import EditFile, ListDirectory, ReadFile, WriteFile

__all__ = [
    "EditFile",
    "ListDirectory",
    "ReadFile",
    "RunCommand",
    "Sandbox",
    "SandboxError",
    "WriteFile",
    "builtin_gadgets",
    "requires_approval",
]


def builtin_gadgets(
    root: str | os.PathLike[str] = ".",
    *,
    allow_commands: bool = True,
    command_timeout_s: float = 30.0,
    env_passthrough: Iterable[str] = (),
    hide_env: Iterable[str] = (),
) -> list[Gadget]:
    """The built-in gadgets working in ``root``: files, and ``RunCommand`` unless ``allow_commands``
    is false (``command_timeout_s``, ``env_passthrough`` and ``hide_env`` are its options)."""
    gadgets: list[Gadget] = [ReadFile(root), WriteFile(root), EditFile(root), ListDirectory(root)]
    if allow_commands:
        gadgets.append(
            RunCommand(root, command_timeout_s=command_timeout_s, env_passthrough=env_passthrough, hide_env=hide_env)
        )
    return gadgets


def requires_approval(gadget: object) -> bool:
    """True when some call of ``gadget`` may need a person's approval (see
    :func:`~llmist.gadgets.may_need_approval`, which this is)."""
    return may_need_approval(gadget)
