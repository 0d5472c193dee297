"""``DurableClient``: runs put on a DBOSAgent's queue, and decisions given, from a process that
runs no agent (a command line, a web app): it only talks to the system database."""

from __future__ import annotations

import uuid
from typing import Any

from dbos import DBOSClient, EnqueueOptions, WorkflowHandleAsync

from llmist.agent import AgentResult
from llmist.agent.approvals import Decision, PendingCall
from llmist.durable._approvals import Messenger, pending_calls, send_decision
from llmist.durable.agent import queue_name, workflow_name
from llmist.durable.config import DurableConfigError, system_database_url

__all__ = ["DurableClient"]


class DurableClient:
    """The runs of the DBOSAgent named ``name`` whose workers share the system database at ``url``
    (``llmist approve --durable URL RUN ID`` decides through one).

    ``close()`` it when done (or use it as a context manager)."""

    def __init__(self, url: str, name: str | None = None) -> None:
        self.name = name
        """The DBOSAgent's name (needed to enqueue; not to read results or give decisions)."""
        self._client = DBOSClient(system_database_url=system_database_url(url))

    async def enqueue(self, prompt: str, *, workflow_id: str | None = None) -> str:
        """Put a run of ``prompt`` on the agent's queue; its workflow id (``workflow_id``, or a new one)."""
        if self.name is None:
            raise DurableConfigError("DurableClient(url, name): name the DBOSAgent whose queue the run goes on")
        options: EnqueueOptions = {
            "workflow_name": workflow_name(self.name),
            "queue_name": queue_name(self.name),
            "workflow_id": workflow_id or uuid.uuid4().hex,
        }
        handle: WorkflowHandleAsync[AgentResult[Any]] = await self._client.enqueue_async(options, prompt)
        return handle.get_workflow_id()

    async def result(self, workflow_id: str) -> AgentResult[Any]:
        """The result of run ``workflow_id``, once a worker finished it."""
        handle: WorkflowHandleAsync[AgentResult[Any]] = await self._client.retrieve_workflow_async(workflow_id)
        result: AgentResult[Any] = await handle.get_result()
        return result

    async def pending(self, workflow_id: str) -> list[PendingCall]:
        """The calls run ``workflow_id`` waits for decisions on."""
        return await pending_calls(workflow_id, self._messenger)

    async def decide(self, workflow_id: str, invocation_id: str, decision: Decision) -> PendingCall:
        """Give run ``workflow_id`` a person's ``decision`` on its waiting call ``invocation_id``
        (see :meth:`DBOSAgent.decide <llmist.durable.DBOSAgent.decide>`)."""
        return await send_decision(workflow_id, invocation_id, decision, self._messenger)

    @property
    def _messenger(self) -> Messenger:
        return self._client

    def close(self) -> None:
        """Close the connection to the system database."""
        self._client.destroy()

    def __enter__(self) -> DurableClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
