"""Dependencies: independent calls run in parallel, dependent ones wait; failures skip dependents."""

import asyncio

from llmist import DependencySkipDecision, GadgetExecutor, GadgetScheduler, gadget
from llmist.execution import DependencySkipInfo
from llmist.syntax import ParsedCall


@gadget
async def fetch(url: str) -> str:
    """Fetch a URL."""
    if "broken" in url:
        raise ConnectionError(f"cannot reach {url}")
    return f"[{url}]"


@gadget
async def merge(parts: list[str]) -> str:
    """Merge fetched parts."""
    return " + ".join(parts)


async def use_empty_list(info: DependencySkipInfo) -> DependencySkipDecision:
    # Options: "skip" (default), "execute_anyway", or "use_fallback"
    return DependencySkipDecision(action="use_fallback", fallback_result="[]")


async def run() -> dict[str, str]:
    executor = GadgetExecutor([fetch, merge])
    scheduler = GadgetScheduler(executor, on_dependency_skipped=use_empty_list)
    # As the parser yields calls: a and b are independent, m waits for both.
    scheduler.submit(ParsedCall("merge", "m", "", {"parts": ["a", "b"]}, None, ("a", "b")))
    scheduler.submit(ParsedCall("fetch", "a", "", {"url": "https://one"}, None, ()))
    scheduler.submit(ParsedCall("fetch", "b", "", {"url": "https://broken"}, None, ()))
    scheduler.close()
    return {result.invocation_id: result.text async for result in scheduler}


def main() -> None:
    texts = asyncio.run(run())
    assert texts == {"a": "[https://one]", "b": "Error: ConnectionError: cannot reach https://broken", "m": "[]"}


if __name__ == "__main__":
    main()
