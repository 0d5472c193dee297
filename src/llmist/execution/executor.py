"""``GadgetExecutor``: runs one parsed call, start to finish, and never raises for a gadget's fault.

Resolve the gadget, bind and validate the parameters, ask ``before_gadget``, run the
gadget (sync ones in a worker thread) under its timeout, turn whatever happens into a
:class:`GadgetExecutionResult`, and limit the output's size.
"""

from __future__ import annotations

import asyncio
import difflib
import inspect
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Mapping
from typing import Any

from mypy_extensions import mypyc_attr

from llmist.execution._threads import run_in_thread, submit_to_thread
from llmist.execution.controllers import BeforeGadget, BeforeGadgetDecision, GadgetCallInfo, ParameterInterceptor
from llmist.execution.results import RUN_CANCELLED, GadgetExecutionResult, ResultStatus, call_result, new_result
from llmist.gadgets import (
    ExecutionContext,
    Gadget,
    GadgetError,
    GadgetOutputStore,
    GadgetResult,
    GadgetTimeoutError,
    HumanInputRequired,
    InvalidParametersError,
    LLMClient,
    ModelRetry,
    TaskCompletionSignal,
    as_gadget,
    bind_call,
    validate_params,
)
from llmist.syntax import ParsedCall

__all__ = ["GadgetExecutor", "HumanInputHandler", "ThreadCall"]

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
        arg_prefix: the block-format argument marker in use (for schema-aware re-parsing).
        llm_client: lent to gadgets as ``ctx.llm``; its completion costs add to the call's cost.
        on_human_input: answers ``HumanInputRequired``; without it such calls fail with an error.
        output_store: when set, results longer than its limit are stored and replaced by a notice.
        max_retries: how many ``ModelRetry`` each gadget may raise before its calls fail for good.
        before_gadget: called with each validated call; may skip it with a synthetic result.
        intercept_parameters: may rewrite a call's coerced parameters before validation.
    """

    def __init__(
        self,
        gadgets: Iterable[object] = (),
        *,
        default_timeout_s: float | None = None,
        arg_prefix: str = "!!!ARG:",
        llm_client: LLMClient | None = None,
        on_human_input: HumanInputHandler | None = None,
        output_store: GadgetOutputStore | None = None,
        max_retries: int = 3,
        before_gadget: BeforeGadget | None = None,
        intercept_parameters: ParameterInterceptor | None = None,
    ) -> None:
        self._gadgets: dict[str, Gadget] = {}
        for obj in gadgets:
            self.register(obj)
        self.default_timeout_s = default_timeout_s
        self.arg_prefix = arg_prefix
        self.llm_client = llm_client
        self.on_human_input = on_human_input
        self.output_store = output_store
        self.max_retries = max_retries
        self.before_gadget = before_gadget
        self.intercept_parameters = intercept_parameters
        self._retries: dict[str, int] = {}
        self._loggers: dict[str, logging.Logger] = {}

    @property
    def intercept_parameters(self) -> ParameterInterceptor | None:
        """``(gadget_name, raw) -> raw`` or ``(gadget_name, raw, call) -> raw`` (sync or async):
        may rewrite a call's coerced parameters before validation; the three-argument form also
        gets the :class:`ParsedCall` (its invocation id, dependencies...)."""
        return self._intercept_parameters

    @intercept_parameters.setter
    def intercept_parameters(self, fn: ParameterInterceptor | None) -> None:
        self._intercept_parameters = fn
        self._icp_takes_call = fn is not None and _positional_arity(fn) >= 3

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
        started = _perf()
        prepared = self._prepare(call, started)
        if isinstance(prepared, GadgetExecutionResult):
            return prepared
        if not isinstance(prepared, _Prepared):
            prepared = await prepared
            if isinstance(prepared, GadgetExecutionResult):
                return prepared
        return await self._run(prepared)

    def start(
        self, call: ParsedCall, done: Callable[[GadgetExecutionResult], None]
    ) -> GadgetExecutionResult | Coroutine[Any, Any, GadgetExecutionResult] | ThreadCall:
        """Begin ``call`` without an event-loop turn; for schedulers.

        The synchronous part (lookup, binding, validation, sync hooks) runs now. Returns the
        result when the call is already over (a failure, a skip, an inline gadget); a coroutine
        to run as a task (async gadgets and async hooks: what :meth:`execute` would still do);
        or, for a sync gadget, a :class:`ThreadCall` that is already running in a worker thread
        and hands its result to ``done`` from an event-loop callback (never before ``start``
        returns). Must be called inside the running loop.
        """
        started = _perf()
        prepared = self._prepare(call, started)
        if isinstance(prepared, GadgetExecutionResult):
            return prepared
        if not isinstance(prepared, _Prepared):
            return self._finish_async(prepared)
        invocation = prepared.gadget._invocation()
        if invocation.is_async:
            return self._run(prepared)
        if prepared.gadget.run_inline:
            return self._run_inline(prepared, invocation.call)
        return ThreadCall(self, prepared, invocation.call, done)

    def _prepare(self, call: ParsedCall, started: float) -> Any:
        """Lookup, binding, validation and ``before_gadget``: a result (the call ends here), a
        :class:`_Prepared` call, or an awaitable of either (an async hook)."""
        gadget = self._gadgets.get(call.gadget_name)
        if gadget is None:
            return self._failure(call, call.gadget_name, call.parameters or {}, self._unknown_text(call), started)
        raw: dict[str, Any] = dict(call.parameters or {})
        try:
            raw = bind_call(gadget, call, arg_prefix=self.arg_prefix)
            icp = self._intercept_parameters
            if icp is not None:
                changed = icp(gadget.name, raw, call) if self._icp_takes_call else icp(gadget.name, raw)
                if inspect.isawaitable(changed):
                    return self._prepare_rest(gadget, call, started, raw, changed)
                raw = changed
            params = validate_params(gadget, raw)
        except InvalidParametersError as exc:
            return self._failure(call, gadget.name, raw, str(exc), started)
        return self._decide(gadget, call, started, params)

    async def _prepare_rest(
        self, gadget: Gadget, call: ParsedCall, started: float, raw: dict[str, Any], changed: Awaitable[Any]
    ) -> Any:
        try:
            raw = await changed
            params = validate_params(gadget, raw)
        except InvalidParametersError as exc:
            return self._failure(call, gadget.name, raw, str(exc), started)
        decided = self._decide(gadget, call, started, params)
        if isinstance(decided, (GadgetExecutionResult, _Prepared)):
            return decided
        return await decided

    def _decide(self, gadget: Gadget, call: ParsedCall, started: float, params: Any) -> Any:
        dumped = params.model_dump()
        prepared = _Prepared(gadget, call, params, dumped, started)
        if self.before_gadget is None:
            return prepared
        decision = self.before_gadget(GadgetCallInfo(gadget, call, dumped))
        if inspect.isawaitable(decision):
            return self._decide_later(prepared, decision)
        return self._apply_decision(prepared, decision)

    async def _decide_later(self, prepared: _Prepared, decision: Awaitable[Any]) -> Any:
        return self._apply_decision(prepared, await decision)

    def _apply_decision(self, prepared: _Prepared, decision: Any) -> GadgetExecutionResult | _Prepared:
        if isinstance(decision, BeforeGadgetDecision) and decision.action == "skip":
            return GadgetExecutionResult(
                prepared.gadget.name,
                prepared.call.invocation_id,
                prepared.dumped,
                decision.result or "Skipped by controller.",
                None,
                _ms(prepared.started),
                status="skipped",
            )
        return prepared

    async def _finish_async(self, prepared: Awaitable[Any]) -> GadgetExecutionResult:
        ready = await prepared
        if isinstance(ready, GadgetExecutionResult):
            return ready
        return await self._run(ready)

    def _context(self, prepared: _Prepared, loop: asyncio.AbstractEventLoop) -> ExecutionContext:
        name = prepared.gadget.name
        return ExecutionContext(
            gadget_name=name,
            invocation_id=prepared.call.invocation_id,
            llm_client=self.llm_client,
            logger=self._logger(name),
            loop=loop,
        )

    def _timeout(self, gadget: Gadget) -> float | None:
        return gadget.timeout_s if gadget.timeout_s is not None else self.default_timeout_s

    def _run_inline(
        self, prepared: _Prepared, fn: Callable[..., Any]
    ) -> GadgetExecutionResult | Coroutine[Any, Any, GadgetExecutionResult]:
        """An opt-in ``run_inline`` sync gadget: called right here, on the event loop's thread."""
        ctx = self._context(prepared, asyncio.get_running_loop())
        try:
            output, exc = fn(prepared.params, ctx), None
        except (Exception, SystemExit) as error:
            output, exc = None, error
        settled = self._settle(prepared, ctx, output, exc)
        if isinstance(settled, HumanInputRequired):
            return self._ask(prepared, ctx, settled)
        return settled

    async def _run(self, prepared: _Prepared) -> GadgetExecutionResult:
        gadget = prepared.gadget
        loop = asyncio.get_running_loop()
        ctx = self._context(prepared, loop)
        invocation = gadget._invocation()
        timeout = self._timeout(gadget)
        task = asyncio.current_task(loop)
        timer: asyncio.TimerHandle | None = None
        timed_out: list[GadgetTimeoutError] = []
        if timeout is not None and task is not None:
            timer = loop.call_later(timeout, _fire_timeout, ctx, task, timed_out, gadget.name, timeout)
        exc: Exception | SystemExit | None = None
        output: Any = None
        try:
            if invocation.is_async:
                output = await invocation.call(prepared.params, ctx)
            elif gadget.run_inline:  # opt-in: on the loop's thread, as start() runs it
                output = invocation.call(prepared.params, ctx)
            else:
                output = await run_in_thread(invocation.call, prepared.params, ctx)
            if timed_out:  # the gadget swallowed its cancellation
                raise asyncio.CancelledError
        except asyncio.CancelledError:
            if timed_out and task is not None and task.uncancel() == 0:
                return self._timeout_result(prepared, ctx, timed_out[0])
            ctx.signal.abort("cancelled")
            raise
        except (Exception, SystemExit) as error:  # SystemExit: a library the gadget called quit
            exc = error
        finally:
            if timer is not None:
                timer.cancel()
        settled = self._settle(prepared, ctx, output, exc)
        if isinstance(settled, HumanInputRequired):
            return await self._ask(prepared, ctx, settled)
        return settled

    def _settle(
        self, prepared: _Prepared, ctx: ExecutionContext, output: Any, exc: Exception | SystemExit | None
    ) -> GadgetExecutionResult | HumanInputRequired:
        """The result of a finished gadget (its output or the exception it raised), or the
        ``HumanInputRequired`` to put to the input handler."""
        gadget = prepared.gadget
        question: str | None = None
        status: ResultStatus = "success"
        result: str | None = None
        error: str | None = None
        breaks_loop = retry = False
        extra_cost = 0.0
        if exc is None:
            if isinstance(output, GadgetResult):
                result, extra_cost = output.result, output.cost
            elif isinstance(output, str):
                result = output
            else:
                result = "" if output is None else str(output)
        elif isinstance(exc, TaskCompletionSignal):
            result, breaks_loop = exc.summary, True
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
            status, error = "error", f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            _log.debug("Gadget %s (%s) raised", gadget.name, prepared.call.invocation_id, exc_info=exc)
        return self._result(prepared, ctx, result, error, status, extra_cost, breaks_loop, question, retry)

    async def _ask(self, prepared: _Prepared, ctx: ExecutionContext, exc: HumanInputRequired) -> GadgetExecutionResult:
        assert self.on_human_input is not None
        status: ResultStatus = "success"
        result: str | None = None
        error: str | None = None
        try:
            result = await _answer(self.on_human_input, exc.question)
        except Exception as handler_exc:
            status, error = "error", f"The input handler failed: {type(handler_exc).__name__}: {handler_exc}"
        return self._result(prepared, ctx, result, error, status, 0.0, False, exc.question, False)

    def _timeout_result(
        self, prepared: _Prepared, ctx: ExecutionContext, error: GadgetTimeoutError
    ) -> GadgetExecutionResult:
        return self._result(prepared, ctx, None, str(error), "timeout", 0.0, False, None, False)

    def _result(
        self,
        prepared: _Prepared,
        ctx: ExecutionContext,
        result: str | None,
        error: str | None,
        status: ResultStatus,
        extra_cost: float,
        breaks_loop: bool,
        question: str | None,
        retry: bool,
    ) -> GadgetExecutionResult:
        name = prepared.gadget.name
        if result is not None and self.output_store is not None and name != "GadgetOutputViewer":
            result = self.output_store.limit(name, result)
        return new_result(
            name,
            prepared.call.invocation_id,
            prepared.dumped,
            result,
            error,
            _ms(prepared.started),
            ctx.cost + extra_cost,
            breaks_loop,
            status,
            None,
            question,
            retry,
        )

    # --- helpers ----------------------------------------------------------------------------

    def _failure(
        self, call: ParsedCall, name: str, parameters: dict[str, Any], error: str, started: float
    ) -> GadgetExecutionResult:
        return GadgetExecutionResult(name, call.invocation_id, parameters, None, error, _ms(started), status="error")

    def _unknown_text(self, call: ParsedCall) -> str:
        names = sorted(self._gadgets)
        close = difflib.get_close_matches(call.gadget_name, names, n=1, cutoff=0.6)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        available = ", ".join(names) if names else "none"
        return f"Unknown gadget {call.gadget_name!r}.{hint} Available gadgets: {available}."

    def _retry_text(self, gadget: Gadget, message: str) -> str:
        used = self._retries.get(gadget.name, 0) + 1
        self._retries[gadget.name] = used
        budget = gadget.max_retries if gadget.max_retries is not None else self.max_retries
        if used > budget:
            return (
                f"{message} ({gadget.name} has used up its {budget} retries; do not call it again with these arguments)"
            )
        return f"{message} (retry {used} of {budget}: call {gadget.name} again with corrected arguments)"

    def _logger(self, name: str) -> logging.Logger:
        logger = self._loggers.get(name)
        if logger is None:
            logger = self._loggers[name] = logging.getLogger(f"llmist.gadget.{name}")
        return logger


class _Prepared:
    """A call that passed lookup, validation and ``before_gadget``: ready to run."""

    __slots__ = ("call", "dumped", "gadget", "params", "started")

    def __init__(self, gadget: Gadget, call: ParsedCall, params: Any, dumped: dict[str, Any], started: float) -> None:
        self.gadget = gadget
        self.call = call
        self.params = params
        self.dumped = dumped
        self.started = started


class ThreadCall:
    """A sync gadget running in a worker thread (see :meth:`GadgetExecutor.start`).

    Its result reaches ``done`` from an event-loop callback: the gadget's return, its
    exception, or its timeout (the signal fires first, then the call ends with a timeout
    result and the thread is abandoned). :meth:`abandon` stops waiting for it (run cancelled).
    """

    __slots__ = ("_ctx", "_done", "_executor", "_over", "_prepared", "_timer", "task")

    def __init__(
        self,
        executor: GadgetExecutor,
        prepared: _Prepared,
        fn: Callable[..., Any],
        done: Callable[[GadgetExecutionResult], None],
    ) -> None:
        loop = asyncio.get_running_loop()
        self._executor = executor
        self._prepared = prepared
        self._done = done
        self._over = False
        self.task: asyncio.Task[Any] | None = None
        """The task asking the input handler, once the gadget raised ``HumanInputRequired``."""
        self._ctx = ctx = executor._context(prepared, loop)
        timeout = executor._timeout(prepared.gadget)
        self._timer = None if timeout is None else loop.call_later(timeout, self._on_timeout, timeout)
        submit_to_thread(loop, self._complete, fn, prepared.params, ctx)

    def _complete(self, output: Any, exc: BaseException | None) -> None:
        if self._over:
            return  # timed out or abandoned: the late result is dropped
        self._over = True
        if self._timer is not None:
            self._timer.cancel()
        if exc is not None and not isinstance(exc, (Exception, SystemExit)):
            if isinstance(exc, asyncio.CancelledError):
                self._ctx.signal.abort("cancelled")
                self._done(call_result(self._prepared.call, None, RUN_CANCELLED, "cancelled"))
                return
            raise exc
        settled = self._executor._settle(self._prepared, self._ctx, output, exc)
        if isinstance(settled, HumanInputRequired):
            self.task = asyncio.get_running_loop().create_task(self._ask(settled))
            return
        self._done(settled)

    async def _ask(self, question: HumanInputRequired) -> None:
        try:
            result = await self._executor._ask(self._prepared, self._ctx, question)
        except asyncio.CancelledError:
            return  # abandoned: the scheduler reported the call cancelled
        self._done(result)

    def _on_timeout(self, timeout: float) -> None:
        if self._over:
            return
        self._over = True
        error = GadgetTimeoutError(self._prepared.gadget.name, timeout)
        self._ctx.signal.abort(error)  # listeners run first, so the gadget can clean up
        self._done(self._executor._timeout_result(self._prepared, self._ctx, error))

    def abandon(self) -> None:
        """Stop waiting (the run was cancelled): fire the gadget's signal and drop its result;
        ``done`` is not called. The worker thread runs on until the gadget returns."""
        if self.task is not None:
            self.task.cancel()
        if self._over:
            return
        self._over = True
        if self._timer is not None:
            self._timer.cancel()
        self._ctx.signal.abort("cancelled")


def _fire_timeout(
    ctx: ExecutionContext, task: asyncio.Task[Any], timed_out: list[GadgetTimeoutError], name: str, timeout: float
) -> None:
    error = GadgetTimeoutError(name, timeout)
    timed_out.append(error)
    ctx.signal.abort(error)  # listeners run first, so the gadget can clean up
    task.cancel()


def _positional_arity(fn: Callable[..., Any]) -> int:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return 2
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    if any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in params):
        return 3
    return sum(1 for p in params if p.kind in kinds)


async def _answer(handler: HumanInputHandler, question: str) -> str:
    if inspect.iscoroutinefunction(handler):
        answer: str | Awaitable[str] = await handler(question)
    else:  # in the gadgets' worker threads: input() and the like block
        answer = await run_in_thread(handler, question)
    return await answer if inspect.isawaitable(answer) else answer


def _exit_text(exc: SystemExit) -> str:
    """A gadget's ``SystemExit`` is the gadget's failure, not the program's end: the model drives
    the gadget, so the model hears about it like any other error."""
    return f"SystemExit: the gadget called sys.exit({exc.code!r}); the call failed and the agent goes on"


def _ms(started: float) -> float:
    return (_perf() - started) * 1000.0
