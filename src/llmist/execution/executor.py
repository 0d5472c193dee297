"""``GadgetExecutor``: runs one parsed call, start to finish, and never raises for a gadget's fault.

Resolve the gadget, bind and validate the parameters, ask ``before_gadget``, run the
gadget (sync ones in a worker thread) under its timeout, turn whatever happens into a
:class:`GadgetExecutionResult`, and limit the output's size.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
import uuid
from collections.abc import Awaitable, Callable, Iterable, Mapping
from functools import partial
from typing import Any

from mypy_extensions import mypyc_attr

from llmist._callables import accepts_positional
from llmist.execution._runners import Done, PreparedCall, Started, ThreadCall, runner_for
from llmist.execution._threads import run_in_thread
from llmist.execution.cancellation import DEFAULT_CANCEL_GRACE_S, stop_task
from llmist.execution.controllers import BeforeGadget, BeforeGadgetDecision, GadgetCallInfo, ParameterInterceptor
from llmist.execution.names import unknown_gadget_text
from llmist.execution.results import GadgetDeferral, GadgetExecutionResult, ResultStatus, build_result
from llmist.execution.steps import CallWrapper
from llmist.gadgets import (
    ExecutionContext,
    Gadget,
    GadgetError,
    GadgetMedia,
    GadgetOutputStore,
    GadgetResult,
    GadgetTimeoutError,
    HumanInputRequired,
    InvalidParametersError,
    ModelClient,
    ModelRetry,
    TaskCompletionSignal,
    as_gadget,
    bind_call,
    validate_params,
)
from llmist.gadgets.binding import dump_params
from llmist.syntax import ParsedCall

__all__ = ["DEFAULT_CANCEL_GRACE_S", "GadgetExecutor", "HumanInputHandler", "ThreadCall"]  # ThreadCall: see _runners

HumanInputHandler = Callable[[str], "str | Awaitable[str]"]
"""``(question) -> answer``, sync or async: asks the human running the agent. A sync handler
(``input()``, say) runs in a worker thread, so other calls and the stream go on while it waits."""

_log = logging.getLogger("llmist.execution")
_perf = time.perf_counter


@mypyc_attr(allow_interpreted_subclasses=True)  # compiled in the regular wheel; users may subclass
class GadgetExecutor:
    """Runs calls against a fixed set of gadgets. One executor per agent run.

    Args:
        gadgets: gadget instances, classes or decorated functions (normalised by ``as_gadget``).
        default_timeout_s: timeout for gadgets without their own ``timeout_s`` (``None``: none).
        cancel_grace_s: how long an async gadget cancelled (its timeout, or the run's end) is
            waited for before it is abandoned, for gadgets without their own ``cancel_grace_s``.
        arg_prefix: the block-format argument marker in use (for schema-aware re-parsing).
        llm_client: lent to gadgets as ``ctx.llm``; its completion costs add to the call's cost.
        on_human_input: answers ``HumanInputRequired``; without it such calls fail with an error.
        output_store: when set, results longer than its limit are stored and replaced by a notice.
        max_retries: how many ``ModelRetry`` each gadget may raise before its calls fail for good.
        before_gadget: called with each validated call; may skip it with a synthetic result.
        intercept_parameters: may rewrite a call's coerced parameters before validation.
        around_call: runs each call's gadget inside something else, such as a durable engine's
            step (see :mod:`llmist.execution.steps`); ``None``: the gadget is called directly.
        idempotency_scope: what each call's ``ctx.idempotency_key`` starts with (a durable run's
            workflow id); ``None``: a fresh id, made when a gadget first reads a key.
        call_positions: each call's place in its run, ``(response, position)`` by invocation id,
            for its key (the same when a recovered run parses the same responses again); a call
            not listed is keyed by its invocation id.
    """

    def __init__(
        self,
        gadgets: Iterable[object] = (),
        *,
        default_timeout_s: float | None = None,
        cancel_grace_s: float = DEFAULT_CANCEL_GRACE_S,
        arg_prefix: str = "!!!ARG:",
        llm_client: ModelClient | None = None,
        on_human_input: HumanInputHandler | None = None,
        output_store: GadgetOutputStore | None = None,
        max_retries: int = 3,
        before_gadget: BeforeGadget | None = None,
        intercept_parameters: ParameterInterceptor | None = None,
        around_call: CallWrapper | None = None,
        idempotency_scope: str | None = None,
        call_positions: Mapping[str, tuple[int, int]] | None = None,
    ) -> None:
        self._gadgets: dict[str, Gadget] = {}
        for obj in gadgets:
            self.register(obj)
        self.default_timeout_s = default_timeout_s
        self.cancel_grace_s_default = cancel_grace_s
        self.arg_prefix = arg_prefix
        self.llm_client = llm_client
        self.on_human_input = on_human_input
        self.output_store = output_store
        self.max_retries = max_retries
        self.before_gadget = before_gadget
        self.intercept_parameters = intercept_parameters
        self.around_call = around_call
        self._scope = idempotency_scope
        # A plain mapping the caller fills, not a callback into it: a bound method of the agent's
        # call runner kept here made a reference cycle, freed only by the garbage collector.
        self._positions = call_positions
        self._retries: dict[str, int] = {}

    @property
    def intercept_parameters(self) -> ParameterInterceptor | None:
        """``(gadget_name, raw) -> raw`` or ``(gadget_name, raw, call) -> raw`` (sync or async):
        may rewrite a call's coerced parameters before validation; the three-argument form also
        gets the :class:`ParsedCall` (its invocation id, dependencies...)."""
        return self._intercept_parameters

    @intercept_parameters.setter
    def intercept_parameters(self, fn: ParameterInterceptor | None) -> None:
        self._intercept_parameters = fn
        self._icp_takes_call = fn is not None and accepts_positional(fn, 3)
        self._hooks_async = _is_async(fn) or _is_async(getattr(self, "_before_gadget", None))

    @property
    def before_gadget(self) -> BeforeGadget | None:
        """Called with each validated call (sync or async); may skip it with a synthetic result."""
        return self._before_gadget

    @before_gadget.setter
    def before_gadget(self, fn: BeforeGadget | None) -> None:
        self._before_gadget = fn
        self._hooks_async = _is_async(fn) or _is_async(getattr(self, "_intercept_parameters", None))

    # --- registry ---------------------------------------------------------------------------

    def register(self, obj: object) -> Gadget:
        """Add a gadget (instance, class or function); its name must be new."""
        g = as_gadget(obj)
        if g.name in self._gadgets and self._gadgets[g.name] is not g:
            raise GadgetError(f"Two gadgets are named {g.name!r}; give one of them another name")
        self._gadgets[g.name] = g
        return g

    @property
    def gadgets(self) -> Mapping[str, Gadget]:
        """The registered gadgets by name."""
        return self._gadgets

    def get(self, name: str) -> Gadget | None:
        """The gadget called ``name``, or ``None``."""
        return self._gadgets.get(name)

    # --- running ----------------------------------------------------------------------------

    async def execute(self, call: ParsedCall) -> GadgetExecutionResult:
        """Run ``call`` and return its result. Raises only ``CancelledError`` (run cancelled)."""
        future: asyncio.Future[GadgetExecutionResult] = asyncio.get_running_loop().create_future()
        gadget = self._gadgets.get(call.gadget_name)
        grace = self.cancel_grace_s_default if gadget is None else self.cancel_grace_s(gadget)
        return await _outcome(self.start(call, future.set_result), future, grace)

    def start(self, call: ParsedCall, done: Done) -> Started:
        """Begin ``call`` without an event-loop turn; for schedulers.

        The synchronous part (lookup, binding, validation, sync hooks) runs now. Returns the
        result when the call is already over (a failure, a skip, an inline gadget); a coroutine
        to run as a task (async gadgets and async hooks: what :meth:`execute` would still do);
        or, for a sync gadget, a :class:`ThreadCall` that is already running in a worker thread
        and hands its result to ``done`` from an event-loop callback (never before ``start``
        returns). Must be called inside the running loop.
        """
        started = _perf()
        if self._hooks_async:
            return self._start_after_hooks(call, started)
        ready = self._prepare(call, started)
        if isinstance(ready, GadgetExecutionResult):
            return ready
        return runner_for(ready.gadget, self.around_call is not None)(self, ready, done)

    async def _start_after_hooks(self, call: ParsedCall, started: float) -> GadgetExecutionResult:
        ready = await self._prepare_async(call, started)
        if isinstance(ready, GadgetExecutionResult):
            return ready
        future: asyncio.Future[GadgetExecutionResult] = asyncio.get_running_loop().create_future()
        began = runner_for(ready.gadget, self.around_call is not None)(self, ready, future.set_result)
        return await _outcome(began, future, self.cancel_grace_s(ready.gadget))

    # --- preparing: lookup, binding, interception, validation, before_gadget -----------------

    def _prepare(self, call: ParsedCall, started: float) -> GadgetExecutionResult | PreparedCall:
        """The call made ready with sync hooks (or none): a result when it ends here."""
        bound = self._bind(call, started)
        if isinstance(bound, GadgetExecutionResult):
            return bound
        gadget, raw = bound
        if self._intercept_parameters is not None:
            raw = _not_awaitable(self._intercept(gadget, raw, call), "intercept_parameters")
        ready = self._validate(gadget, call, raw, started)
        if isinstance(ready, GadgetExecutionResult) or self._before_gadget is None:
            return ready
        decision = self._before_gadget(GadgetCallInfo(gadget, call, ready.dumped))
        return _apply_decision(ready, _not_awaitable(decision, "before_gadget"))

    async def _prepare_async(self, call: ParsedCall, started: float) -> GadgetExecutionResult | PreparedCall:
        """:meth:`_prepare`'s twin for when a hook is async."""
        bound = self._bind(call, started)
        if isinstance(bound, GadgetExecutionResult):
            return bound
        gadget, raw = bound
        if self._intercept_parameters is not None:
            raw = await _settled_value(self._intercept(gadget, raw, call))
        ready = self._validate(gadget, call, raw, started)
        if isinstance(ready, GadgetExecutionResult) or self._before_gadget is None:
            return ready
        decision = await _settled_value(self._before_gadget(GadgetCallInfo(gadget, call, ready.dumped)))
        return _apply_decision(ready, decision)

    def _bind(self, call: ParsedCall, started: float) -> GadgetExecutionResult | tuple[Gadget, dict[str, Any]]:
        gadget = self._gadgets.get(call.gadget_name)
        if gadget is None:
            return self._failure(
                call,
                call.gadget_name,
                call.parameters or {},
                unknown_gadget_text(call.gadget_name, list(self._gadgets)),
                started,
            )
        try:
            return gadget, bind_call(gadget, call, arg_prefix=self.arg_prefix)
        except InvalidParametersError as exc:
            return self._failure(call, gadget.name, dict(call.parameters or {}), str(exc), started)

    def _intercept(self, gadget: Gadget, raw: dict[str, Any], call: ParsedCall) -> Any:
        icp = self._intercept_parameters
        assert icp is not None
        return icp(gadget.name, raw, call) if self._icp_takes_call else icp(gadget.name, raw)

    def _validate(
        self, gadget: Gadget, call: ParsedCall, raw: dict[str, Any], started: float
    ) -> GadgetExecutionResult | PreparedCall:
        try:
            params = validate_params(gadget, raw)
        except InvalidParametersError as exc:
            return self._failure(call, gadget.name, raw, str(exc), started)
        return PreparedCall(gadget, call, params, dump_params(params), started)

    # --- finishing (the runners' Finisher) ---------------------------------------------------

    def context(self, prepared: PreparedCall, loop: asyncio.AbstractEventLoop) -> ExecutionContext:
        """The ``ctx`` a gadget receives."""
        return ExecutionContext(
            gadget_name=prepared.gadget.name,
            invocation_id=prepared.call.invocation_id,
            llm_client=self.llm_client,
            loop=loop,
            idempotency_key=partial(self._key_of, prepared.call),  # made if the gadget reads it
        )

    def _key_of(self, call: ParsedCall) -> str:
        """The call's ``ctx.idempotency_key``: the scope, then the call's place in its run (or,
        for a call not placed, its invocation id)."""
        scope = self._scope
        if scope is None:
            scope = self._scope = uuid.uuid4().hex
        place = self._positions.get(call.invocation_id) if self._positions is not None else None
        return f"{scope}:{call.invocation_id}" if place is None else f"{scope}:{place[0]}.{place[1]}"

    def timeout_s(self, gadget: Gadget) -> float | None:
        """The gadget's own timeout, else the executor's default."""
        return gadget.timeout_s if gadget.timeout_s is not None else self.default_timeout_s

    def cancel_grace_s(self, gadget: Gadget) -> float:
        """How long a cancelled async gadget is waited for before it is abandoned: the gadget's
        own ``cancel_grace_s``, else the executor's."""
        own = gadget.cancel_grace_s
        return own if own is not None else self.cancel_grace_s_default

    def settle(
        self, prepared: PreparedCall, ctx: ExecutionContext, output: Any, exc: BaseException | None
    ) -> GadgetExecutionResult | HumanInputRequired:
        """The result of a finished gadget (its output or whatever it raised), or the
        ``HumanInputRequired`` to put to the input handler. Never raises: an outcome that cannot
        be read (a result whose ``str()`` fails, a cost that is not a number) is the call's error."""
        try:
            return self._settle(prepared, ctx, output, exc)
        except Exception as problem:
            _log.debug(
                "Gadget %s (%s): outcome unreadable", prepared.gadget.name, prepared.call.invocation_id, exc_info=True
            )
            error = (
                str(problem)
                if isinstance(problem, _Unreadable)
                else f"The gadget's outcome could not be used: {_describe(problem)}"
            )
            return self._result(prepared, ctx, None, error, "error", 0.0, False, None, False)

    def _settle(
        self, prepared: PreparedCall, ctx: ExecutionContext, output: Any, exc: BaseException | None
    ) -> GadgetExecutionResult | HumanInputRequired:
        gadget = prepared.gadget
        question: str | None = None
        status: ResultStatus = "success"
        result: str | None = None
        error: str | None = None
        breaks_loop = retry = False
        extra_cost = 0.0
        media: tuple[GadgetMedia, ...] = ()
        # Read through Any: a gadget may fill a field with another type (GadgetResult(result=42)),
        # and the compiled build would check the declared type on access instead of converting.
        if exc is None:
            if isinstance(output, GadgetResult):
                given: Any = output
                result, extra_cost, media = _as_text(given.result), float(given.cost), tuple(given.media)
            else:
                result = _as_text(output)
        elif isinstance(exc, TaskCompletionSignal):
            signal_: Any = exc
            result, breaks_loop = _as_text(signal_.summary), True
        elif isinstance(exc, ModelRetry):
            status, retry, error = "error", True, self._retry_text(gadget, exc.message)
        elif isinstance(exc, HumanInputRequired):
            if self.on_human_input is not None:
                return exc
            question = exc.question
            status = "error"
            error = f"{gadget.name} needs an answer from the user ({exc.question!r}) but no input handler is registered"
        elif isinstance(exc, SystemExit):
            status, error = "error", _exit_text(exc)
        else:
            status, error = "error", _describe(exc)
            _log.debug("Gadget %s (%s) raised", gadget.name, prepared.call.invocation_id, exc_info=exc)
        return self._result(prepared, ctx, result, error, status, extra_cost, breaks_loop, question, retry, media)

    async def ask(
        self, prepared: PreparedCall, ctx: ExecutionContext, exc: HumanInputRequired
    ) -> GadgetExecutionResult:
        """Put the gadget's question to ``on_human_input``; its answer is the call's result."""
        assert self.on_human_input is not None
        status: ResultStatus = "success"
        result: str | None = None
        error: str | None = None
        try:
            result = await _answer(self.on_human_input, exc.question)
        except Exception as handler_exc:
            status, error = "error", f"The input handler failed: {type(handler_exc).__name__}: {handler_exc}"
        return self._result(prepared, ctx, result, error, status, 0.0, False, exc.question, False)

    def timed_out(
        self, prepared: PreparedCall, ctx: ExecutionContext, error: GadgetTimeoutError, left_running: bool = False
    ) -> GadgetExecutionResult:
        """The result of a call whose deadline passed (``left_running``: the gadget ignored its
        cancellation for the whole grace period and was abandoned)."""
        text = str(error)
        if left_running:
            grace = self.cancel_grace_s(prepared.gadget)
            text += f"; it did not stop within {grace:g} s of being cancelled and was left running"
        return self._result(prepared, ctx, None, text, "timeout", 0.0, False, None, False)

    def _result(
        self,
        prepared: PreparedCall,
        ctx: ExecutionContext,
        result: str | None,
        error: str | None,
        status: ResultStatus,
        extra_cost: float,
        breaks_loop: bool,
        question: str | None,
        retry: bool,
        media: tuple[GadgetMedia, ...] = (),
    ) -> GadgetExecutionResult:
        name = prepared.gadget.name
        if result is not None and self.output_store is not None and name != "GadgetOutputViewer":
            result = self.output_store.limit(name, result)
        return build_result(
            gadget_name=name,
            invocation_id=prepared.call.invocation_id,
            parameters=prepared.dumped,
            result=result,
            error=error,
            execution_time_ms=_ms(prepared.started),
            cost=ctx.cost + extra_cost,
            breaks_loop=breaks_loop,
            status=status,
            human_input_question=question,
            model_retry=retry,
            media=media,
        )

    # --- helpers ----------------------------------------------------------------------------

    def _failure(
        self, call: ParsedCall, name: str, parameters: dict[str, Any], error: str, started: float
    ) -> GadgetExecutionResult:
        return build_result(
            gadget_name=name,
            invocation_id=call.invocation_id,
            parameters=parameters,
            result=None,
            error=error,
            execution_time_ms=_ms(started),
            status="error",
        )

    def _retry_text(self, gadget: Gadget, message: str) -> str:
        used = self._retries.get(gadget.name, 0) + 1
        self._retries[gadget.name] = used
        budget = gadget.max_retries if gadget.max_retries is not None else self.max_retries
        if used > budget:
            return (
                f"{message} ({gadget.name} has used up its {budget} retries; do not call it again with these arguments)"
            )
        return f"{message} (retry {used} of {budget}: call {gadget.name} again with corrected arguments)"


async def _outcome(
    started: Started, future: asyncio.Future[GadgetExecutionResult], grace_s: float
) -> GadgetExecutionResult:
    """Wait for what :meth:`GadgetExecutor.start` began; ``future`` is the ``done`` it was given.

    A coroutine runs as a task of its own, so that a result handed to ``done`` (an async gadget
    left running past its timeout's grace period) ends the wait; cancelled, the wait gives the
    task ``grace_s`` to finish its cleanup."""
    if isinstance(started, GadgetExecutionResult):
        return started
    if isinstance(started, ThreadCall):
        try:
            return await future
        except asyncio.CancelledError:
            started.abandon()
            raise
    task = asyncio.ensure_future(started)
    cancelled: asyncio.CancelledError | None = None
    try:
        await asyncio.wait((task, future), return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError as exc:
        cancelled = exc
    if cancelled is not None:
        # Waited for outside the handler: the compiled build (mypyc) crashed on an await inside
        # an ``except`` block followed by a bare ``raise``.
        await stop_task(task, grace_s)
        raise cancelled
    return future.result() if future.done() else task.result()


def _not_awaitable(value: Any, hook: str) -> Any:
    if inspect.isawaitable(value):
        close = getattr(value, "close", None)
        if close is not None:
            close()
        raise TypeError(f"{hook} returned an awaitable from a plain function; declare it with `async def`")
    return value


async def _settled_value(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


def _apply_decision(prepared: PreparedCall, decision: object) -> GadgetExecutionResult | PreparedCall:
    if isinstance(decision, BeforeGadgetDecision) and decision.action == "proceed" and decision.parameters is not None:
        return _replaced(prepared, decision.parameters)
    if isinstance(decision, BeforeGadgetDecision) and decision.action == "skip":
        return build_result(
            gadget_name=prepared.gadget.name,
            invocation_id=prepared.call.invocation_id,
            parameters=prepared.dumped,
            result=decision.result or "Skipped by controller.",
            error=None,
            execution_time_ms=_ms(prepared.started),
            status="skipped",
        )
    if isinstance(decision, BeforeGadgetDecision) and decision.action == "defer":
        reason = decision.result or "deferred by a before_gadget hook"
        return build_result(
            gadget_name=prepared.gadget.name,
            invocation_id=prepared.call.invocation_id,
            parameters=prepared.dumped,
            result=None,
            error=f"Not run yet: {reason}",
            execution_time_ms=_ms(prepared.started),
            status="deferred",
            deferral=GadgetDeferral(reason, prepared.call),
        )
    return prepared


def _replaced(prepared: PreparedCall, parameters: dict[str, Any]) -> GadgetExecutionResult | PreparedCall:
    """``prepared`` with ``parameters`` validated in place of the model's, or the failure naming
    why they are invalid."""
    gadget = prepared.gadget
    try:
        params = validate_params(gadget, parameters)
    except InvalidParametersError as exc:
        return build_result(
            gadget_name=gadget.name,
            invocation_id=prepared.call.invocation_id,
            parameters=dict(parameters),
            result=None,
            error=f"the replaced parameters are invalid: {exc}",
            execution_time_ms=_ms(prepared.started),
            status="error",
        )
    return PreparedCall(gadget, prepared.call, params, dump_params(params), prepared.started)


def _is_async(fn: object) -> bool:
    """Whether ``fn`` is an ``async def`` (a function, a method, or an object whose ``__call__`` is)."""
    if fn is None:  # no hook: what every run's executor is made with
        return False
    if inspect.iscoroutinefunction(fn):
        return True
    return callable(fn) and not inspect.isroutine(fn) and inspect.iscoroutinefunction(type(fn).__call__)


async def _answer(handler: HumanInputHandler, question: str) -> str:
    if inspect.iscoroutinefunction(handler):
        answer: str | Awaitable[str] = await handler(question)
    else:  # in the gadgets' worker threads: input() and the like block
        answer = await run_in_thread(handler, question)
    return await answer if inspect.isawaitable(answer) else answer


class _Unreadable(Exception):
    """A gadget's result that cannot be turned into text (its ``str()`` raised)."""


def _as_text(value: object) -> str:
    """A gadget's result as the text the model sees: ``None`` is empty, anything else its ``str()``."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    try:
        return str(value)
    except Exception as exc:
        raise _Unreadable(
            f"The gadget's result ({type(value).__name__}) could not be turned into text: {_describe(exc)}"
        ) from exc


def _describe(exc: BaseException) -> str:
    """``Type: message`` (``Type`` alone without a message, or when the message itself fails)."""
    try:
        text = str(exc)
    except Exception:
        text = ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _exit_text(exc: SystemExit) -> str:
    """A gadget's ``SystemExit`` is the gadget's failure, not the program's end: the model drives
    the gadget, so the model hears about it like any other error."""
    return f"SystemExit: the gadget called sys.exit({exc.code!r}); the call failed and the agent goes on"


def _ms(started: float) -> float:
    return (_perf() - started) * 1000.0
