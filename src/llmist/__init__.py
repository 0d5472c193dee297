"""llmist: tool calling for any text model.

Models call gadgets by writing plain-text blocks; llmist parses them while the answer
streams, validates them against Pydantic schemas, runs them as a dependency DAG and feeds
the results back until the task is done.
"""

from typing import TYPE_CHECKING, Any

from llmist.agent import (
    Agent,
    AgentBuilder,
    AgentEvent,
    AgentResult,
    AgentSpec,
    AgentStream,
    Compaction,
    Controllers,
    Decision,
    GadgetPendingEvent,
    GadgetResultEvent,
    GadgetSettings,
    GadgetSkippedEvent,
    HookPresets,
    Hooks,
    InstrumentationSettings,
    Interceptors,
    LLMist,
    LLMResponseEndEvent,
    ModelSettings,
    Observers,
    OutputValidationError,
    PendingCall,
    Proceed,
    PromptSettings,
    ReasoningEvent,
    Recover,
    RepairRefused,
    ReplaceParameters,
    ReplaceResult,
    Rethrow,
    RunLimits,
    Session,
    SkipGadget,
    SkipLLMCall,
    SlidingWindow,
    SQLiteSession,
    SubagentEvent,
    Summarize,
    instrument,
    merge_hooks,
)
from llmist.execution import (
    BeforeGadgetDecision,
    DependencySkipDecision,
    DependencySkipInfo,
    GadgetExecutionResult,
    GadgetExecutor,
    GadgetScheduler,
    GadgetSkip,
)
from llmist.gadgets import (
    AbortSignal,
    ExecutionContext,
    Gadget,
    GadgetError,
    GadgetExample,
    GadgetMedia,
    GadgetOutputStore,
    GadgetOutputViewer,
    GadgetResult,
    GadgetTimeoutError,
    HumanInputRequired,
    LlmistError,
    ModelRetry,
    TaskCompletionSignal,
    ValidationResult,
    as_gadget,
    create_gadget,
    gadget,
    render_gadget,
    validate_gadget_params,
)
from llmist.providers.base import ImagePart, Reasoning
from llmist.providers.errors import ImagesNotSupportedError
from llmist.syntax import (
    ArgsPartialEvent,
    BlockParseError,
    GadgetCallEvent,
    ParsedCall,
    TextEvent,
    parse_block_params,
)
from llmist.testing.isolated import TestGadgetResult, test_gadget

if TYPE_CHECKING:
    from llmist.agent.sqlalchemy_session import SQLAlchemySession

__version__ = "0.1.0"

__all__ = [
    "AbortSignal",
    "Agent",
    "AgentBuilder",
    "AgentEvent",
    "AgentResult",
    "AgentSpec",
    "AgentStream",
    "ArgsPartialEvent",
    "BeforeGadgetDecision",
    "BlockParseError",
    "Compaction",
    "Controllers",
    "Decision",
    "DependencySkipDecision",
    "DependencySkipInfo",
    "ExecutionContext",
    "Gadget",
    "GadgetCallEvent",
    "GadgetError",
    "GadgetExample",
    "GadgetExecutionResult",
    "GadgetExecutor",
    "GadgetMedia",
    "GadgetOutputStore",
    "GadgetOutputViewer",
    "GadgetPendingEvent",
    "GadgetResult",
    "GadgetResultEvent",
    "GadgetScheduler",
    "GadgetSettings",
    "GadgetSkip",
    "GadgetSkippedEvent",
    "GadgetTimeoutError",
    "HookPresets",
    "Hooks",
    "HumanInputRequired",
    "ImagePart",
    "ImagesNotSupportedError",
    "InstrumentationSettings",
    "Interceptors",
    "LLMResponseEndEvent",
    "LLMist",
    "LlmistError",
    "ModelRetry",
    "ModelSettings",
    "Observers",
    "OutputValidationError",
    "ParsedCall",
    "PendingCall",
    "Proceed",
    "PromptSettings",
    "Reasoning",
    "ReasoningEvent",
    "Recover",
    "RepairRefused",
    "ReplaceParameters",
    "ReplaceResult",
    "Rethrow",
    "RunLimits",
    "SQLAlchemySession",
    "SQLiteSession",
    "Session",
    "SkipGadget",
    "SkipLLMCall",
    "SlidingWindow",
    "SubagentEvent",
    "Summarize",
    "TaskCompletionSignal",
    "TestGadgetResult",
    "TextEvent",
    "ValidationResult",
    "__version__",
    "as_gadget",
    "create_gadget",
    "gadget",
    "instrument",
    "merge_hooks",
    "parse_block_params",
    "render_gadget",
    "test_gadget",
    "validate_gadget_params",
]


def __getattr__(name: str) -> Any:
    """``SQLAlchemySession`` is imported when first asked for, as from :mod:`llmist.agent`: it
    needs the postgres extra, and ``import llmist`` stays light without it."""
    if name == "SQLAlchemySession":
        from llmist.agent import SQLAlchemySession

        return SQLAlchemySession
    raise AttributeError(f"module 'llmist' has no attribute {name!r}")
