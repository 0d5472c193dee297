"""How gadget results go back to the model: one ``gadget_result`` message per call.

Each message names the gadget and the invocation id. Errors say what went wrong and what to
do next, so a model can correct its call in the following response.
"""

from __future__ import annotations

from llmist.agent._media import media_content
from llmist.execution import GadgetExecutionResult
from llmist.providers.base import Message

__all__ = ["format_result", "not_run_message", "result_message"]


def format_result(r: GadgetExecutionResult) -> str:
    """The text the model reads for one finished, failed or skipped call."""
    head = f"{r.gadget_name} (id {r.invocation_id})"
    if r.error is None:
        return f"Result of {head}:\n{r.result if r.result is not None else ''}"
    return f"Error in {head}:\n{r.error}\nFix the call and send it again, or continue without it."


def result_message(r: GadgetExecutionResult, vision: bool | None = None) -> Message:
    """``format_result`` as a ``gadget_result`` message, with the gadget's media (shown as images
    when ``vision`` is ``True``, else described)."""
    if r.media:
        return Message("gadget_result", media_content(format_result(r), r.media, vision))
    return Message("gadget_result", format_result(r))


def not_run_message(limit: int) -> str:
    """Error text of a call beyond ``max_gadgets_per_response``."""
    return (
        f"Not run: a response may make at most {limit} gadget calls and this call came after that. "
        "Send it again in your next response if you still need it."
    )
