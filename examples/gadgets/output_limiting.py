"""Output limiting: large results are stored; the model reads them with GadgetOutputViewer."""

import asyncio
import re

from llmist import GadgetExecutor, GadgetOutputStore, GadgetOutputViewer, gadget
from llmist.gadgets import output_char_limit
from llmist.syntax import ParsedCall


@gadget(name="Search")
def search(query: str) -> str:
    """Search the code base."""
    return "\n".join(f"src/file{i}.py: TODO {'HIGH' if i % 1000 == 0 else 'low'} {query}" for i in range(4200))


async def run() -> str:
    store = GadgetOutputStore(char_limit=output_char_limit(context_window=200_000))  # 15 %: 120,000 chars
    executor = GadgetExecutor([search, GadgetOutputViewer(store)], output_store=store)
    notice = await executor.execute(ParsedCall("Search", "s", "", {"query": "fix"}, None, ()))
    assert notice.result is not None
    match = re.search(r'Use GadgetOutputViewer with id "(Search_[0-9a-f]{8})"', notice.result)
    assert match is not None
    # The model's next call, exactly as it writes it in the block format:
    block = f"""!!!ARG:id
{match.group(1)}
!!!ARG:patterns/0/regex
TODO.*HIGH
!!!ARG:patterns/0/include
true
!!!ARG:patterns/0/before
2
!!!ARG:patterns/0/after
2
!!!ARG:limit
100-"""
    view = await executor.execute(ParsedCall("GadgetOutputViewer", "v", block, {}, None, ()))
    assert view.result is not None and view.result.count("HIGH") == 5
    return view.result


def main() -> None:
    print(asyncio.run(run()))


if __name__ == "__main__":
    main()
