"""The model catalog: limits, features, prices and aliases, and the cost of a call."""

from llmist.models.registry import ModelRegistry, split_model_ref
from llmist.models.spec import CostBreakdown, ModelSpec, TokenUsage

__all__ = ["CostBreakdown", "ModelRegistry", "ModelSpec", "TokenUsage", "split_model_ref"]
