"""An llmist agent served over A2A (to_a2a), asked by a2a-sdk's own client: one message sent,
one streamed. The client calls the app in this process; `llmist a2a serve` puts it on a port."""

import asyncio

import httpx
from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.types import Message, Part, Role, SendMessageRequest

from llmist import Agent, gadget
from llmist.a2a import to_a2a
from llmist.testing import MockModel, block_call


@gadget
def add(a: int, b: int) -> str:
    """Add two numbers."""
    return str(a + b)


def calculator() -> Agent:
    answers = [block_call("add", a=2, b=3), "2 + 3 = 5."] * 2  # one model script per message
    return Agent(model=MockModel(answers), gadgets=[add], name="calculator", description="Adds numbers.")


def question(text: str) -> SendMessageRequest:
    return SendMessageRequest(message=Message(role=Role.ROLE_USER, message_id="q1", parts=[Part(text=text)]))


async def main() -> None:
    app = to_a2a(calculator())
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
        card = await A2ACardResolver(http, "http://127.0.0.1").get_agent_card()
        print(card.name, [skill.name for skill in card.skills])  # calculator ['add']

        client = ClientFactory(ClientConfig(httpx_client=http, streaming=False)).create(card)
        async for response in client.send_message(question("What is 2 + 3?")):
            print(response.task.artifacts[0].parts[0].text)  # 2 + 3 = 5.

        streaming = ClientFactory(ClientConfig(httpx_client=http)).create(card)
        async for response in streaming.send_message(question("What is 2 + 3?")):
            if response.HasField("status_update") and response.status_update.status.message.parts:
                print("status:", response.status_update.status.message.parts[0].text)
            if response.HasField("artifact_update"):
                print("answer:", response.artifact_update.artifact.parts[0].text)
        # status: calling add
        # status: add returned: 5
        # answer: 2 + 3 = 5.
    await app.aclose()


if __name__ == "__main__":
    asyncio.run(main())
