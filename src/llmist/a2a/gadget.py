"""``A2AGadget(url)``: a remote A2A agent as a gadget; its one parameter is the message text.

- **Name and description** come from the remote agent's card, fetched once: at ``await
  gadget.connect()``, or else the first time anything reads ``name`` or ``description`` (the agent
  does, when it is built), with a blocking request. In async code, ``await connect()`` first (or
  pass ``name=`` and ``description=``, and the card is fetched at the first call).
- **A call** sends the message over a2a-sdk's client (streaming when the card says the agent
  streams) and returns the text of the task's artifacts (or of its reply message), cut to
  ``max_answer_chars``. Each status update the remote agent sends while it works reaches the
  calling agent's stream as it comes, as a ``SubagentEvent`` (path ``"name:call id"``) around a
  ``TextEvent`` of the update's text, as a local subagent's events do; it also goes to
  ``on_update`` and the ``llmist.a2a`` logger.
- **Failures** raise :class:`RemoteAgentError`, naming the agent, its address and the cause: the
  remote task failed, was rejected or cancelled, asks for input or authentication, the stream
  ended early, or the agent cannot be reached. The run goes on: the model reads the error.
- **Time and cancellation**: ``timeout_s`` (default 300 s) is the gadget's timeout; when it passes,
  or the run is cancelled, the remote task is cancelled too (``CancelTask``, a few seconds at most).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import uuid
from collections.abc import Callable
from typing import Annotated, Any

import httpx
from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.client.card_resolver import parse_agent_card
from a2a.types import AgentCard, CancelTaskRequest, Message, Part, Role, SendMessageRequest, StreamResponse, TaskState
from a2a.utils.constants import AGENT_CARD_WELL_KNOWN_PATH
from a2a.utils.errors import A2AError
from pydantic import BaseModel, Field

from llmist.agent.subagents import DelegatingGadget, report_to_caller
from llmist.gadgets import ExecutionContext, GadgetError
from llmist.syntax import TextEvent

__all__ = ["DEFAULT_MAX_ANSWER_CHARS", "DEFAULT_TIMEOUT_S", "A2AGadget", "RemoteAgentError"]

logger = logging.getLogger("llmist.a2a")

DEFAULT_TIMEOUT_S = 300.0
"""How long a call may take by default (a remote agent runs a whole task)."""
DEFAULT_MAX_ANSWER_CHARS = 50_000
"""The longest answer a call returns by default; the rest is cut, with a note saying so."""
_CANCEL_WAIT_S = 5.0
"""How long a cancelled call waits for the remote agent to accept the cancellation."""
_CONNECT_TIMEOUT_S = 10.0

_FAILED = {
    TaskState.TASK_STATE_FAILED: "failed",
    TaskState.TASK_STATE_REJECTED: "refused the task",
    TaskState.TASK_STATE_CANCELED: "cancelled the task",
    TaskState.TASK_STATE_INPUT_REQUIRED: "asks for more input (this gadget sends one message per call)",
    TaskState.TASK_STATE_AUTH_REQUIRED: "needs authentication",
}
_ENDED = {TaskState.TASK_STATE_COMPLETED, *_FAILED}


class RemoteAgentError(GadgetError):
    """A remote A2A agent did not answer: the message names the agent, its address and the cause."""


class _Params(BaseModel):
    message: Annotated[str, Field(description="The message for the remote agent: the task, in plain words.")]


class A2AGadget(DelegatingGadget):
    """A remote A2A agent as a gadget (see the module docstring).

    Args:
        url: The agent's base address (its card is at ``url + /.well-known/agent-card.json``).
        name / description: Override the card's (and spare the card's fetch until the first call).
        token: Sent as ``Authorization: Bearer <token>`` (as ``llmist a2a serve --token`` expects).
        headers: Other HTTP headers for every request.
        timeout_s: The gadget's timeout.
        max_answer_chars: The longest answer returned.
        on_update: Called with each status text the remote agent sends while it works.
    """

    Params = _Params

    def __init__(
        self,
        url: str,
        *,
        name: str | None = None,
        description: str | None = None,
        token: str | None = None,
        headers: dict[str, str] | None = None,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        max_answer_chars: int = DEFAULT_MAX_ANSWER_CHARS,
        on_update: Callable[[str], None] | None = None,
    ) -> None:
        if timeout_s <= 0 or max_answer_chars < 1:
            raise ValueError(
                f"timeout_s must be positive and max_answer_chars at least 1; got {timeout_s}, {max_answer_chars}"
            )
        self.url = url.rstrip("/")
        self.timeout_s = timeout_s
        self.max_answer_chars = max_answer_chars
        self.on_update = on_update
        self._headers = {**(headers or {}), **({"Authorization": f"Bearer {token}"} if token else {})}
        self._name, self._description = name, description
        self._card: AgentCard | None = None

    # name and description: the card's, unless given (read by the agent when it is built).
    @property
    def name(self) -> str:
        """The gadget's name: given, or the card's name made a valid identifier."""
        if self._name is None:
            self._name = _identifier(self._sync_card().name)
        return self._name

    @name.setter
    def name(self, value: str) -> None:
        self._name = value

    @property
    def description(self) -> str:
        """The gadget's description: given, or the card's description and skills."""
        if self._description is None:
            self._description = _describe(self._sync_card())
        return self._description

    @description.setter
    def description(self, value: str) -> None:
        self._description = value

    async def connect(self) -> AgentCard:
        """Fetch the remote agent's card (once) and take its name and description; the card.

        Raises:
            RemoteAgentError: the card cannot be fetched or read.
        """
        if self._card is None:
            async with self._client() as http:
                try:
                    card = await A2ACardResolver(http, self.url).get_agent_card()
                except A2AError as exc:
                    raise self._error(f"its card cannot be read: {exc}") from exc
            self._take(card)
        assert self._card is not None
        return self._card

    def _sync_card(self) -> AgentCard:
        if self._card is None:
            try:
                with httpx.Client(headers=self._headers, timeout=_CONNECT_TIMEOUT_S) as http:
                    response = http.get(self.url + AGENT_CARD_WELL_KNOWN_PATH)
                    response.raise_for_status()
                    self._take(parse_agent_card(response.json()))
            except (httpx.HTTPError, ValueError) as exc:
                raise self._error(f"its card cannot be read: {exc}") from exc
        assert self._card is not None
        return self._card

    def _take(self, card: AgentCard) -> None:
        self._card = card
        if self._name is None:
            self._name = _identifier(card.name)
        if self._description is None:
            self._description = _describe(card)

    def _client(self) -> httpx.AsyncClient:
        # No read timeout: a streamed task may be quiet for long; the gadget's timeout bounds the call.
        timeout = httpx.Timeout(_CONNECT_TIMEOUT_S, read=None)
        return httpx.AsyncClient(headers=self._headers, timeout=timeout)

    def _error(self, cause: str) -> RemoteAgentError:
        who = self._name or (self._card.name if self._card is not None else "")
        return RemoteAgentError(f"remote agent {who + ' ' if who else ''}at {self.url} {cause}")

    async def execute(self, params: _Params, ctx: ExecutionContext) -> str:
        """Send ``params.message``; the remote agent's answer."""
        card = await self.connect()
        reply = _Reply(self.max_answer_chars)
        request = SendMessageRequest(
            message=Message(role=Role.ROLE_USER, message_id=uuid.uuid4().hex, parts=[Part(text=params.message)])
        )
        async with self._client() as http:
            client = ClientFactory(ClientConfig(httpx_client=http, streaming=True)).create(card)
            try:
                async for response in client.send_message(request):
                    for text in reply.take(response):
                        self._update(text, ctx)
            except asyncio.CancelledError:
                await self._cancel_remote(client, reply)
                raise
            except (A2AError, httpx.HTTPError) as exc:
                raise self._error(f"cannot be reached or broke off: {type(exc).__name__}: {exc}") from exc
        return self._answer(reply)

    def _update(self, text: str, ctx: ExecutionContext) -> None:
        logger.info("%s: %s", self.name, text)
        report_to_caller(self.name, ctx.invocation_id, TextEvent(text))
        if self.on_update is not None:
            self.on_update(text)

    async def _cancel_remote(self, client: Any, reply: _Reply) -> None:
        """Cancel the remote task this call started (timeout or run cancelled), briefly."""
        if reply.task_id is None or reply.state in _ENDED:
            return
        with contextlib.suppress(Exception):
            await asyncio.shield(
                asyncio.wait_for(client.cancel_task(CancelTaskRequest(id=reply.task_id)), _CANCEL_WAIT_S)
            )

    def _answer(self, reply: _Reply) -> str:
        if reply.state in _FAILED:
            detail = f": {reply.status_text}" if reply.status_text else ""
            raise self._error(f"{_FAILED[reply.state]}{detail}")
        if reply.state is not None and reply.state != TaskState.TASK_STATE_COMPLETED and not reply.direct:
            raise self._error(f"ended its stream before the task finished (state {TaskState.Name(reply.state)})")
        return reply.text()


class _Reply:
    """What a call has heard so far: the task, its state, its artifacts' text (bounded)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.task_id: str | None = None
        self.state: TaskState | None = None
        self.status_text = ""
        self.direct = False
        """The agent answered with a message, not a task."""
        self.artifacts: dict[str, str] = {}
        self.size = 0

    def take(self, response: StreamResponse) -> list[str]:
        """Note one response; the status texts it brings."""
        kind = response.WhichOneof("payload")
        if kind == "message":
            self.direct = True
            self._add("message", _text(response.message.parts), append=False)
            return []
        if kind == "task":
            task = response.task
            self.task_id, self.state = task.id, task.status.state
            for artifact in task.artifacts:
                self._add(artifact.artifact_id, _text(artifact.parts), append=False)
            return self._status(task.status.message.parts if task.status.HasField("message") else [])
        if kind == "status_update":
            self.task_id, self.state = response.status_update.task_id, response.status_update.status.state
            status = response.status_update.status
            return self._status(status.message.parts if status.HasField("message") else [])
        if kind == "artifact_update":
            update = response.artifact_update
            self._add(update.artifact.artifact_id, _text(update.artifact.parts), append=update.append)
        return []

    def _status(self, parts: Any) -> list[str]:
        text = _text(parts)
        if text:
            self.status_text = text
        return [text] if text else []

    def _add(self, key: str, text: str, *, append: bool) -> None:
        current = self.artifacts.get(key, "")
        others = self.size - len(current)
        # Never more than the limit in all (and one character over, to know the answer was cut).
        kept = ((current if append else "") + text)[: max(self.limit + 1 - others, 0)]
        self.artifacts[key] = kept
        self.size = others + len(kept)

    def text(self) -> str:
        whole = "\n".join(t for t in self.artifacts.values() if t)
        if len(whole) <= self.limit:
            return whole
        return whole[: self.limit] + f"\n[... the answer was cut at {self.limit:,} characters (max_answer_chars)]"


def _text(parts: Any) -> str:
    return "\n".join(p.text for p in parts if p.WhichOneof("content") == "text")


def _identifier(name: str) -> str:
    """A card's name as a gadget name: letters, digits and underscores."""
    return re.sub(r"\W+", "_", name).strip("_") or "remote_agent"


def _describe(card: AgentCard) -> str:
    skills = "; ".join(f"{s.name}: {s.description}" for s in card.skills)
    lines = [
        card.description or f"The remote A2A agent {card.name}.",
        "A remote agent (A2A): send it a task as a message.",
    ]
    if skills:
        lines.append(f"Its skills: {skills}.")
    return "\n".join(lines)
