"""``A2AGadget``: a remote agent built with a2a-sdk alone (or served by llmist) as a gadget."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import pytest

from llmist import Agent, gadget
from llmist.a2a import A2AGadget, RemoteAgentError, to_a2a
from llmist.agent import GadgetResultEvent, SubagentEvent
from llmist.syntax import TextEvent
from llmist.testing import MockModel, block_call
from tests.a2a.remotes import ask, fail, hang, serving_sdk, shout
from tests.web.servers import free_port, serving

pytestmark = pytest.mark.slow  # real servers on loopback ports


@pytest.fixture
def shouter() -> Iterator[str]:
    with serving_sdk(shout) as (base, _):
        yield base


def caller(remote: A2AGadget, message: str = "hello") -> Agent:
    """An llmist agent whose model calls the remote agent once, then answers."""
    return Agent(model=MockModel([block_call(remote.name, message=message), "Done."]), gadgets=[remote])


async def test_name_and_description_come_from_the_remote_card(shouter: str) -> None:
    remote = A2AGadget(shouter)
    card = await remote.connect()
    assert card.name == "Shouter" and remote.name == "Shouter"
    assert remote.description.startswith("Repeats your message in capital letters.")
    assert "shout: Capitalise text" in remote.description


async def test_an_agent_calls_a_remote_agent_built_with_a2a_sdk_alone(shouter: str) -> None:
    updates: list[str] = []
    remote = A2AGadget(shouter, on_update=updates.append)
    await remote.connect()
    result = await caller(remote).run("Shout hello.")
    [call] = result.gadget_results
    assert call.error is None and call.result == "HELLO"
    assert result.output == "Done."
    assert "thinking" in updates


async def test_the_remote_agents_updates_reach_the_calling_agents_stream_as_they_come(shouter: str) -> None:
    remote = A2AGadget(shouter)
    await remote.connect()
    stream = caller(remote).stream("Shout hello.")
    seen: list[tuple[str, object]] = []
    async for event in stream:
        if isinstance(event, SubagentEvent):
            seen.append(("update", event))
        elif isinstance(event, GadgetResultEvent):
            seen.append(("result", event))
    updates = [e for kind, e in seen if kind == "update"]
    assert updates, seen
    first = updates[0]
    assert isinstance(first, SubagentEvent) and isinstance(first.event, TextEvent)
    assert first.event.content == "thinking" and first.depth == 1
    assert stream.result is not None
    assert first.path == (f"Shouter:{stream.result.gadget_results[0].invocation_id}",)
    kinds = [kind for kind, _ in seen]
    assert kinds.index("update") < kinds.index("result")  # while the call ran, not after


def test_without_connect_the_card_is_fetched_when_the_agent_reads_the_name(shouter: str) -> None:
    remote = A2AGadget(shouter)
    result = caller(remote).run_sync("Shout hello.")
    assert result.gadget_results[0].result == "HELLO"


async def test_the_answer_is_cut_at_max_answer_chars(shouter: str) -> None:
    remote = A2AGadget(shouter, max_answer_chars=5)
    await remote.connect()
    result = await caller(remote, "hello world").run("Shout.")
    answer = result.gadget_results[0].result or ""
    assert answer.startswith("HELLO\n[... the answer was cut at 5 characters")


@pytest.mark.parametrize(
    ("behaviour", "cause"),
    [(fail, "failed: the database is down"), (ask, "asks for more input")],
)
async def test_a_remote_task_that_fails_or_asks_for_input_is_a_clear_error_and_the_loop_goes_on(
    behaviour: object, cause: str
) -> None:
    with serving_sdk(behaviour) as (base, _):  # type: ignore[arg-type]
        remote = A2AGadget(base)
        await remote.connect()
        result = await caller(remote).run("Try.")
    [call] = result.gadget_results
    assert call.error is not None and f"remote agent Shouter at {base} {cause}" in call.error
    assert result.output == "Done."


async def test_a_remote_that_hangs_times_out_and_its_task_is_cancelled() -> None:
    with serving_sdk(hang) as (base, executor):
        remote = A2AGadget(base, timeout_s=0.5)
        await remote.connect()
        result = await caller(remote).run("Try.")
        deadline = time.monotonic() + 10
        while not executor.cancelled and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
    [call] = result.gadget_results
    assert call.error is not None and "timed out" in call.error.lower()
    assert len(executor.cancelled) == 1  # the remote task was cancelled, not left running
    assert result.output == "Done."


async def test_a_remote_that_went_away_is_a_clear_error() -> None:
    with serving_sdk(shout) as (base, _):
        remote = A2AGadget(base)
        await remote.connect()
    result = await caller(remote).run("Try.")  # the server has stopped
    [call] = result.gadget_results
    assert call.error is not None and f"remote agent Shouter at {base} cannot be reached" in call.error
    assert result.output == "Done."


async def test_a_card_that_cannot_be_read_names_the_address() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(RemoteAgentError, match=f"remote agent at {url} its card cannot be read"):
        await A2AGadget(url).connect()


@gadget
def add(a: int, b: int) -> str:
    """Add two numbers."""
    return str(a + b)


async def test_an_llmist_agent_calls_another_served_with_to_a2a_and_a_token() -> None:
    served = Agent(
        model=MockModel([block_call("add", a=2, b=3), "The sum is 5."]),
        gadgets=[add],
        name="calculator",
        description="Adds numbers.",
    )
    with serving(to_a2a(served, token="s3cret")) as base:
        remote = A2AGadget(base, token="s3cret")
        await remote.connect()
        result = await caller(remote, "2 + 3?").run("Ask the calculator.")
    assert remote.name == "calculator"
    assert result.gadget_results[0].result == "The sum is 5."
