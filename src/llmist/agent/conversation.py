"""How gadget results go back to the model: one ``gadget_result`` message per call.

Each message names the gadget and the invocation id. Errors say what went wrong and what to
do next, so a model can correct its call in the following response.
"""

from __future__ import annotations

from llmist.agent._run.media import media_content
from llmist.agent.messages import GadgetResultMessage
from llmist.execution import GadgetExecutionResult

__all__ = ["format_result", "not_run_message", "result_message"]


def format_result(r: GadgetExecutionResult) -> str:
    """The text the model reads for one finished, failed or skipped call."""
    head = f"{r.gadget_name} (id {r.invocation_id})"
    if r.error is None:
        return f"Result of {head}:\n{r.result if r.result is not None else ''}"
    return f"Error in {head}:\n{r.error}\nFix the call and send it again, or continue without it."


def result_message(
    r: GadgetExecutionResult, vision: bool | None = None, *, native: bool = False
) -> GadgetResultMessage:
    """``format_result`` as a ``gadget_result`` message that also records the call, with the
    gadget's media (shown as images when ``vision`` is ``True``, else described). ``native``:
    the result answers the native tool call of the invocation id (its ``tool_call_id``)."""
    text = format_result(r)
    content = media_content(text, r.media, vision) if r.media else text
    return GadgetResultMessage(
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
