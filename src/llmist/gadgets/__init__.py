"""What a tool is: ``Gadget``, ``@gadget``, ``create_gadget``, validation, rendering, output limiting."""

from llmist.gadgets.approval import approval_reason, may_need_approval
from llmist.gadgets.base import (
    DEFAULT_MAX_PARAMETER_CHARS,
    ApprovalRule,
    Gadget,
    GadgetExample,
    GadgetResult,
    NoParams,
)
from llmist.gadgets.context import ExecutionContext, ModelClient
from llmist.gadgets.errors import (
    GadgetAbortedError,
    GadgetError,
    GadgetSignal,
    GadgetTimeoutError,
    HumanInputRequired,
    LlmistError,
    ModelRetry,
    TaskCompletionSignal,
    UntypedParameterWarning,
)
from llmist.gadgets.function import FunctionGadget, as_gadget, create_gadget, gadget
from llmist.gadgets.gadget_logger import TRACE, GadgetLogger
from llmist.gadgets.media import GadgetMedia, MediaKind
from llmist.gadgets.output_store import DEFAULT_OUTPUT_LIMIT_PERCENT, GadgetOutputStore, output_char_limit
from llmist.gadgets.output_viewer import GadgetOutputViewer
from llmist.gadgets.rendering import CallSyntax, render_call, render_gadget, render_parameters
from llmist.gadgets.samples import sample_params
from llmist.gadgets.signal import AbortSignal
from llmist.gadgets.validation import (
    InvalidParametersError,
    ValidationResult,
    bind_call,
    validate_gadget_params,
    validate_params,
)

__all__ = [
    "DEFAULT_MAX_PARAMETER_CHARS",
    "DEFAULT_OUTPUT_LIMIT_PERCENT",
    "TRACE",
    "AbortSignal",
    "ApprovalRule",
    "CallSyntax",
    "ExecutionContext",
    "FunctionGadget",
    "Gadget",
    "GadgetAbortedError",
    "GadgetError",
    "GadgetExample",
    "GadgetLogger",
    "GadgetMedia",
    "GadgetOutputStore",
    "GadgetOutputViewer",
    "GadgetResult",
    "GadgetSignal",
    "GadgetTimeoutError",
    "HumanInputRequired",
    "InvalidParametersError",
    "LlmistError",
    "MediaKind",
    "ModelClient",
    "ModelRetry",
    "NoParams",
    "TaskCompletionSignal",
    "UntypedParameterWarning",
    "ValidationResult",
    "approval_reason",
    "as_gadget",
    "bind_call",
    "create_gadget",
    "gadget",
    "may_need_approval",
    "output_char_limit",
    "render_call",
    "render_gadget",
    "render_parameters",
    "sample_params",
    "validate_gadget_params",
    "validate_params",
]
