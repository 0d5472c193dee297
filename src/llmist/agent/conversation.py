"""How gadget results go back to the model: one ``gadget_result`` message per call.

Each message names the gadget and the invocation id. Errors say what went wrong and what to
do next, so a model can correct its call in the following response.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from llmist.agent._run.media import media_content, with_text
from llmist.agent.messages import GadgetResultMessage, build_result_message
from llmist.agent.repairs import INVENTED_RESULT_NOTE, NEXT_STEP_NOTES, STORED_OUTPUT_NOTE
from llmist.execution import GadgetExecutionResult
from llmist.execution.names import UNKNOWN_GADGET
from llmist.gadgets import Gadget, render_call
from llmist.syntax.writing import write_block_call

__all__ = [
    "cut_off_message",
    "format_result",
    "loop_notes",
    "looped_call_message",
    "not_run_message",
    "repeated_failure_note",
    "result_message",
    "result_text",
]


def format_result(r: GadgetExecutionResult) -> str:
    """The text the model reads for one finished, failed or skipped call."""
    head = f"{r.gadget_name} (id {r.invocation_id})"
    if r.error is None:
        return f"Result of {head}:\n{r.result if r.result is not None else ''}"
    if r.error.startswith(UNKNOWN_GADGET):  # its text says what to do instead: no call to send again
        return f"Error in {head}:\n{r.error}"
    return f"Error in {head}:\n{r.error}\nSend the call again, changed where the error says what was wrong."


def loop_notes(invented: bool, next_step: str | None) -> str:
    """What the loop adds after a response's last result ("" for nothing): that the result the
    model wrote itself was dropped (``invented``), then what to do next (``next_step``: one of
    :data:`NEXT_STEP_NOTES`, or :data:`STORED_OUTPUT_NOTE` when an output was stored)."""
    return "\n".join([*([INVENTED_RESULT_NOTE] if invented else []), *([next_step] if next_step else [])])


_NEXT = f"(?:{NEXT_STEP_NOTES.pattern}|{re.escape(STORED_OUTPUT_NOTE)})"
_LOOP_NOTES = re.compile(rf"\n\n(?:{re.escape(INVENTED_RESULT_NOTE)}(?:\n{_NEXT})?|{_NEXT})\Z")
"""Every text :func:`loop_notes` gives, as it follows a result (for :func:`result_text`)."""


def result_text(message: GadgetResultMessage) -> str:
    """A ``gadget_result`` message's result (or error) as the gadget gave it: without the line
    naming the call and the notes the loop adds for the model after a response's last result.
    What a scripted test model reads (``result_text(messages[-1])``), and what the web page shows."""
    text = message.text
    notes = _LOOP_NOTES.search(text)
    if notes is not None:
        text = text[: notes.start()]
    head, sep, rest = text.partition("\n")
    return rest if sep and head.startswith(("Result of ", "Error in ")) else text


def result_message(
    r: GadgetExecutionResult, vision: bool | None = None, *, native: bool = False, notes: Sequence[str] = ()
) -> GadgetResultMessage:
    """``format_result`` as a ``gadget_result`` message that also records the call, with the
    gadget's media (shown as images when ``vision`` is ``True``, else described). ``native``:
    the result answers the native tool call of the invocation id (its ``tool_call_id``).
    ``notes``: texts that follow the result, each after a blank line."""
    text = format_result(r)
    content = media_content(text, r.media, vision) if r.media else text
    for note in notes:
        content = with_text(content, note)
    return build_result_message(
        "gadget_result",
        content,
        r.gadget_name,
        r.invocation_id,
        r.parameters,
        r.error is not None,
        tool_call_id=r.invocation_id if native else None,
    )


def not_run_message(limit: int) -> str:
    """Error text of a call beyond ``max_gadgets_per_response``."""
    return (
        f"Not run: a response may make at most {limit} gadget calls and this call came after that. "
        "Send it again in your next response if you still need it."
    )


def cut_off_message(gadget_name: str) -> str:
    """Error text of a call the response's token limit cut off before its end: not run."""
    return (
        f"Not run: your response reached its length limit inside this {gadget_name} call, before the "
        "call's end, so its last value may be cut short. Send the call again, complete; if it is long "
        "(a whole file's content), split the work into smaller calls."
    )


def looped_call_message(gadget_name: str, found: str) -> str:
    """Error text of a call inside which the response went on repeating itself, so that the
    degeneration watch ended it there (``found`` says what repeated): not run."""
    return (
        f"Not run: inside this {gadget_name} call your response went on repeating itself ({found}), so it "
        "was ended there, before the call's end. Send the call again, with each value written once."
    )


def repeated_failure_note(
    r: GadgetExecutionResult,
    block_markers: tuple[str, str, str] | None = None,
    corrected: Mapping[str, Any] | None = None,
    gadget: Gadget | None = None,
) -> str:
    """What a failed call's message adds when the run already had this call fail with this very
    error: the same answer twice taught Qwen2.5-Coder nothing (it sent the same call six times).
    With ``block_markers`` (start, end, arg: the block syntax), the call as llmist read it, and
    the ``corrected`` parameters (:func:`~llmist.gadgets.binding.corrected_params`) as a block
    that runs. With ``gadget``, both are written as :func:`~llmist.gadgets.render_call` writes
    a call (a list of plain values as one line of JSON, as the prompt teaches)."""
    note = (
        "This call already failed with this same error. Sent again unchanged, it fails again: "
        "change what the error names, or answer without this gadget."
    )
    if block_markers is None or not r.parameters:
        # Nothing read: the error above shows the call rewritten with the model's own values
        # (an empty block here taught Qwen2.5-Coder nothing: it sent the same call six times).
        return note
    try:
        read = _written(r, r.parameters, block_markers, gadget)
        fixed = None if corrected is None else _written(r, corrected, block_markers, gadget)
    except (TypeError, ValueError):  # parameters no block can hold: the note alone
        return note
    if fixed is None:
        return f"{note}\nllmist read your call as:\n{read}"
    return f"{note}\nllmist read your call as:\n{read}\nWith what it could not read left out, this call runs:\n{fixed}"


def _written(
    r: GadgetExecutionResult, params: Mapping[str, Any], markers: tuple[str, str, str], gadget: Gadget | None
) -> str:
    """``params`` as a block call of ``r``'s gadget: as :func:`~llmist.gadgets.render_call` writes
    it when the gadget is known, else every value at its path (a gadget the model made up)."""
    start, end, arg = markers
    if gadget is None:
        return write_block_call(r.gadget_name, params, start_prefix=start, end_prefix=end, arg_prefix=arg)
    return render_call(gadget, params, "block", start_prefix=start, end_prefix=end, arg_prefix=arg)
