"""Your own suite in Python: your gadgets, your tasks, a deterministic grader."""

import asyncio

from llmist import gadget
from llmist.evals import Call, EvalCase, EvalSuite, ExpectedCall, reference_model, run_suite


@gadget(description="Price of a product in euros.")
def price(product: str) -> str:
    return {"tea": "4.50", "coffee": "7.20"}.get(product.strip().lower(), "unknown")


SUITE = EvalSuite(
    "shop",
    (
        EvalCase(
            name="tea_price",
            category="single",
            prompt="How much is tea? Use price.",
            gadgets=[price],
            answer=("4.50",),
            calls=(ExpectedCall("price", {"product": "tea"}),),
            solution=((Call("price", {"product": "tea"}),), "Tea costs 4.50 euros."),
        ),
    ),
)


async def main() -> None:
    [block, emoji, native] = await run_suite(SUITE, reference_model)
    assert block.passed and emoji.passed and native.passed
    print(block.case, block.syntax, block.passed, block.calls, "call(s)")


if __name__ == "__main__":
    asyncio.run(main())
