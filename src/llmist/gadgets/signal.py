"""``AbortSignal``: the cancellation flag a gadget receives as ``ctx.signal``.

Thread-safe, because sync gadgets run in worker threads while the event loop aborts them.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable

from llmist.gadgets.errors import GadgetAbortedError

__all__ = ["AbortSignal"]

_log = logging.getLogger("llmist.gadgets")


class AbortSignal:
    """Fires once when a gadget's call is cancelled (timeout or whole run cancelled).

    Listeners registered with :meth:`add_listener` run when it fires (or at once if it
    already has), before the executor reports the timeout, so a gadget can close what it opened.
    """

    __slots__ = ("_aborted", "_event", "_listeners", "_lock", "_reason")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._aborted = False
        self._event: threading.Event | None = None  # created only if someone waits
        self._listeners: list[Callable[[object], object]] = []
        self._reason: object = None

    @property
    def aborted(self) -> bool:
        """True once the signal has fired."""
        return self._aborted

    @property
    def reason(self) -> object:
        """Why it fired (a :class:`GadgetTimeoutError`, a text, ...), or ``None``."""
        return self._reason

    def add_listener(self, listener: Callable[[object], object]) -> None:
        """Call ``listener(reason)`` when the signal fires; at once if it already has."""
        with self._lock:
            if not self._aborted:
                self._listeners.append(listener)
                return
        _run_listener(listener, self._reason)

    def remove_listener(self, listener: Callable[[object], object]) -> None:
        """Forget ``listener`` (added with :meth:`add_listener`); nothing happens if it is not there.

        A signal that outlives what listens to it (one signal passed to many agent runs, say)
        should not keep every listener, and what it refers to, alive.
        """
        with self._lock, contextlib.suppress(ValueError):
            self._listeners.remove(listener)

    def throw_if_aborted(self) -> None:
        """Raise :class:`GadgetAbortedError` (or the timeout error itself) if the signal has fired."""
        if self._aborted:
            reason = self._reason
            if isinstance(reason, GadgetAbortedError):
                raise reason
            raise GadgetAbortedError(reason)

    def wait(self, timeout: float | None = None) -> bool:
        """Block (in a sync gadget's thread) until the signal fires; True if it did."""
        with self._lock:
            if self._aborted:
                return True
            if self._event is None:
                self._event = threading.Event()
            event = self._event
        return event.wait(timeout)

    def abort(self, reason: object = None) -> None:
        """Fire the signal and run its listeners (in this thread). Later calls do nothing."""
        with self._lock:
            if self._aborted:
                return
            self._reason = reason
            self._aborted = True
            if self._event is not None:
                self._event.set()
            listeners, self._listeners = self._listeners, []
        for listener in listeners:
            _run_listener(listener, reason)


def _run_listener(listener: Callable[[object], object], reason: object) -> None:
    try:
        listener(reason)
    except Exception:
        _log.exception("Abort listener %r raised", listener)
