"""The retry policy of a database session store (issue 40), on a fake clock: how long it waits,
when it gives up, what it never retries, and a write whose commit may have landed."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from llmist.agent import SessionConflictError, SessionError, SessionRetry
from llmist.agent.messages import dumps_messages
from llmist.agent.sessions import _store_sql as sql
from llmist.agent.sessions._store_retry import Attempt, retrying
from llmist.providers.base import Message


class _Clock:
    """A clock that moves only when the policy sleeps (or a test says so)."""

    def __init__(self) -> None:
        self.now = 100.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def _policy(clock: _Clock, **kwargs: Any) -> SessionRetry:
    return SessionRetry(jitter=0, sleep=clock.sleep, clock=clock, **kwargs)


def test_the_pauses_double_from_a_quarter_second_up_to_four_seconds_for_ten_attempts() -> None:
    policy = SessionRetry(jitter=0)
    pauses = [policy.pause(attempt, 0.0) for attempt in range(1, 11)]
    assert pauses == [0.25, 0.5, 1.0, 2.0, 4.0, 4.0, 4.0, 4.0, 4.0, None]
    assert sum(p for p in pauses if p is not None) < policy.max_total_s


def test_no_pause_ends_past_the_total() -> None:
    policy = SessionRetry(jitter=0, max_total_s=30.0)
    assert policy.pause(5, 25.0) == 4.0
    assert policy.pause(5, 26.5) is None


def test_jitter_only_shortens_a_pause() -> None:
    policy = SessionRetry(jitter=0.5)
    for _ in range(200):
        pause = policy.pause(3, 0.0)
        assert pause is not None and 0.5 <= pause <= 1.0


def test_a_database_never_reached_gets_two_attempts() -> None:
    assert SessionRetry().first_contact().max_attempts == 2
    assert SessionRetry(max_attempts=1).first_contact().max_attempts == 1


@pytest.mark.parametrize(
    ("field", "value", "expected"),
    [
        ("max_attempts", 0, "a whole number of at least 1"),
        ("max_attempts", 2.5, "a whole number of at least 1"),
        ("first_contact_attempts", True, "a whole number of at least 1"),
        ("base_delay", -1, "a finite number of seconds, 0 or more"),
        ("max_total_s", float("inf"), "a finite number of seconds, 0 or more"),
        ("max_delay", float("nan"), "a finite number of seconds, 0 or more"),
        ("jitter", 1.5, "a fraction from 0 to 1"),
    ],
)
def test_a_bad_value_is_named_with_what_was_expected(field: str, value: object, expected: str) -> None:
    with pytest.raises(ValueError, match=rf"SessionRetry\.{field} must be {expected}, got {value!r}"):
        SessionRetry(**{field: value})


def _dropped(exc: BaseException) -> bool:
    return isinstance(exc, ConnectionError)


async def test_a_dropped_connection_is_retried_after_each_pause() -> None:
    clock, calls = _Clock(), []

    async def attempt(state: Attempt) -> str:
        calls.append(state.unknown)
        if len(calls) < 3:
            raise ConnectionResetError("reset by peer")
        return "stored"

    got = await retrying(
        attempt, dropped=_dropped, policy=_policy(clock), store="S", failed="failed", rerun_unknown=False
    )
    assert got == "stored"
    assert clock.slept == [0.25, 0.5]
    assert calls == [False, False, False]


async def test_the_retries_end_within_the_total_with_an_error_naming_them() -> None:
    clock = _Clock()

    async def attempt(state: Attempt) -> str:
        clock.now += 3.0  # each connection attempt takes a while (a server that is slow to refuse)
        raise ConnectionRefusedError("refused")

    with pytest.raises(SessionError) as caught:
        await retrying(
            attempt,
            dropped=_dropped,
            policy=_policy(clock, max_total_s=10.0),
            store="S",
            failed="failed",
            rerun_unknown=False,
        )
    assert str(caught.value) == (
        "S: failed: ConnectionRefusedError: refused (the connection dropped; gave up after 3 attempts over 9.8 s)"
    )
    assert clock.slept == [0.25, 0.5]
    assert isinstance(caught.value.__cause__, ConnectionRefusedError)


async def test_other_errors_are_not_retried() -> None:
    clock = _Clock()
    for error in (SessionConflictError("another writer"), ValueError("a value the database refuses")):

        async def attempt(state: Attempt, error: Exception = error) -> str:
            raise error

        with pytest.raises(type(error)):
            await retrying(
                attempt, dropped=_dropped, policy=_policy(clock), store="S", failed="failed", rerun_unknown=True
            )
    assert clock.slept == []


async def test_a_change_whose_commit_dropped_is_not_made_twice_unless_it_checks_itself() -> None:
    clock, calls = _Clock(), []

    async def attempt(state: Attempt) -> str:
        calls.append(state.unknown)
        if len(calls) == 1:
            state.committing = True
            raise ConnectionResetError("reset while committing")
        return "done"

    with pytest.raises(SessionError, match=r"^S: failed: the connection dropped while a change was being committed "):
        await retrying(
            attempt, dropped=_dropped, policy=_policy(clock), store="S", failed="failed", rerun_unknown=False
        )
    assert calls == [False]
    calls.clear()
    assert (
        await retrying(attempt, dropped=_dropped, policy=_policy(clock), store="S", failed="failed", rerun_unknown=True)
        == "done"
    )
    assert calls == [False, True]  # the second attempt knows the first may have landed


def _on(conn: sqlite3.Connection) -> Any:
    def execute(statement: str, args: dict[str, Any]) -> sql.Rows:
        cursor = conn.execute(statement, args)
        return sql.Rows(cursor.fetchall(), cursor.rowcount)

    return execute


def _write(conn: sqlite3.Connection, body: str | None, *, maybe_stored: bool, expected: int = 0) -> int:
    conn.execute("BEGIN IMMEDIATE")
    try:
        version = sql.drive(sql.write("S", "chat", expected, 0, body, maybe_stored=maybe_stored), _on(conn))
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return version


def test_a_write_run_again_after_its_commit_landed_is_done_not_a_conflict(tmp_path: Path) -> None:
    body = dumps_messages([Message("user", "hi"), Message("assistant", "hello")])
    with closing(sqlite3.connect(tmp_path / "s.db", isolation_level=None)) as conn:
        conn.execute("BEGIN")
        sql.drive(sql.prepare("S", "sqlite"), _on(conn))
        conn.execute("COMMIT")
        assert _write(conn, body, maybe_stored=False) == 1  # the attempt whose answer was lost
        assert _write(conn, body, maybe_stored=True) == 1  # run again: it finds itself stored
        with pytest.raises(SessionConflictError):  # another writer's version 1: a conflict, as ever
            _write(conn, dumps_messages([Message("user", "other")]), maybe_stored=True)
        with pytest.raises(SessionError, match="whether that change was stored is unknown"):
            _write(conn, None, maybe_stored=True, expected=0)
        assert conn.execute("SELECT version FROM llmist_sessions").fetchall() == [(1,)]
