"""The agent loop: stream a response, run its calls while it streams, feed results back, repeat.

:func:`run_loop` is the pipeline behind ``Agent.stream()`` and ``Agent.run()`` (the assembler,
``llmist.agent._assemble``, starts it inside the features that wrap it); each step is one
function, and the events a step produced come out together, as a list (``stream()`` hands them
out one by one, ``run()`` drops them)::

    run_loop                the run: one iteration per pass, until a stop reason; the result
      ctx.prelude           (first, if a feature set one) calls run before the first model
                            call: a resumed run's decided calls (the approvals feature)
      _begin_response       the before_llm_call controller, the on_llm_call_start observer
      _model_response       the response text: the model's stream (or a controller's text)
        Response.feed       one chunk through the parser; calls start as they close
      Response.end          parser flush, usage and cost, the response's end event
      _response_complete    the on_llm_call_complete observer
      calls.late_result     results of calls still running when the response ended
      _next_turn            the conversation, on_iteration, the stop reason

The steps of an iteration sit in ``run_loop`` itself rather than in a generator of their own:
each async generator a round creates costs a registration with the event loop, measurably.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import AsyncGenerator, AsyncIterable, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial

from llmist.agent._run.calls import ResponseCalls
from llmist.agent._run.context import Events, ModelChoice, RunContext
from llmist.agent._run.grammar import request_grammar
from llmist.agent._run.hooks import RunHooks
from llmist.agent._run.plan import CallParser, RunPlan
from llmist.agent._run.response import ModelWait, Response
from llmist.agent._run.state import RunState
from llmist.agent.approvals import PendingCall
from llmist.agent.conversation import loop_notes, repeated_failure_note, result_message
from llmist.agent.events import AgentEvent, ModelFallbackEvent
from llmist.agent.guard import check_model_allowed
from llmist.agent.hooks import (
    ChunkContext,
    IterationContext,
    LLMCallContext,
    LLMCompleteContext,
    LLMErrorContext,
    Recover,
    ReplaceMessages,
    SkipLLMCall,
    call_controller,
    call_observer,
)
from llmist.agent.messages import AssistantMessage, GadgetResultMessage
from llmist.agent.repairs import (
    STORED_OUTPUT_NOTE,
    drop_invented_results,
    next_step_note,
    parameter_names,
    without_json_calls,
)
from llmist.agent.result import AgentResult, StopReason
from llmist.agent.spec import AgentSpec
from llmist.agent.steps import RunSteps, current_steps
from llmist.execution import GadgetExecutionResult
from llmist.execution.names import native_name
from llmist.gadgets import AbortSignal, GadgetOutputViewer
from llmist.gadgets.binding import corrected_params
from llmist.providers.base import ContentPart, LLMChunk, LLMRequest, Message, ToolCall, Usage
from llmist.providers.errors import ProviderError
from llmist.syntax import CallIds, ParsedCall
from llmist.syntax.writing import EMOJI_END, EMOJI_START

__all__ = ["run_loop", "start_messages"]

logger = logging.getLogger("llmist.agent")

_VIEWER_NOTICE = f"Use {GadgetOutputViewer.name} with id"
"""Part of the output store's notice for an output too large to show."""

_NO_CALLS_NUDGE = (
    "Your last answer made no gadget calls. Continue the task with gadget calls, "
    "or give your final answer if it is done."
)


@dataclass(slots=True)
class _Run:
    """One run in progress: what it was given, its conversation, its totals and its calls."""

    cfg: RunPlan
    hooks: RunHooks
    """``cfg``'s hooks with the run's own."""
    spec: AgentSpec
    """The options the run took when it started (its limits, model settings...)."""
    signal: AbortSignal
    messages: list[Message]
    state: RunState
    calls: ResponseCalls
    wait: ModelWait
    parser: CallParser
    stop: StopReason | None = None
    pending: list[PendingCall] = field(default_factory=list)
    """The calls that wait for a decision, once a response deferred some."""
    output: str = field(default="")
    """The last response's prose."""
    failures: set[tuple[str, str]] = field(default_factory=set)
    """The gadget names and errors of the run's failed calls."""
    viewer_taught: bool = False
    """An output was stored for the viewer: its instructions went to the model (native: it is
    offered as a tool from now on)."""
    models: ModelChoice | None = None
    """Which model answers each response, when a feature chooses (fallback models: ``cfg`` is
    then the current one's plan)."""
    steps: RunSteps | None = None
    """What runs each model response as a step (a durable run's; see ``llmist.agent.steps``)."""


async def run_loop(ctx: RunContext) -> AsyncGenerator[Events, None]:
    """Run ``ctx``'s prompt after its history, yielding its events in batches; set ``ctx.result``
    once the run ends. What the run was given is read when it starts, not before."""
    cfg, spec, signal, state = ctx.plan, ctx.spec, ctx.signal, RunState()
    hooks, prelude = ctx.hooks_for(cfg), ctx.prelude
    messages = start_messages(cfg.system_message, None if prelude else ctx.prompt, ctx.history or (), cfg.examples)
    ids = CallIds(after=[*_invocation_ids(messages), *(prelude.invocation_ids if prelude else ())])
    run = _Run(
        cfg,
        hooks,
        spec,
        signal,
        messages,
        state,
        ResponseCalls(cfg, hooks, spec, state, signal, ids),
        ModelWait(signal),
        cfg.take_parser(ids),
    )
    run.models = ctx.models
    steps = run.steps = current_steps()
    if steps is not None:
        run.calls.use_steps(steps)
    try:
        if prelude is not None:
            async for events in prelude.run(run.calls, run.messages, partial(_result_message, run)):
                yield events
            await _after_prelude(run, prelude.size, ctx.prompt)
        while run.stop is None:
            if signal.aborted:
                run.stop = "cancelled"
                break
            response = await _begin_response(run)
            async for events in _model_response(run, response):
                yield events
            yield await response.end(run.state)
            await _response_complete(run, response)
            while (late := await run.calls.late_result()) is not None:
                yield [late]
            await _next_turn(run, response)
    finally:
        await run.calls.shutdown()
        run.wait.detach(signal)
        run.cfg.give_back_parser(run.parser)
    ctx.result = _result(run)


def _invocation_ids(messages: Sequence[Message]) -> Iterator[str]:
    """The ids of the calls in ``messages``: their results', and native calls' own."""
    for m in messages:
        if isinstance(m, GadgetResultMessage):
            yield m.invocation_id
        for call in m.tool_calls or ():
            yield call.id


def start_messages(
    system: Message,
    prompt: str | tuple[ContentPart, ...] | None,
    history: Sequence[Message],
    examples: Sequence[Message] = (),
) -> list[Message]:
    """The conversation a run starts from: this agent's system prompt (a system message at the
    head of ``history`` is replaced: the gadgets may have changed), the history, the prompt.

    The example exchanges (``few_shot``) open a new conversation only: a continued one holds
    them already."""
    rest = history[1:] if history and history[0].role == "system" else history
    messages = [system, *rest] if rest else [system, *examples]
    if prompt is not None:
        messages.append(Message("user", prompt))
    if len(messages) == 1:
        raise ValueError("a run needs a prompt, or a history to continue (got neither)")
    return messages


async def _after_prelude(run: _Run, n_calls: int, prompt: str | tuple[ContentPart, ...] | None) -> None:
    """After the prelude's calls ran: the ``on_iteration`` observer (iteration 0: the paused
    response's calls are done), then the stop reason, then the run's new prompt if any."""
    await _iteration_done(run, n_calls, run.calls.pending)
    calls = run.calls
    if run.signal.aborted:
        run.stop = "cancelled"
    elif calls.pending:
        run.stop, run.pending = "awaiting_approval", calls.pending
    elif calls.completion is not None:
        run.stop = "task_complete"
    if prompt is not None and run.stop is None:
        run.messages.append(Message("user", prompt))


async def _iteration_done(run: _Run, n_calls: int, pending: list[PendingCall]) -> None:
    """The ``on_iteration`` observer, told the conversation so far and the calls that wait."""
    obs, st = run.hooks.observers, run.state
    if obs is not None and obs.on_iteration is not None:
        elapsed = time.perf_counter() - st.started
        ctx = IterationContext(
            st.iteration, st.usage, st.llm_cost, st.gadget_cost, elapsed, n_calls, run.messages, tuple(pending)
        )
        await call_observer(obs.on_iteration, ctx)


async def _begin_response(run: _Run) -> Response:
    """A new response; the controller may answer it instead of the model (``SkipLLMCall``)."""
    if run.models is not None:
        _use_plan(run, *run.models.begin())
    cfg, st = run.cfg, run.state
    st.iteration += 1
    it = st.iteration
    if it > 1:
        run.parser.reset()
    run.calls.start_response(it)
    response = Response(cfg, run.hooks, run.calls, run.parser, ChunkContext(it))
    obs, ctl = run.hooks.observers, run.hooks.controllers
    if obs is None and ctl is None:
        return response
    call_ctx = LLMCallContext(it, cfg.model_name, run.messages, cfg.provider_name)
    if ctl is not None and ctl.transform_messages is not None:
        await _transform_messages(run, ctl.transform_messages, call_ctx)
    if ctl is not None and ctl.before_llm_call is not None:
        action = await call_controller(ctl.before_llm_call, call_ctx)
        if isinstance(action, SkipLLMCall):
            response.synthetic = action.response
    if obs is not None and obs.on_llm_call_start is not None:
        await call_observer(obs.on_llm_call_start, call_ctx)
    return response


async def _transform_messages(run: _Run, controller: Callable[[LLMCallContext], object], ctx: LLMCallContext) -> None:
    """The ``transform_messages`` controller: the conversation may be replaced (compaction),
    and what making the replacement cost joins the run's totals."""
    action = await call_controller(controller, ctx)
    if isinstance(action, ReplaceMessages):
        run.messages[:] = action.messages
        st = run.state
        st.usage = st.usage + action.usage
        st.llm_cost += action.cost


async def _model_response(run: _Run, response: Response) -> AsyncGenerator[Events, None]:
    """The response's text: the model's stream chunk by chunk through ``response`` until it ends
    or the run is cancelled (a cancel also interrupts the wait for a chunk: see ``ModelWait``),
    or the text a controller gave instead (before the call, or after the model failed: then
    what streamed so far is forgotten). With fallback models, a model that fails hands the
    response to the next one (:func:`_fall_back`) before any controller hears of it."""
    while response.synthetic is None:
        wait, signal = run.wait, run.signal
        stream = _open_stream(run)
        finished = False
        error: Exception | None = None
        try:
            chunks = stream.__aiter__()
            while True:
                wait.waiting()
                try:
                    chunk = await chunks.__anext__()
                except StopAsyncIteration:
                    finished = True
                    break
                finally:
                    wait.done_waiting()
                events = await response.feed(chunk)
                if events:
                    yield events
                if signal.aborted or response.ended:  # it copied the prompt, or loops: stop reading
                    break
        except asyncio.CancelledError:
            if not wait.interrupted_here():
                raise
        except Exception as exc:
            error = exc
        finally:
            await _close(stream, finished)
        if error is None:
            break
        switch = await _after_model_error(run, response, error)
        if switch is not None:
            yield switch
    if response.synthetic is not None:
        yield await response.feed_text(response.synthetic)


async def _close(stream: AsyncIterable[LLMChunk], finished: bool) -> None:
    """Close a model stream left before its end (the run was cancelled, or it failed)."""
    aclose = None if finished else getattr(stream, "aclose", None)
    if aclose is not None:
        await aclose()


async def _after_model_error(run: _Run, response: Response, error: Exception) -> Events | None:
    """The model failed: the next fallback model takes the response over (the events that say
    so), or a controller supplies the response (``None``); else ``error`` (or, once no model is
    left, the error naming each one's failure) is raised."""
    if run.models is not None and isinstance(error, ProviderError):
        try:
            plan, hooks = run.models.failed(error)
        except ProviderError as final:  # no model left, or an error that does not move on
            error = final
        else:
            return await _fall_back(run, response, plan, hooks, error)
    response.synthetic = await _after_error(run, error)
    if response.synthetic is None:
        raise error
    response.clear()
    return None


async def _fall_back(run: _Run, response: Response, plan: RunPlan, hooks: RunHooks, error: ProviderError) -> Events:
    """The model failed and ``plan``'s model takes the response over: the event that says so,
    then the results of the calls the failed model had started (they finish, and are not run
    again: the next model's repeat of one gets its result); the response starts over on it."""
    restart = bool(response.raw or response.tool_calls)
    kept = run.calls.keep_started()
    switch = ModelFallbackEvent(
        run.state.iteration,
        run.cfg.model_ref,
        plan.model_ref,
        f"{type(error).__name__}: {error}",
        restart=restart,
        kept_calls=tuple(kept),
    )
    run.state.fallbacks.append(switch)
    it, obs = run.state.iteration, run.hooks.observers
    if obs is not None and obs.on_llm_call_error is not None:
        await call_observer(obs.on_llm_call_error, LLMErrorContext(it, run.cfg.model_name, error))
    events: list[AgentEvent] = [switch]
    while (late := await run.calls.late_result()) is not None:
        events.append(late)
    run.calls.reopen()
    _use_plan(run, plan, hooks)
    response.restart(plan, hooks, run.parser, len(kept))
    obs = hooks.observers
    if obs is not None and obs.on_llm_call_start is not None:
        await call_observer(
            obs.on_llm_call_start, LLMCallContext(it, plan.model_name, run.messages, plan.provider_name)
        )
    return events


def _use_plan(run: _Run, plan: RunPlan, hooks: RunHooks) -> None:
    """Ask ``plan``'s model from now on: its hooks, its parser, and its system prompt at the
    head of the conversation (each model is told about the gadgets in its own syntax), the
    conversation made readable to it (``ModelChoice.adapt``)."""
    if plan is run.cfg:
        return
    was = run.cfg
    was.give_back_parser(run.parser)
    run.parser = plan.take_parser(run.calls.ids)
    run.cfg, run.hooks = plan, hooks
    messages = run.messages
    if messages and messages[0].role == "system":
        messages[0] = plan.system_message
    if run.models is not None:
        run.models.adapt(messages, was, plan)


def _open_stream(run: _Run) -> AsyncIterable[LLMChunk]:
    """The model's stream for the next response (refused inside ``block_real_models()``)."""
    cfg = run.cfg
    check_model_allowed(cfg.provider, cfg.model_name)
    if run.steps is None:
        return cfg.provider.stream(_request(run))
    provider, request = cfg.provider, _request(run)
    return run.steps.response(lambda: provider.stream(request))


def _request(run: _Run) -> LLMRequest:
    """The model request of the next response: the whole conversation so far."""
    settings, cfg = run.spec.model_settings, run.cfg
    cap = settings.max_response_tokens  # "auto": the plan's (the registry's limit, else the default)
    return LLMRequest(
        model=run.cfg.model_name,
        messages=tuple(run.messages),
        max_tokens=cfg.auto_response_cap if cap == "auto" else cap,
        temperature=settings.temperature,
        reasoning=settings.reasoning,
        tools=(*run.cfg.tools, run.cfg.viewer_tool) if run.viewer_taught and run.cfg.viewer_tool else run.cfg.tools,
        grammar=request_grammar(
            settings.constrained, cfg.grammar, cfg.provider, cfg.syntax, cfg.provider_name, strict=run.spec.strict
        ),
    )


async def _after_error(run: _Run, exc: Exception) -> str | None:
    """Observers and the ``after_llm_error`` controller; the fallback response, or ``None`` to rethrow."""
    obs, ctl = run.hooks.observers, run.hooks.controllers
    ctx = LLMErrorContext(run.state.iteration, run.cfg.model_name, exc)
    if obs is not None and obs.on_llm_call_error is not None:
        await call_observer(obs.on_llm_call_error, ctx)
    if ctl is not None and ctl.after_llm_error is not None:
        action = await call_controller(ctl.after_llm_error, ctx)
        if isinstance(action, Recover):
            logger.info("model error recovered by controller: %s", exc)
            return action.response
    return None


async def _response_complete(run: _Run, response: Response) -> None:
    """The ``on_llm_call_complete`` observer (after the consumer saw the response's end); a
    fallback model that answered ends its cooldown."""
    cfg = run.cfg
    if run.models is not None and response.synthetic is None:
        run.models.answered()
    obs = run.hooks.observers
    if obs is None or obs.on_llm_call_complete is None:
        return
    done = LLMCompleteContext(
        run.state.iteration,
        cfg.model_name,
        "".join(response.raw),
        response.usage if response.usage is not None else Usage(),
        response.finish,
        response.cost,
        response.synthetic is not None,
        cfg.provider_name,
    )
    await call_observer(obs.on_llm_call_complete, done)


async def _next_turn(run: _Run, response: Response) -> None:
    """The response and its results join the conversation; the ``on_iteration`` observer; then
    the stop reason (or, for a response without calls, a nudge to go on)."""
    cfg, messages = run.cfg, run.messages
    n_calls = response.n_calls
    text, invented = _without_invented_results(run, response.text(), n_calls)
    native = tuple(response.tool_calls)
    if response.text_calls and cfg.syntax == "native":
        text, native, invented = _as_tool_calls(run, text, native, response.text_calls)
    if run.calls.kept and cfg.syntax == "native":  # calls of a failed model the next did not repeat
        native += tuple(
            ToolCall(r.invocation_id, native_name(r.gadget_name), json.dumps(r.parameters))
            for r in run.calls.kept.values()
        )
    messages.append(AssistantMessage("assistant", text, response.usage, tool_calls=native))
    # Every native call has its result here (the scheduler answers a call it did not run too):
    # providers refuse a conversation with a tool call left unanswered.
    results = run.calls.ordered()
    notes = _after_results(run, response, results, bool(invented)) if results else ""
    last = len(results) - 1
    messages.extend(_result_message(run, r, bool(native), notes if i == last else "") for i, r in enumerate(results))
    if invented:
        detail = f"dropped the result the model wrote itself: {invented[0][:80]!r}"
        if response.invented:
            detail += "; the response ended there"
        await run.calls.note_repair("invented_result", detail)
    run.output = "".join(response.prose).strip()
    await _iteration_done(run, n_calls, run.calls.pending)
    run.stop = _stop_reason(run, n_calls)
    if run.stop is None and n_calls == 0:
        messages.append(Message("user", _NO_CALLS_NUDGE))


def _after_results(run: _Run, response: Response, results: Sequence[GadgetExecutionResult], invented: bool) -> str:
    """What the loop adds after a response's last result ("" for nothing)."""
    next_step = None
    # What to do next, once every call of the response succeeded (after an error, the error
    # says it: Qwen2.5-Coder answered with the error text itself when told to say what the
    # results show). Native tool results stay as the API's models expect them, unless the
    # model wrote its calls as text (a server such as llama.cpp's that returns them so): then
    # it is a text model in all but name, and answered the result with `{}}` or the same calls.
    cfg = run.cfg
    as_text = cfg.syntax != "native" or bool(response.text_calls)
    if as_text and all(r.ok for r in results):
        stored = any(r.result is not None and _VIEWER_NOTICE in r.result for r in results)
        next_step = STORED_OUTPUT_NOTE if stored else next_step_note(cfg.enders, len(results))
    return loop_notes(invented, next_step)


def _as_tool_calls(
    run: _Run, text: str, native: tuple[ToolCall, ...], written: Sequence[ParsedCall]
) -> tuple[str, tuple[ToolCall, ...], list[str]]:
    """Calls the model wrote as JSON text (a server that returns them as text, as llama.cpp's
    does for Qwen), recorded as the real tool calls they stand for, the text without them, and
    the results the model wrote after them (dropped from the text): the model's chat template
    then shows its call and the result as it was trained to see them."""
    names = {r.invocation_id: r.gadget_name for r in run.calls.ordered()}
    calls = tuple(
        ToolCall(c.invocation_id, native_name(names.get(c.invocation_id, c.gadget_name)), c.parameters_raw)
        for c in written
    )
    gadgets = run.cfg.gadgets
    prose, invented = without_json_calls(text, [g.name for g in gadgets], parameters=parameter_names(gadgets))
    return prose, native + calls, invented


def _without_invented_results(run: _Run, text: str, n_calls: int) -> tuple[str, list[str]]:
    """The response text without results the model wrote after its calls, and those results."""
    cfg = run.cfg
    if not n_calls or cfg.syntax == "native":
        return text, []
    if cfg.syntax == "emoji":
        return drop_invented_results(text, EMOJI_START, EMOJI_END)
    return drop_invented_results(text, cfg.markers.start, cfg.markers.end)


def _result_message(run: _Run, r: GadgetExecutionResult, native: bool, notes: str = "") -> GadgetResultMessage:
    """The message the model reads for a call's result (a resumed run's decided calls' too),
    made once with what the loop adds after the result: the repeated-failure note, the output
    viewer's instructions, then ``notes`` (the loop's notes after a response's last result)."""
    added = (_said_again(run, r), _taught(run, r), notes)
    return result_message(r, run.cfg.vision, native=native, notes=[text for text in added if text])


def _said_again(run: _Run, r: GadgetExecutionResult) -> str:
    """:func:`repeated_failure_note` when this call failed with this very error earlier in the
    run, else ""."""
    if r.error is None:
        return ""
    key = (r.gadget_name, r.error)
    if key not in run.failures:
        run.failures.add(key)
        return ""
    m, gadget = run.cfg.markers, run.cfg.by_name.get(r.gadget_name)
    if run.cfg.syntax != "block":
        return repeated_failure_note(r)
    corrected = corrected_params(gadget, r.parameters) if gadget is not None and r.status == "error" else None
    return repeated_failure_note(r, (m.start, m.end, m.arg), corrected, gadget)


def _taught(run: _Run, r: GadgetExecutionResult) -> str:
    """The output viewer's instructions the first time an output was stored for it to read (the
    system prompt and the native tools leave the viewer out until then), else ""."""
    if run.viewer_taught or r.result is None or _VIEWER_NOTICE not in r.result:
        return ""
    run.viewer_taught = True
    run.calls.repairs.hidden.discard(GadgetOutputViewer.name)
    entry = run.cfg.viewer_entry
    return entry or ""


def _stop_reason(run: _Run, n_calls: int) -> StopReason | None:
    """Why the run stops after this iteration, or ``None`` to go on."""
    limits, st = run.spec.limits, run.state
    if run.signal.aborted:
        return "cancelled"
    if run.calls.pending:  # before a completion: a finished task with calls waiting is not finished
        run.pending = run.calls.pending
        return "awaiting_approval"
    if run.calls.completion is not None:
        return "task_complete"
    if n_calls == 0 and limits.stop_on_no_calls:
        return "no_calls"
    if limits.max_cost is not None and st.llm_cost + st.gadget_cost >= limits.max_cost:
        return "budget"
    if limits.max_tokens is not None and st.usage.total_tokens >= limits.max_tokens:
        return "budget"
    if st.iteration >= limits.max_iterations:
        return "max_iterations"
    return None


def _result(run: _Run) -> AgentResult:
    """The :class:`AgentResult` of a finished run (the final message interceptor applied)."""
    completion = run.calls.completion
    final = completion if completion is not None else run.output
    icp = run.hooks.interceptors
    if icp is not None and icp.intercept_final_message is not None:
        final = icp.intercept_final_message(final)
    st = run.state
    assert run.stop is not None
    return AgentResult(
        output=final,
        gadget_results=st.results,
        usage=st.usage,
        llm_cost=st.llm_cost,
        gadget_cost=st.gadget_cost,
        iterations=st.iteration,
        stop_reason=run.stop,
        messages=run.messages,
        repairs=dict(st.repairs),
        models=st.models,
        fallbacks=st.fallbacks,
        pending=list(run.pending),
    )
