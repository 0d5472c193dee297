"""llmist: tool calling for any text model.

Models call gadgets by writing plain-text blocks; llmist parses them while the answer
streams, validates them against Pydantic schemas, runs them as a dependency DAG and feeds
the results back until the task is done.
"""

from llmist.execution import (
    BeforeGadgetDecision,
    DependencySkipDecision,
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
    GadgetOutputStore,
    GadgetOutputViewer,
    GadgetResult,
    GadgetTimeoutError,
    HumanInputRequired,
    LlmistError,
    ModelRetry,
    TaskCompletionSignal,
    TestGadgetResult,
    ValidationResult,
    as_gadget,
    create_gadget,
    gadget,
    render_gadget,
    test_gadget,
    validate_gadget_params,
)
from llmist.syntax import (
    ArgsPartialEvent,
    BlockParseError,
    GadgetCallEvent,
    ParsedCall,
    TextEvent,
    parse_block_params,
)

__version__ = "0.1.0"

__all__ = [
    "AbortSignal",
    "ArgsPartialEvent",
    "BeforeGadgetDecision",
    "BlockParseError",
    "DependencySkipDecision",
    "ExecutionContext",
    "Gadget",
    "GadgetCallEvent",
    "GadgetError",
    "GadgetExample",
    "GadgetExecutionResult",
    "GadgetExecutor",
    "GadgetOutputStore",
    "GadgetOutputViewer",
    "GadgetResult",
    "GadgetScheduler",
    "GadgetSkip",
    "GadgetTimeoutError",
    "HumanInputRequired",
    "LlmistError",
    "ModelRetry",
    "ParsedCall",
    "TaskCompletionSignal",
    "TestGadgetResult",
    "TextEvent",
    "ValidationResult",
    "__version__",
    "as_gadget",
    "create_gadget",
    "gadget",
    "parse_block_params",
    "render_gadget",
    "test_gadget",
    "validate_gadget_params",
]
