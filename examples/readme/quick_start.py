"""The README's example: a gadget, an agent, a run (offline here: the model is scripted)."""

from llmist import Agent, gadget
from llmist.testing import MockModel, block_call

model = MockModel([block_call("add", a=2, b=3), "2 + 3 = 5"])  # or model="sonnet", "ollama:qwen2.5:7b"...


@gadget(description="Add two integers")
def add(a: int, b: int) -> str:
    return str(a + b)


result = Agent(model=model, gadgets=[add]).run_sync("What is 2 + 3?")
print(result.output, result.gadget_results[0].result)  # 2 + 3 = 5 5
