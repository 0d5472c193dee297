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
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any

from llmist.execution._threads import run_in_thread
from llmist.execution.controllers import BeforeGadget, BeforeGadgetDecision, GadgetCallInfo, ParameterInterceptor
from llmist.execution.results import GadgetExecutionResult, ResultStatus
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

__all__ = ["GadgetExecutor", "HumanInputHandler"]

HumanInputHandler = Callable[[str], Awaitable[str]]
"""``async (question) -> answer``: asks the human running the agent."""

_log = logging.getLogger("llmist.execution")
_perf = time.perf_counter


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
        gadget = self._gadgets.get(call.gadget_name)
        if gadget is None:
            return self._failure(call, call.gadget_name, call.parameters or {}, self._unknown_text(call), started)
        raw: dict[str, Any] = dict(call.parameters or {})
        try:
            raw = bind_call(gadget, call, arg_prefix=self.arg_prefix)
            if self.intercept_parameters is not None:
                raw = await _maybe_await(self.intercept_parameters(gadget.name, raw))
            params = validate_params(gadget, raw)
        except InvalidParametersError as exc:
            return self._failure(call, gadget.name, raw, str(exc), started)
        dumped = params.model_dump()
        if self.before_gadget is not None:
            decision = await _maybe_await(self.before_gadget(GadgetCallInfo(gadget, call, dumped)))
            if isinstance(decision, BeforeGadgetDecision) and decision.action == "skip":
                return GadgetExecutionResult(
                    gadget.name,
                    call.invocation_id,
                    dumped,
                    decision.result or "Skipped by controller.",
                    None,
                    _ms(started),
                    status="skipped",
                )
        return await self._run(gadget, call, params, dumped, started)

    async def _run(
        self, gadget: Gadget, call: ParsedCall, params: Any, dumped: dict[str, Any], started: float
    ) -> GadgetExecutionResult:
        loop = asyncio.get_running_loop()
        ctx = ExecutionContext(
            gadget_name=gadget.name,
            invocation_id=call.invocation_id,
            llm_client=self.llm_client,
            logger=self._logger(gadget.name),
            loop=loop,
        )
        invocation = gadget._invocation()
        timeout = gadget.timeout_s if gadget.timeout_s is not None else self.default_timeout_s
        task = asyncio.current_task()
        timer: asyncio.TimerHandle | None = None
        timed_out: list[GadgetTimeoutError] = []
        if timeout is not None and task is not None:
            timer = loop.call_later(timeout, _fire_timeout, ctx, task, timed_out, gadget.name, timeout)
        question: str | None = None
        status: ResultStatus = "success"
        result: str | None = None
        error: str | None = None
        breaks_loop = retry = False
        extra_cost = 0.0
        try:
            if invocation.is_async:
                output = await invocation.call(params, ctx)
            else:
                output = await run_in_thread(invocation.call, params, ctx)
            if timed_out:  # the gadget swallowed its cancellation
                raise asyncio.CancelledError
            if isinstance(output, GadgetResult):
                result, extra_cost = output.result, output.cost
            elif isinstance(output, str):
                result = output
            else:
                result = "" if output is None else str(output)
        except asyncio.CancelledError:
            if timed_out and task is not None and task.uncancel() == 0:
                status, error = "timeout", str(timed_out[0])
            else:
                ctx.signal.abort("cancelled")
                raise
        except TaskCompletionSignal as exc:
            result, breaks_loop = exc.summary, True
        except ModelRetry as exc:
            status, retry, error = "error", True, self._retry_text(gadget, exc.message)
        except HumanInputRequired as exc:
            question = exc.question
            if self.on_human_input is None:
                status = "error"
                error = (
                    f"{gadget.name} needs an answer from the user ({exc.question!r}) but no input handler is registered"
                )
            else:
                try:
                    result = await self.on_human_input(exc.question)
                except Exception as handler_exc:
                    status, error = "error", f"The input handler failed: {type(handler_exc).__name__}: {handler_exc}"
        except Exception as exc:
            status, error = "error", f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            _log.debug("Gadget %s (%s) raised", gadget.name, call.invocation_id, exc_info=True)
        finally:
            if timer is not None:
                timer.cancel()
        if result is not None and self.output_store is not None and gadget.name != "GadgetOutputViewer":
            result = self.output_store.limit(gadget.name, result)
        return GadgetExecutionResult(
            gadget.name,
            call.invocation_id,
            dumped,
            result,
            error,
            _ms(started),
            cost=ctx.cost + extra_cost,
            breaks_loop=breaks_loop,
            status=status,
            human_input_question=question,
            model_retry=retry,
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


def _fire_timeout(
    ctx: ExecutionContext, task: asyncio.Task[Any], timed_out: list[GadgetTimeoutError], name: str, timeout: float
) -> None:
    error = GadgetTimeoutError(name, timeout)
    timed_out.append(error)
    ctx.signal.abort(error)  # listeners run first, so the gadget can clean up
    task.cancel()


async def _maybe_await(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


def _ms(started: float) -> float:
    return (_perf() - started) * 1000.0
