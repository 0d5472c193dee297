"""The agent loop: ``Agent``, its option groups, the ``LLMist.create_agent()`` builder, events,
hooks, presets and the features (typed output, sessions, deferred approvals, compaction,
subagents, tracing).

Public modules sit at the top of the package; the run machinery is in ``_run`` (the plan, the
loop), the features in ``_features``, and ``_assemble`` puts a run together from both.
"""

from typing import TYPE_CHECKING, Any

from llmist.agent._run.media import UserPrompt
from llmist.agent.agent import Agent, RunOptions
from llmist.agent.approvals import Decision, PendingCall
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
from llmist.agent.errors import (
    AlreadyDecidedError,
    ApprovalConflictError,
    ApprovalError,
    ApprovalsPendingError,
    GuardrailTripped,
    InvalidDecisionError,
    MessageFormatError,
    OutputValidationError,
    RealModelRequestBlocked,
    RepairRefused,
    SessionConflictError,
    SessionError,
    UnknownApprovalError,
)
from llmist.agent.events import (
    AgentEvent,
    GadgetPendingEvent,
    GadgetResultEvent,
    GadgetSkippedEvent,
    GuardrailEvent,
    LLMResponseEndEvent,
    ModelFallbackEvent,
    ReasoningEvent,
    SubagentEvent,
)
from llmist.agent.guardrails import Guardrails
from llmist.agent.hooks import (
    ChunkContext,
    CompactionContext,
    Controllers,
    DeferGadget,
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
    RepairEvent,
    ReplaceMessages,
    ReplaceParameters,
    ReplaceResult,
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
    dumps_messages,
    loads_messages,
    messages_from_json,
    messages_to_json,
)
from llmist.agent.options import GadgetSettings, HumanInputHandler, ModelSettings, PromptSettings, RunLimits
from llmist.agent.presets import HookPresets, Progress
from llmist.agent.prompt import Markers, PromptStyle, Syntax, SyntaxOption, estimate_prompt_tokens, render_system_prompt
from llmist.agent.repairs import RepairKind
from llmist.agent.result import AgentResult, StopReason
from llmist.agent.sessions import ApprovalStore, Session, SQLiteSession
from llmist.agent.sessions._store_retry import SessionRetry
from llmist.agent.spec import AgentSpec, ApprovalMode
from llmist.agent.stream import AgentStream
from llmist.agent.subagents import DEFAULT_MAX_DEPTH, SubagentGadget, SubagentParams

if TYPE_CHECKING:
    from llmist.agent.sessions.sqlalchemy_session import SQLAlchemySession

__all__ = [
    "DEFAULT_MAX_DEPTH",
    "Agent",
    "AgentBuilder",
    "AgentEvent",
    "AgentResult",
    "AgentSpec",
    "AgentStream",
    "AlreadyDecidedError",
    "ApprovalConflictError",
    "ApprovalError",
    "ApprovalMode",
    "ApprovalStore",
    "ApprovalsPendingError",
    "AssistantMessage",
    "ChunkContext",
    "Compacted",
    "Compaction",
    "CompactionContext",
    "CompactionRequest",
    "CompactionStrategy",
    "CompactionSummary",
    "Controllers",
    "Decision",
    "DeferGadget",
    "GadgetContext",
    "GadgetPendingEvent",
    "GadgetResultEvent",
    "GadgetResultMessage",
    "GadgetSettings",
    "GadgetSkippedEvent",
    "GuardrailEvent",
    "GuardrailTripped",
    "Guardrails",
    "HookPresets",
    "Hooks",
    "HumanInputHandler",
    "InstrumentationSettings",
    "Interceptors",
    "InvalidDecisionError",
    "IterationContext",
    "LLMCallContext",
    "LLMCompleteContext",
    "LLMErrorContext",
    "LLMResponseEndEvent",
    "LLMist",
    "Markers",
    "MessageFormatError",
    "ModelFallbackEvent",
    "ModelSettings",
    "Observers",
    "OutputValidationError",
    "PendingCall",
    "Proceed",
    "Progress",
    "PromptSettings",
    "PromptStyle",
    "RealModelRequestBlocked",
    "ReasoningEvent",
    "Recover",
    "RepairEvent",
    "RepairKind",
    "RepairRefused",
    "ReplaceMessages",
    "ReplaceParameters",
    "ReplaceResult",
    "Rethrow",
    "RunLimits",
    "RunOptions",
    "SQLAlchemySession",
    "SQLiteSession",
    "Session",
    "SessionConflictError",
    "SessionError",
    "SessionRetry",
    "SkipGadget",
    "SkipLLMCall",
    "SlidingWindow",
    "StopReason",
    "SubagentEvent",
    "SubagentGadget",
    "SubagentParams",
    "Summarize",
    "Syntax",
    "SyntaxOption",
    "UnknownApprovalError",
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


def __getattr__(name: str) -> Any:
    """``SQLAlchemySession`` is imported when first asked for: it needs the postgres extra
    (without it, an ``ImportError`` says which to install)."""
    if name == "SQLAlchemySession":
        try:
            from llmist.agent.sessions.sqlalchemy_session import SQLAlchemySession
        except ModuleNotFoundError as exc:
            if not (exc.name or "").startswith("sqlalchemy"):
                raise
            from llmist._install import install_command

            raise ImportError(
                f"SQLAlchemySession needs SQLAlchemy, which is not installed. Install it with:\n"
                f"    {install_command('postgres')}"
            ) from exc
        return SQLAlchemySession
    raise AttributeError(f"module 'llmist.agent' has no attribute {name!r}")
