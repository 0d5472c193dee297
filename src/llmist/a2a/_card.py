"""The agent card of an llmist agent: its name, description, and each gadget as a skill."""

from __future__ import annotations

from typing import Any

from a2a.types import AgentCapabilities, AgentCard, AgentInterface, AgentSkill

from llmist.agent import Agent

__all__ = ["RPC_PATH", "agent_card"]

RPC_PATH = "/a2a"
"""Where the JSON-RPC endpoint is served. Not ``/``: the web layer's guard leaves ``/`` open (it
is the page there), and an endpoint that runs gadgets must always sit behind the token."""

_DEFAULT_NAME = "llmist agent"


def agent_card(agent: Agent[Any], base_url: str, *, version: str = "1.0.0") -> AgentCard:
    """The card of ``agent``, served from ``base_url`` (``http://host:port``, no trailing slash).

    An agent without a ``description`` is described by its gadgets, so a caller still learns
    what it can do.
    """
    gadgets = list(agent.gadgets)
    description = agent.description or (
        "An llmist agent with the gadgets " + ", ".join(g.name for g in gadgets) + "."
        if gadgets
        else "An llmist agent."
    )
    return AgentCard(
        name=agent.name or _DEFAULT_NAME,
        description=description,
        version=version,
        supported_interfaces=[
            AgentInterface(url=base_url + RPC_PATH, protocol_binding="JSONRPC", protocol_version="1.0")
        ],
        capabilities=AgentCapabilities(streaming=True),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[
            AgentSkill(id=g.name, name=g.name, description=g.description or g.name, tags=["gadget"]) for g in gadgets
        ],
    )
