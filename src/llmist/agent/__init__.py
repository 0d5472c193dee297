"""The agent loop: ``Agent``, the ``LLMist.create_agent()`` builder, events, hooks and presets."""

from llmist.agent._media import UserPrompt
from llmist.agent._output import OutputValidationError
from llmist.agent.agent import Agent, AgentStream, HumanInputHandler
from llmist.agent.builder import AgentBuilder
from llmist.agent.client import LLMist
from llmist.agent.compaction import (
    Compacted,
    Compaction,
    CompactionRequest,
    CompactionStrategy,
    SlidingWindow,
    Summarize,
    count_tokens,
    split_turns,
)
from llmist.agent.events import (
    AgentEvent,
    GadgetResultEvent,
    GadgetSkippedEvent,
    LLMResponseEndEvent,
    ReasoningEvent,
    SubagentEvent,
)
from llmist.agent.guard import RealModelRequestBlocked
from llmist.agent.hooks import (
    ChunkContext,
    CompactionContext,
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
    ReplaceMessages,
    Rethrow,
    SkipGadget,
    SkipLLMCall,
    merge_hooks,
)
from llmist.agent.instrumentation import InstrumentationSettings, instrument
from llmist.agent.messages import (
    AssistantMessage,
    CompactionSummary,
    GadgetResultMessage,
    MessageFormatError,
    dumps_messages,
    loads_messages,
    messages_from_json,
    messages_to_json,
)
from llmist.agent.presets import HookPresets, Progress
from llmist.agent.prompt import Markers, PromptStyle, Syntax, estimate_prompt_tokens, render_system_prompt
from llmist.agent.repairs import RepairEvent, RepairKind, RepairRefused
from llmist.agent.result import AgentResult, StopReason
from llmist.agent.sessions import Session, SessionError, SQLiteSession
from llmist.agent.subagents import DEFAULT_MAX_DEPTH, SubagentGadget, SubagentParams

__all__ = [
    "DEFAULT_MAX_DEPTH",
    "Agent",
    "AgentBuilder",
    "AgentEvent",
    "AgentResult",
    "AgentStream",
    "AssistantMessage",
    "ChunkContext",
    "Compacted",
    "Compaction",
    "CompactionContext",
    "CompactionRequest",
    "CompactionStrategy",
    "CompactionSummary",
    "Controllers",
    "GadgetContext",
    "GadgetResultEvent",
    "GadgetResultMessage",
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
    "MessageFormatError",
    "Observers",
    "OutputValidationError",
    "Proceed",
    "Progress",
    "PromptStyle",
    "RealModelRequestBlocked",
    "ReasoningEvent",
    "Recover",
    "RepairEvent",
    "RepairKind",
    "RepairRefused",
    "ReplaceMessages",
    "Rethrow",
    "SQLiteSession",
    "Session",
    "SessionError",
    "SkipGadget",
    "SkipLLMCall",
    "SlidingWindow",
    "StopReason",
    "SubagentEvent",
    "SubagentGadget",
    "SubagentParams",
    "Summarize",
    "Syntax",
    "UserPrompt",
    "count_tokens",
    "dumps_messages",
    "estimate_prompt_tokens",
    "instrument",
    "loads_messages",
    "merge_hooks",
    "messages_from_json",
    "messages_to_json",
    "render_system_prompt",
    "split_turns",
]
