"""A remote A2A agent as a gadget: A2AGadget takes its name and description from the agent's
card, sends it the model's message and returns its answer. Here the remote agent is an llmist
agent served on a loopback port; any A2A agent (ADK, Agno, a2a-sdk's own) is called the same way."""

import asyncio
import socket
import threading
import time

import uvicorn

from llmist import Agent, gadget
from llmist.a2a import A2AGadget, to_a2a
from llmist.testing import MockModel, block_call


@gadget
def convert(amount: float, rate: float) -> str:
    """Convert an amount at an exchange rate."""
    return f"{amount * rate:.2f}"


def remote_agent() -> Agent:
    return Agent(
        model=MockModel([block_call("convert", amount=100, rate=0.92), "100 USD is 92.00 EUR."]),
        gadgets=[convert],
        name="currency agent",
        description="Converts between currencies.",
    )


def serve_in_background(app: object) -> tuple[str, uvicorn.Server]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True).start()
    while not server.started:
        time.sleep(0.01)
    return f"http://127.0.0.1:{sock.getsockname()[1]}", server


async def main() -> None:
    url, server = serve_in_background(to_a2a(remote_agent()))
    try:
        currency = A2AGadget(url, timeout_s=60)
        await currency.connect()  # fetches the card: the gadget's name and description
        print(currency.name)  # currency_agent
        print(currency.description.splitlines()[0])  # Converts between currencies.

        agent = Agent(
            model=MockModel([block_call("currency_agent", message="100 USD in EUR?"), "It is 92 euros."]),
            gadgets=[currency],
        )
        result = await agent.run("How much is 100 USD in euros?")
        print(result.gadget_results[0].result)  # 100 USD is 92.00 EUR.
        print(result.output)  # It is 92 euros.
    finally:
        server.should_exit = True


if __name__ == "__main__":
    asyncio.run(main())
