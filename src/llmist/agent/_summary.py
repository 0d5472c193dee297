"""The model call of the summarising compaction strategy."""

from __future__ import annotations

from llmist.agent._config import default_registry, pricer
from llmist.agent._models import resolve_agent_model
from llmist.agent.compaction import CompactionRequest
from llmist.agent.guard import check_model_allowed
from llmist.agent.messages import CompactionSummary
from llmist.providers.base import LLMRequest, Message, Provider, Usage, complete

__all__ = ["summarise"]

SUMMARY_SYSTEM = (
    "You summarise the earlier part of a conversation between a user, an AI assistant and the tools "
    "(gadgets) it called, so that the assistant can continue the task from the summary alone. Keep "
    "facts, decisions, results of tool calls, open questions and what remains to be done. Be concise."
)


async def summarise(
    model: str | Provider | None,
    request: CompactionRequest,
    summary: CompactionSummary | None,
    turns: list[list[Message]],
    max_tokens: int,
) -> tuple[str, Usage, float]:
    """``(summary text, usage, USD)`` of ``turns`` (and the earlier ``summary``) written by
    ``model`` (``None``: the agent's)."""
    if model is None:
        provider, name = request.provider, request.model_name
    else:
        provider, name = resolve_agent_model(model, request.registry)
    check_model_allowed(provider, name)
    transcript = "\n\n".join(f"[{m.role}]\n{m.text}" for turn in turns for m in turn)
    prior = f"Summary of what came before:\n{summary.text}\n\n" if summary is not None else ""
    prompt = f"{prior}Conversation to summarise:\n\n{transcript}"
    messages = (Message("system", SUMMARY_SYSTEM), Message("user", prompt))
    response = await complete(provider, LLMRequest(name, messages, max_tokens))
    cost = pricer(default_registry(request.registry, provider), provider, name)(response.usage)
    return response.text.strip(), response.usage, cost
