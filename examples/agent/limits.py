"""Limits: iterations, calls per response, cost and token budgets, cancellation."""

import asyncio

from llmist import AbortSignal, Agent, RunLimits, gadget
from llmist.testing import MockModel, block_call


@gadget
def step(n: int) -> str:
    """Do one step."""
    return f"step {n} done"


async def main() -> None:
    forever = MockModel(lambda messages: block_call("step", n=len(messages)))
    limits = RunLimits(
        max_iterations=3,  # stop_reason "max_iterations"
        max_gadgets_per_response=5,  # later calls are reported to the model as not run
        max_cost=0.50,  # USD, model + gadgets: stop_reason "budget"
        max_tokens=100_000,  # tokens in + out: stop_reason "budget"
    )
    agent = Agent(model=forever, gadgets=[step], limits=limits)
    result = await agent.run("Go")
    print(result.stop_reason, result.iterations)  # max_iterations 3

    signal = AbortSignal()
    signal.abort("user pressed stop")  # from anywhere, e.g. another task or thread
    cancelled = await agent.run("Go", signal=signal)
    print(cancelled.stop_reason)  # cancelled

    assert (result.stop_reason, cancelled.stop_reason) == ("max_iterations", "cancelled")


if __name__ == "__main__":
    asyncio.run(main())
