"""Remote A2A agents built from a2a-sdk alone (its own ``AgentExecutor``, no llmist), and the
helpers the tests share: an a2a-sdk client for an app, and a message."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import uuid
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import httpx
from a2a.client import A2ACardResolver, Client, ClientConfig, ClientFactory
from a2a.helpers import new_task_from_user_message, new_text_part
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentSkill,
    Message,
    Part,
    Role,
    SendMessageRequest,
    StreamResponse,
    TaskState,
)
from starlette.applications import Starlette

from tests.web.servers import serving

Behaviour = Callable[[str, TaskUpdater], Awaitable[None]]


class SdkExecutor(AgentExecutor):
    """An executor written as a2a-sdk's samples write one: ``behaviour`` does the work."""

    def __init__(self, behaviour: Behaviour) -> None:
        self.behaviour = behaviour
        self.cancelled: list[str] = []
        """The tasks ``cancel`` was called for."""

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        assert context.task_id and context.context_id and context.message
        if context.current_task is None:
            await event_queue.enqueue_event(new_task_from_user_message(context.message))
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        await updater.start_work()
        await self.behaviour(context.get_user_input(), updater)

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        assert context.task_id and context.context_id
        self.cancelled.append(context.task_id)
        await TaskUpdater(event_queue, context.task_id, context.context_id).cancel()


async def shout(text: str, updater: TaskUpdater) -> None:
    """Answers the message in capitals, after one status update."""
    await updater.update_status(TaskState.TASK_STATE_WORKING, updater.new_agent_message([new_text_part("thinking")]))
    await updater.add_artifact([new_text_part(text.upper())], name="answer")
    await updater.complete()


async def fail(text: str, updater: TaskUpdater) -> None:
    await updater.failed(updater.new_agent_message([new_text_part("the database is down")]))


async def ask(text: str, updater: TaskUpdater) -> None:
    await updater.requires_input(updater.new_agent_message([new_text_part("which currency?")]))


async def hang(text: str, updater: TaskUpdater) -> None:
    await asyncio.sleep(3600)


def sdk_app(
    behaviour: Behaviour, *, name: str = "Shouter", url: str = "http://127.0.0.1"
) -> tuple[Starlette, SdkExecutor]:
    """An A2A server made of a2a-sdk's classes only, and its executor."""
    executor = SdkExecutor(behaviour)
    card = AgentCard(
        name=name,
        description="Repeats your message in capital letters.",
        version="1.0.0",
        supported_interfaces=[AgentInterface(url=url + "/rpc", protocol_binding="JSONRPC", protocol_version="1.0")],
        capabilities=AgentCapabilities(streaming=True),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[AgentSkill(id="shout", name="shout", description="Capitalise text", tags=["text"])],
    )
    handler = DefaultRequestHandler(agent_executor=executor, task_store=InMemoryTaskStore(), agent_card=card)
    routes = [*create_agent_card_routes(card), *create_jsonrpc_routes(handler, "/rpc")]
    return Starlette(routes=routes), executor


async def sdk_client(http: httpx.AsyncClient, base: str, *, streaming: bool = True) -> Client:
    """a2a-sdk's own client for the agent at ``base``."""
    card = await A2ACardResolver(http, base).get_agent_card()
    return ClientFactory(ClientConfig(httpx_client=http, streaming=streaming)).create(card)


def user_message(text: str, *, task_id: str = "", context_id: str = "") -> SendMessageRequest:
    return SendMessageRequest(
        message=Message(
            role=Role.ROLE_USER,
            message_id=uuid.uuid4().hex,
            parts=[Part(text=text)],
            task_id=task_id,
            context_id=context_id,
        )
    )


async def collect(client: Client, request: SendMessageRequest) -> list[StreamResponse]:
    return [r async for r in client.send_message(request)]


def asgi(app: Any) -> httpx.AsyncClient:
    """An HTTP client that calls ``app`` in this process (no server, no socket)."""
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1", timeout=30)


@contextlib.contextmanager
def serving_sdk(behaviour: Behaviour, *, name: str = "Shouter") -> Iterator[tuple[str, SdkExecutor]]:
    """A pure a2a-sdk agent served on a loopback port (its card names that port); its URL and executor."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    app, executor = sdk_app(behaviour, name=name, url=f"http://127.0.0.1:{port}")
    with serving(app, port=port) as base:
        yield base, executor
