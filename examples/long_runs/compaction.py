"""Compaction: a 100-turn run stays inside a small context window."""

import asyncio
import itertools

from llmist import Agent, gadget
from llmist.agent import Compaction, CompactionContext, Hooks, Observers, SlidingWindow, Summarize
from llmist.testing import MockModel, block_call


@gadget
def read_page(n: int) -> str:
    """Return page n of the book."""
    return f"page {n}: " + "lorem ipsum " * 20


def book_reader() -> MockModel:
    pages = itertools.count(1)
    return MockModel(lambda messages: block_call("read_page", n=n) if (n := next(pages)) <= 100 else "The end.")


def report(c: CompactionContext) -> None:
    print(f"iteration {c.iteration}: {c.strategy} {c.tokens_before} -> {c.tokens_after} tokens")


async def main() -> None:
    agent = Agent(
        model=book_reader(),
        gadgets=[read_page],
        max_iterations=120,
        context_window=3_000,  # default: the model registry's window for the model
        compaction=Compaction(SlidingWindow(keep_turns=6), threshold=0.8, target=0.5),
        hooks=Hooks(observers=Observers(on_compaction=report)),
    )
    result = await agent.run("Read the whole book.")
    print(result.output, len(result.gadget_results))  # The end. 100

    # Summarise the dropped turns instead, with a cheaper model; its cost joins the run's.
    summariser = MockModel(lambda messages: "The assistant has read the first pages; nothing notable.")
    agent.model = book_reader()
    agent.compaction = Compaction(Summarize(model=summariser, keep_turns=4), threshold=0.8, target=0.5)
    result = await agent.run("Read the whole book.")
    print(result.output, summariser.calls > 0)  # The end. True


if __name__ == "__main__":
    asyncio.run(main())
