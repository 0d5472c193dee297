"""Ragged streaming: cut the same script anywhere, the agent must behave the same."""

import asyncio

from llmist import Agent, gadget
from llmist.testing import MockModel, block_call, collect_events, emoji_call


@gadget
def save(path: str, content: str) -> str:
    """Save a file."""
    return f"saved {len(content)} chars to {path}"


SCRIPT = ["Saving.\n" + block_call("save", path="a.txt", content="hello\nworld"), "Saved."]


async def test_any_chunking_gives_the_same_calls() -> None:
    splits = [
        {"chunk_size": 1},  # a character at a time
        {"chunk_size": 7},
        {"split": [3, 10, 11, 12, 40]},  # explicit cut offsets, e.g. inside a marker
        {"split": lambda text: text.splitlines(keepends=True)},  # or any chunker function
    ]
    for options in splits:
        result = await Agent(model=MockModel(SCRIPT, **options), gadgets=[save]).run("save it")
        assert [r.result for r in result.gadget_results] == ["saved 11 chars to a.txt"]


async def test_slow_stream_and_emoji_syntax() -> None:
    model = MockModel([emoji_call("save", "b.txt", body="hi"), "ok"], chunk_size=3, delay_s=0.001)
    events = await collect_events(Agent(model=model, gadgets=[save], syntax="emoji").stream("save"))
    assert [e.type for e in events].count("gadget_result") == 1


if __name__ == "__main__":
    asyncio.run(test_any_chunking_gives_the_same_calls())
    asyncio.run(test_slow_stream_and_emoji_syntax())
