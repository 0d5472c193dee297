"""``syntax="auto"``: native where the model registry says the model calls tools well, block elsewhere."""

from llmist import Agent, gadget
from llmist.models import ModelRegistry, ModelSpec


@gadget(description="Add two integers.")
def add(a: int, b: int) -> str:
    return str(a + b)


def main() -> None:
    registry = ModelRegistry()
    registry.register(ModelSpec("ollama", "qwen3:8b", native_tools=True))  # a local model you trust with tools
    for model in ("ollama:qwen3:8b", "ollama:smollm2:135m"):
        agent = Agent(model=model, gadgets=[add], syntax="auto", model_registry=registry)
        print(f"{model:<20} {agent.call_syntax}")  # native, then block: the registry does not know it
    assert registry.native_tools("gpt-4.1", "openai")  # the catalog's frontier models are native


if __name__ == "__main__":
    main()
