"""A stored conversation as AG-UI messages, so a reloaded page (or a restarted server) shows it.

The session keeps what the model read and wrote: user prompts, responses whose text holds the
call blocks as written, and one ``gadget_result`` message per call. Each response is parsed
again with the agent's syntax, so its prose and its calls come back in order: prose becomes an
assistant message, each group of calls an assistant message with ``toolCalls``, and each result
a tool message. A call is matched to its result by invocation id, else by gadget name in order
(a call without an explicit id gets a fresh id each time it is parsed). The calls the session
keeps waiting for approval are matched to the last response's calls that have no result the
same way; their records say so (``awaiting_approval``, with the reason and the thread to post
the decision to; ``queued`` once decided; ``waiting`` for one that runs after another).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Sequence
from typing import Any

from ag_ui.core import (
    AssistantMessage as AguiAssistant,
)
from ag_ui.core import (
    DataSource,
    FunctionCall,
    ImagePart,
    TextPart,
    ToolCall,
    ToolMessage,
    UserMessage,
)

from llmist.agent import AssistantMessage, CompactionSummary, GadgetResultMessage, Markers, PendingCall
from llmist.agent.conversation import result_text
from llmist.providers.base import ImagePart as LlmistImage
from llmist.providers.base import Message
from llmist.syntax import EmojiCallParser, GadgetCallEvent, GadgetCallParser, ParsedCall, TextEvent

__all__ = ["conversation_view"]


def conversation_view(
    messages: Sequence[Message],
    syntax: str,
    markers: Markers,
    waiting: Sequence[PendingCall] = (),
    thread_id: str = "",
) -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]]]:
    """The AG-UI messages (JSON, camelCase) of ``messages`` and the state record of each call
    (``waiting``: the calls the session keeps waiting, in the conversation ``thread_id``)."""
    out: list[Any] = []
    calls: dict[str, dict[str, Any]] = {}
    i = 0
    while i < len(messages):
        m = messages[i]
        i += 1
        if m.role == "system":
            continue
        if isinstance(m, GadgetResultMessage):  # a result whose call was not found: shown alone
            out += _orphan(m, len(out), calls)
        elif isinstance(m, AssistantMessage) or m.role == "assistant":
            results: list[GadgetResultMessage] = []
            while i < len(messages) and isinstance(messages[i], GadgetResultMessage):
                results.append(messages[i])  # type: ignore[arg-type]
                i += 1
            out += _response(m, results, syntax, markers, len(out), calls)
        else:
            name = "compaction summary" if isinstance(m, CompactionSummary) else None
            out.append(UserMessage(id=f"h{len(out)}", content=_user_content(m), name=name))
    if waiting:
        _mark_waiting(calls, waiting, thread_id)
    return [o.model_dump(mode="json", by_alias=True, exclude_none=True) for o in out], calls


def _mark_waiting(calls: dict[str, dict[str, Any]], waiting: Sequence[PendingCall], thread_id: str) -> None:
    """Give the calls that wait their records: those of the stored calls without a result
    (``cancelled`` so far), matched by invocation id, else by gadget in order."""
    open_ids = [iid for iid, record in calls.items() if record["status"] == "cancelled"]
    for call in waiting:
        iid = call.invocation_id if call.invocation_id in open_ids else None
        if iid is None:
            iid = next((i for i in open_ids if calls[i]["gadget"] == call.gadget_name), None)
        if iid is None:
            continue
        open_ids.remove(iid)
        record = calls.pop(iid)
        if call.waits_for is not None:
            record.update(status="waiting")
        elif call.decision is None:
            record.update(
                status="awaiting_approval", parameters=call.parameters, reason=call.reason, threadId=thread_id
            )
        else:
            record.update(status="queued", decision=call.decision.action)
        calls[call.invocation_id] = record


def _user_content(m: Message) -> Any:
    if isinstance(m.content, str):
        return m.content
    parts: list[Any] = []
    for p in m.content:
        if isinstance(p, LlmistImage) and p.data:
            data = base64.b64encode(p.data).decode("ascii")
            parts.append(ImagePart(source=DataSource(value=data, mime_type=p.media_type)))
        elif isinstance(p, LlmistImage) and p.url:
            parts.append(TextPart(text=f"[image: {p.url}]"))
        else:
            parts.append(TextPart(text=getattr(p, "text", "")))
    return parts


def _segments(m: Message, syntax: str, markers: Markers) -> list[str | ParsedCall]:
    """The response's prose and calls, in the order the model wrote them."""
    text = m.text
    if syntax == "native" or not text:
        out: list[str | ParsedCall] = [text] if text else []
        return out + [ParsedCall(c.name, c.id, c.arguments, None, None, (), syntax="native") for c in m.tool_calls]
    parser: GadgetCallParser | EmojiCallParser = (
        EmojiCallParser() if syntax == "emoji" else GadgetCallParser(markers.start, markers.end, markers.arg)
    )
    segments: list[str | ParsedCall] = []
    for event in [*parser.feed(text), *parser.finalize()]:
        if isinstance(event, TextEvent):
            if segments and isinstance(segments[-1], str):
                segments[-1] += event.content
            else:
                segments.append(event.content)
        elif isinstance(event, GadgetCallEvent):
            segments.append(event.call)
    return segments


def _response(
    m: Message,
    results: list[GadgetResultMessage],
    syntax: str,
    markers: Markers,
    n: int,
    calls: dict[str, dict[str, Any]],
) -> list[Any]:
    out: list[Any] = []
    unused = list(results)
    group: list[tuple[ParsedCall, GadgetResultMessage | None]] = []

    def flush() -> None:
        if group:
            out.extend(_calls_message(group, n + len(out), calls))
            group.clear()

    for seg in _segments(m, syntax, markers):
        if isinstance(seg, str):
            if seg.strip():
                flush()
                out.append(AguiAssistant(id=f"h{n + len(out)}", content=seg))
            continue
        group.append((seg, _take(unused, seg)))
    flush()
    for r in unused:
        out += _orphan(r, n + len(out), calls)
    return out


def _take(results: list[GadgetResultMessage], call: ParsedCall) -> GadgetResultMessage | None:
    """The result of ``call`` (removed from ``results``): same id, else the first of its gadget."""
    found = next((r for r in results if r.invocation_id == call.invocation_id), None)
    if found is None:
        found = next((r for r in results if r.gadget_name == call.gadget_name), None)
    if found is not None:
        results.remove(found)
    return found


def _calls_message(
    group: list[tuple[ParsedCall, GadgetResultMessage | None]], n: int, calls: dict[str, dict[str, Any]]
) -> list[Any]:
    tool_calls: list[ToolCall] = []
    answers: list[Any] = []
    for call, result in group:
        iid = result.invocation_id if result is not None else call.invocation_id
        params = result.parameters if result is not None and result.parameters is not None else call.parameters
        arguments = json.dumps(params if params is not None else {}, ensure_ascii=False, default=str)
        tool_calls.append(ToolCall(id=iid, function=FunctionCall(name=call.gadget_name, arguments=arguments)))
        status = "cancelled" if result is None else ("failed" if result.is_error else "done")
        calls[iid] = {"gadget": call.gadget_name, "status": status, "dependencies": list(call.dependencies)}
        if result is not None:
            answers.append(ToolMessage(id=f"h{n}-{iid}", tool_call_id=iid, content=result_text(result)))
    return [AguiAssistant(id=f"h{n}", tool_calls=tool_calls), *answers]


def _orphan(r: GadgetResultMessage, n: int, calls: dict[str, dict[str, Any]]) -> list[Any]:
    call = ParsedCall(r.gadget_name, r.invocation_id, "", r.parameters, None, ())
    return _calls_message([(call, r)], n, calls)
