"""Your own guardrails, one of each kind: a parallel topic check on the prompt, a tool-call
guardrail, a redaction of tool results, and a check of the final answer."""

import asyncio
import re

from llmist import Agent, gadget
from llmist.agent.guardrails import (
    GuardedCall,
    GuardedInput,
    GuardedOutput,
    GuardedResult,
    Refuse,
    Rewrite,
    Tripwire,
    input_guardrail,
    output_guardrail,
    tool_call_guardrail,
    tool_result_guardrail,
)
from llmist.testing import MockModel, block_call


@gadget
def lookup_customer(name: str) -> str:
    """Find a customer's record."""
    return f"{name}: ada@example.com, card 4111 1111 1111 1111, plan gold"


@gadget
def refund(amount: float) -> str:
    """Refund the customer."""
    return f"refunded {amount:.2f}"


@input_guardrail(parallel=True)  # beside the first model request; no call runs before it passed
async def on_topic(guarded: GuardedInput) -> Tripwire | None:
    if "weather" in guarded.prompt.lower():  # a real one might ask a small, fast model
        return Tripwire("not a support question", {"topic": "weather"})
    return None


@tool_call_guardrail(gadgets=[refund])
def refund_limit(guarded: GuardedCall) -> Refuse | None:
    amount = float(guarded.parameters.get("amount", 0))
    if amount > 100:
        return Refuse(f"refunds above 100.00 need a person; this one is {amount:.2f}")
    return None


CARD = re.compile(r"\b(?:\d{4} ){3}\d{4}\b")


@tool_result_guardrail
def redact_cards(guarded: GuardedResult) -> Rewrite | None:
    if guarded.result is None or not CARD.search(guarded.result):
        return None
    return Rewrite(CARD.sub("[card]", guarded.result), "a card number redacted")


@output_guardrail
def no_card_numbers(guarded: GuardedOutput) -> Tripwire | None:
    return Tripwire("the answer holds a card number") if CARD.search(guarded.text) else None


script = [
    block_call("lookup_customer", name="Ada") + block_call("refund", amount=250),
    block_call("refund", amount=40),
    "Refunded 40.00 to Ada (gold plan).",
]
agent = Agent(
    model=MockModel(script),
    gadgets=[lookup_customer, refund],
    guardrails=[on_topic, refund_limit, redact_cards, no_card_numbers],
)


async def main() -> None:
    result = await agent.run("Ada wants her money back for the broken kettle.")
    print(result.stop_reason, "-", result.output)
    for check in result.guardrails:
        print(f"  {check.kind:<11} {check.name:<16} {check.outcome}")

    off_topic = await Agent(model=MockModel(["Sunny."]), guardrails=[on_topic]).run("What's the weather?")
    print(off_topic.stop_reason, "-", off_topic.tripwire.describe() if off_topic.tripwire else "")


if __name__ == "__main__":
    asyncio.run(main())
