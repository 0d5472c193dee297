"""Prices and limits from the model registry, and your own model's prices."""

from llmist.models import ModelRegistry, ModelSpec
from llmist.providers import Usage

registry = ModelRegistry()
usage = Usage(input_tokens=12_000, output_tokens=800, cached_input_tokens=10_000)

sonnet = registry.get("sonnet")
assert sonnet is not None
print(f"{sonnet.ref}: context {sonnet.context_window} tokens, ${sonnet.input_price}/M input")
print(f"one call: ${registry.cost('sonnet', usage):.6f}")

# A model served by your own vLLM box, billed at your own rates (USD per million tokens).
registry.register(ModelSpec("vllm", "my-finetune", input_price=0.2, output_price=0.4, context_window=32_768))
print(f"my-finetune: ${registry.cost('vllm:my-finetune', usage):.6f}")
