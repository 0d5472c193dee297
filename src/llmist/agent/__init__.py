"""The agent loop: ``Agent``, the ``LLMist.create_agent()`` builder, events, hooks and presets."""

from llmist.agent._output import OutputValidationError
from llmist.agent.agent import Agent, AgentStream, HumanInputHandler
from llmist.agent.builder import AgentBuilder
from llmist.agent.client import LLMist
from llmist.agent.events import AgentEvent, GadgetResultEvent, GadgetSkippedEvent, LLMResponseEndEvent
from llmist.agent.guard import RealModelRequestBlocked
from llmist.agent.hooks import (
    ChunkContext,
    Controllers,
    GadgetContext,
    Hooks,
    Interceptors,
    IterationContext,
    LLMCallContext,
    LLMCompleteContext,
    LLMErrorContext,
    Observers,
    Proceed,
    Recover,
    Rethrow,
    SkipGadget,
    SkipLLMCall,
    merge_hooks,
)
from llmist.agent.instrumentation import InstrumentationSettings, instrument
from llmist.agent.presets import HookPresets, Progress
from llmist.agent.prompt import Markers, PromptStyle, Syntax, estimate_prompt_tokens, render_system_prompt
from llmist.agent.repairs import RepairEvent, RepairKind, RepairRefused
from llmist.agent.result import AgentResult, StopReason

__all__ = [
    "Agent",
    "AgentBuilder",
    "AgentEvent",
    "AgentResult",
    "AgentStream",
    "ChunkContext",
    "Controllers",
    "GadgetContext",
    "GadgetResultEvent",
    "GadgetSkippedEvent",
    "HookPresets",
    "Hooks",
    "HumanInputHandler",
    "InstrumentationSettings",
    "Interceptors",
    "IterationContext",
    "LLMCallContext",
    "LLMCompleteContext",
    "LLMErrorContext",
    "LLMResponseEndEvent",
    "LLMist",
    "Markers",
    "Observers",
    "OutputValidationError",
    "Proceed",
    "Progress",
    "PromptStyle",
    "RealModelRequestBlocked",
    "Recover",
    "RepairEvent",
    "RepairKind",
    "RepairRefused",
    "Rethrow",
    "SkipGadget",
    "SkipLLMCall",
    "StopReason",
    "Syntax",
    "estimate_prompt_tokens",
    "instrument",
    "merge_hooks",
    "render_system_prompt",
]
