"""Running calls: ``GadgetExecutor`` (one call) and ``GadgetScheduler`` (a streaming dependency DAG)."""

from llmist.execution.cancellation import run_main
from llmist.execution.controllers import (
    BeforeGadget,
    BeforeGadgetDecision,
    DependencySkipDecision,
    DependencySkipInfo,
    GadgetCallInfo,
    OnDependencySkipped,
    ParameterInterceptor,
)
from llmist.execution.executor import DEFAULT_CANCEL_GRACE_S, GadgetExecutor, HumanInputHandler
from llmist.execution.results import GadgetDeferral, GadgetExecutionResult, GadgetSkip, ResultStatus
from llmist.execution.scheduler import GadgetScheduler

__all__ = [
    "DEFAULT_CANCEL_GRACE_S",
    "BeforeGadget",
    "BeforeGadgetDecision",
    "DependencySkipDecision",
    "DependencySkipInfo",
    "GadgetCallInfo",
    "GadgetDeferral",
    "GadgetExecutionResult",
    "GadgetExecutor",
    "GadgetScheduler",
    "GadgetSkip",
    "HumanInputHandler",
    "OnDependencySkipped",
    "ParameterInterceptor",
    "ResultStatus",
    "run_main",
]
