"""``AgentSpec``: every option of an agent in one frozen value, the snapshot a run starts from.

An :class:`~llmist.agent.Agent` keeps its options in one ``AgentSpec``; each option assigned on
the agent (``agent.hooks = ...``, ``agent.max_iterations = 3``) makes a new one. A run takes the
spec current when it starts and reads nothing else of the agent, so every change applies from
the next run on, the same way for every option, and a run in flight never sees one.

What a run derives from its spec (the provider, the system prompt, the gadgets and the hooks
merged with the features') is its *plan*, built once and cached in :attr:`AgentSpec.plans`
while the options it is built from stay the same (see ``llmist.agent._assemble``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeAlias

from llmist.agent._output import DEFAULT_MAX_OUTPUT_RETRIES, OutputSpec, output_spec
from llmist.agent.compaction import Compaction, CompactionStrategy, as_compaction
from llmist.agent.guardrails import Guardrails
from llmist.agent.hooks import Hooks
from llmist.agent.instrumentation import InstrumentationSettings
from llmist.agent.options import GadgetSettings, ModelSettings, PromptSettings, RunLimits
from llmist.agent.prompt import SyntaxOption
from llmist.agent.sessions import Session
from llmist.gadgets import Gadget
from llmist.models import ModelRegistry
from llmist.providers.base import Provider
from llmist.providers.fallback import FallbackModel

if TYPE_CHECKING:
    from llmist.mcp import MCPServer

__all__ = ["AgentSpec", "ApprovalMode"]

ApprovalMode: TypeAlias = Literal["defer"] | None
"""``Agent(approvals=...)``: ``"defer"`` keeps a call that needs approval waiting in the session
(see :doc:`approvals`); ``None`` leaves approval to the hooks (the CLI's prompt, the web page)."""

_RUN_ONLY = frozenset({"limits", "strict", "instrument", "mcp_servers", "guardrails", "session"})
"""Options a plan is not built from: a spec that differs only in them shares the plans (a run
given its own ``session``, as the web page's are, reuses the agent's plan)."""


class CachedPlan(Protocol):
    """A plan in :attr:`AgentSpec.plans`: a ``llmist.agent._run.plan.RunPlan``. The plan module
    imports this one (a plan is built from a spec), so the spec names its plans by this protocol
    rather than import that module back; ``llmist.agent._assemble``, which builds and reads them,
    sees them as ``RunPlan``."""


@dataclass(frozen=True, slots=True)
class AgentSpec:
    """An agent's options, frozen (made by ``Agent``; read it from ``agent.spec``)."""

    model: str | Provider | tuple[Provider, str]
    """``"mock"``, ``"provider:model"``, an alias, a provider instance (a
    :class:`~llmist.providers.FallbackModel` among them), or a provider and the model name to send it.
    A list of models given becomes their ``FallbackModel``."""
    gadgets: tuple[Gadget, ...] = ()
    """The agent's gadgets (its subagents' among them), compared by identity."""
    syntax: SyntaxOption = "block"
    limits: RunLimits = field(default_factory=RunLimits)
    model_settings: ModelSettings = field(default_factory=ModelSettings)
    prompt_settings: PromptSettings = field(default_factory=PromptSettings)
    gadget_settings: GadgetSettings = field(default_factory=GadgetSettings)
    hooks: Hooks | None = None
    """The agent's own hooks (the features' join them in the plan)."""
    strict: bool = False
    """Repairs of a model's mistakes raise ``RepairRefused`` instead."""
    model_registry: Any = None
    output_type: Any = str
    max_output_retries: int = DEFAULT_MAX_OUTPUT_RETRIES
    output: OutputSpec | None = None
    """The final-answer gadgets of ``output_type`` (``None`` for ``str``); made from it."""
    session: Session | None = None
    approvals: ApprovalMode = None
    """``"defer"``: a call that needs approval waits in the session instead of running."""
    compaction: Compaction | CompactionStrategy | None = None
    mcp_servers: tuple[MCPServer, ...] = ()
    instrument: InstrumentationSettings | bool | None = None
    guardrails: Guardrails | None = None
    """The checks of the run's input, calls, results and output (see :mod:`llmist.agent.guardrails`)."""
    plans: dict[tuple[Gadget, ...], CachedPlan] = field(default_factory=dict, compare=False, repr=False)
    """Plans built from this spec, by the gadgets a run added (an MCP server's tools; ``()`` for
    none). Not part of its value: specs that differ only in options no plan is built from share it."""

    def __post_init__(self) -> None:
        model: object = self.model
        if isinstance(model, (list, tuple)) and not _is_pair(model):  # fallback models
            registry = self.model_registry if isinstance(self.model_registry, ModelRegistry) else None
            object.__setattr__(self, "model", FallbackModel(*model, model_registry=registry))
        if self.syntax not in ("block", "emoji", "native", "auto"):
            raise ValueError(f"syntax must be 'block', 'emoji', 'native' or 'auto', got {self.syntax!r}")
        if self.approvals not in (None, "defer"):
            raise ValueError(f"approvals must be 'defer' or None, got {self.approvals!r}")
        if self.compaction is not None:
            as_compaction(self.compaction)  # a wrong type fails here, not at the first run
        if self.output is None and self.output_type is not str:
            object.__setattr__(self, "output", output_spec(self.output_type, self.max_output_retries))

    def changed(self, **changes: Any) -> AgentSpec:
        """This spec with ``changes`` (field name -> value); it shares this one's plans when no
        change touches what a plan is built from."""
        shares = all(
            name in _RUN_ONLY
            or (name == "model_settings" and value.context_window == self.model_settings.context_window)
            for name, value in changes.items()
        )
        if "output_type" in changes or "max_output_retries" in changes:
            changes["output"] = None  # made again from the new type
        return dataclasses.replace(self, **changes, plans=self.plans if shares else {})


def _is_pair(model: Sequence[object]) -> bool:
    """``(provider, "model name")``: one model, not a list of two."""
    return isinstance(model, tuple) and len(model) == 2 and not isinstance(model[0], str) and isinstance(model[1], str)
