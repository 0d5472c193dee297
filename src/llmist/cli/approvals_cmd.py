"""``llmist approvals S``, ``llmist approve S ID``, ``llmist deny S ID``: the calls a paused
session waits on, and the decisions that let ``llmist agent --session S`` go on.

A run of ``llmist agent --session S`` that nobody can ask (no terminal) pauses when a call needs
approval, and exits with :data:`EXIT_AWAITING_APPROVAL`. Any process may then decide each call;
the next ``llmist agent --session S`` runs the decided calls, once, and goes on.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.text import Text

from llmist.agent.approvals import ApprovalError, Decision, PendingCall
from llmist.agent.sessions import SessionError, SQLStoreSession
from llmist.cli._agent_options import ProfileOption
from llmist.cli._common import CliError, fail, stdout
from llmist.cli._config import ConfigError, load_config
from llmist.cli._json_sink import pending_record
from llmist.cli._sessions import SessionDbOption, SessionStore, SessionUrlOption, session_store

__all__ = [
    "EXIT_AWAITING_APPROVAL",
    "approvals_command",
    "approve_command",
    "deny_command",
    "print_pending",
]

EXIT_AWAITING_APPROVAL = 3
"""``llmist agent``'s exit code when the run paused: calls wait for approval."""

_SessionArgument = Annotated[
    str, typer.Argument(metavar="SESSION", help="The session (as given to llmist agent --session).")
]
_IdArgument = Annotated[
    str, typer.Argument(metavar="ID", help="The call's invocation id (llmist approvals SESSION lists them).")
]
_JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")]
_DurableOption = Annotated[
    str | None,
    typer.Option(
        "--durable",
        metavar="URL",
        help="The DBOS system database of durable runs (llmist.durable, sqlite:///... or postgresql://...): "
        "SESSION is then a durable run's workflow id.",
    ),
]


class _DurableRun:
    """A durable run's waiting calls, seen as a session's (``--durable``): the same commands decide them."""

    def __init__(self, url: str, workflow_id: str) -> None:
        try:
            from llmist.durable import DurableClient
        except ImportError as exc:
            fail(str(exc))
        try:
            self._client = DurableClient(url)
        except ValueError as exc:  # a URL DBOS cannot use
            fail(str(exc))
        self._id = workflow_id

    async def pending(self) -> list[PendingCall]:
        return await self._client.pending(self._id)

    async def decide(self, invocation_id: str, decision: Decision) -> PendingCall:
        return await self._client.decide(self._id, invocation_id, decision)

    async def release(self, *, force: bool = False) -> bool:
        return False  # nothing is held: a durable run takes its decisions as messages


def approvals_command(
    session: _SessionArgument,
    session_db: SessionDbOption = None,
    session_url: SessionUrlOption = None,
    profile: ProfileOption = None,
    as_json: _JsonOption = False,
    release: Annotated[
        bool,
        typer.Option("--release", help="Let go of decided calls held by a run that died elsewhere, so a new run can."),
    ] = False,
    durable: _DurableOption = None,
) -> None:
    """List the calls of SESSION that wait for approval, and their decisions."""
    if durable is not None:
        opened: SQLStoreSession | _DurableRun = _DurableRun(durable, session)
        where = f"durable runs at {durable}"
    else:
        store = _store(profile, session_db, session_url)
        opened, where = _open(store, session), store.describe()
    if release:
        ended = _call(opened.release(force=True))
        stdout.print(f"released the hold on {session}'s decided calls" if ended else f"nothing of {session} was held")
        return
    calls = _call(opened.pending())
    if as_json:
        typer.echo(json.dumps({"session": session, "pending": [pending_record(c) for c in calls]}, ensure_ascii=False))
        return
    print_pending(stdout, session, calls, where)


def approve_command(
    session: _SessionArgument,
    invocation_id: _IdArgument,
    edit: Annotated[
        list[str] | None,
        typer.Option(
            "--edit",
            metavar="KEY=VALUE",
            help="Run the call with this parameter changed (repeatable). VALUE is JSON, or text where the "
            "call's value is text.",
        ),
    ] = None,
    session_db: SessionDbOption = None,
    session_url: SessionUrlOption = None,
    profile: ProfileOption = None,
    durable: _DurableOption = None,
) -> None:
    """Approve a call of SESSION (with --edit: with changed parameters)."""
    opened = _opened(session, profile, session_db, session_url, durable)
    decision = Decision.approve()
    if edit:
        calls = {c.invocation_id: c for c in _call(opened.pending())}
        current = calls[invocation_id].parameters if invocation_id in calls else {}
        decision = Decision.approve({**current, **_edits(edit, current)})
    decided = _call(opened.decide(invocation_id, decision))
    how = "approved with edited parameters" if decision.action == "edit" else "approved"
    _done(session, decided, how)


def deny_command(
    session: _SessionArgument,
    invocation_id: _IdArgument,
    reason: Annotated[str, typer.Option("--reason", metavar="TEXT", help="Why, for the model to read.")] = "",
    session_db: SessionDbOption = None,
    session_url: SessionUrlOption = None,
    profile: ProfileOption = None,
    durable: _DurableOption = None,
) -> None:
    """Deny a call of SESSION; the model reads that the user declined it, and why."""
    opened = _opened(session, profile, session_db, session_url, durable)
    decided = _call(opened.decide(invocation_id, Decision.deny(reason)))
    _done(session, decided, "denied")


def _opened(
    session: str, profile: str | None, session_db: Any, session_url: str | None, durable: str | None
) -> SQLStoreSession | _DurableRun:
    """The session whose calls a command decides, or with ``--durable`` the durable run."""
    if durable is not None:
        return _DurableRun(durable, session)
    return _open(_store(profile, session_db, session_url), session)


def _store(profile: str | None, session_db: Any, session_url: str | None) -> SessionStore:
    try:
        config = load_config(profile=profile, flags={"session_db": _str(session_db), "session_url": session_url})
        return session_store(config)
    except (CliError, ConfigError) as exc:
        fail(str(exc))


def _open(store: SessionStore, session: str) -> SQLStoreSession:
    """The session in ``store``; a store that cannot be opened (a server that refuses, a file that
    is not a store) ends the command with its message."""
    try:
        return store.open(session)
    except CliError as exc:
        fail(str(exc), code=1)


def _str(value: Any) -> str | None:
    return None if value is None else str(value)


def _call(awaitable: Any) -> Any:
    """Run one store operation; its errors end the command with their message (exit 1)."""
    try:
        return asyncio.run(awaitable)
    except (ApprovalError, SessionError) as exc:
        fail(str(exc), code=1)
    except CliError as exc:
        fail(str(exc))


def _edits(pairs: Sequence[str], current: dict[str, Any]) -> dict[str, Any]:
    """``KEY=VALUE`` pairs as parameters: JSON values, or text for a key whose value is text."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            fail(f"--edit takes KEY=VALUE, got {pair!r}")
        if isinstance(current.get(key), str):
            out[key] = value
            continue
        try:
            out[key] = json.loads(value)
        except json.JSONDecodeError:
            out[key] = value
    return out


def _done(session: str, call: PendingCall, how: str) -> None:
    done = f"{call.invocation_id} ({_visible(call.gadget_name)}) {how}; resume with: "
    stdout.print(Text.assemble(("✓ ", "green"), done, (f"llmist agent --session {session}", "bold")))


def print_pending(console: Console, session: str, calls: Sequence[PendingCall], where: str = "") -> None:
    """The waiting calls for a person, with the commands that decide them."""
    at = f" ({where})" if where else ""
    if not calls:
        console.print(f"Session {session}{at}: no call waits for approval.", highlight=False, markup=False)
        return
    undecided = [c for c in calls if c.needs_decision and c.decision is None]
    head = f"{len(undecided)} call{'s' if len(undecided) != 1 else ''} wait{'s' if len(undecided) == 1 else ''}"
    console.print(Text(f"Session {session}{at}: {head} for approval", style="bold"))
    for call in calls:
        name = _visible(call.gadget_name)
        console.print(Text.assemble("  ", (call.invocation_id, "bold"), "  ", name, "  ", _state(call)))
        for key, value in call.parameters.items():
            shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
            lines = _visible(shown).splitlines() or [""]
            more = f" … (+{len(lines) - 6} lines)" if len(lines) > 6 else ""
            console.print(Text.assemble(("      " + _visible(key) + ": ", "dim"), lines[0]))
            for line in lines[1:6]:
                console.print(Text("        " + line))
            if more:
                console.print(Text(more, style="dim"))
    if undecided:
        console.print(
            Text(
                f'Decide: llmist approve {session} ID [--edit KEY=VALUE] | llmist deny {session} ID --reason "..."; '
                f"then resume: llmist agent --session {session}",
                style="yellow",
            )
        )
    else:
        console.print(Text(f"Every call is decided: resume with llmist agent --session {session}", style="yellow"))


def _state(call: PendingCall) -> Text:
    if call.waits_for is not None:
        return Text(f"runs after {call.waits_for}", style="dim")
    if call.decision is None:
        return Text(f"needs approval: {_visible(call.reason)}", style="yellow")
    if call.decision.action == "deny":
        why = f": {_visible(call.decision.reason)}" if call.decision.reason else ""
        return Text(f"denied{why}", style="red")
    return Text("approved" + (" (edited)" if call.decision.action == "edit" else ""), style="green")


def _visible(text: str) -> str:
    """Model-chosen text with control characters shown as escapes (an escape sequence must not
    draw over what the person approves); newlines and tabs stay."""
    return "".join(c if c in "\n\t" or c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)
