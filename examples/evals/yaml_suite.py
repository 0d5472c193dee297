"""A suite as a YAML file of cases, its gadgets given in Python (llmist eval loads them with -g)."""

import asyncio
import tempfile
from pathlib import Path

from llmist import gadget
from llmist.evals import load_suite, run_suite
from llmist.testing import MockModel, block_call

CASES = """\
name: shop
cases:
  - name: tea_price
    category: single
    prompt: How much is tea? Use price.
    answer: "4.50"
    calls:
      - gadget: price
        params: {product: tea}
    syntaxes: [block]
"""


@gadget(description="Price of a product in euros.")
def price(product: str) -> str:
    return {"tea": "4.50"}.get(product.strip().lower(), "unknown")


async def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "shop.yaml"
        path.write_text(CASES)
        suite = load_suite(str(path), gadgets=[price])
    model = MockModel([block_call("price", product="tea"), "Tea costs 4.50 euros."])
    [result] = await run_suite(suite, model, syntaxes=["block"])
    print(result.case, "passed" if result.passed else result.failures)
    assert result.passed


if __name__ == "__main__":
    asyncio.run(main())
