"""``DBOSAgent``: an agent whose runs are DBOS workflows, each response and each call a step.

A run's life::

    DBOSAgent.run / stream / start    the workflow started under its id (new, or the id of a
    DBOSAgent.enqueue                 run to join); on the agent's queue for many workers
      _execute                        the workflow: the DurableRunEvent, then the agent's run
        agent.stream                  inside run_steps(DBOSSteps(...)): each model response
                                      and each gadget call one DBOS step
      (approvals="defer")             the run pauses; the workflow waits (DBOS.recv) for the
                                      decisions, then resumes it (``_approvals``)

A process that dies leaves the workflow PENDING in the system database; DBOS recovers it in
the next process that launches on that database (or in another worker, see :meth:`recover`),
re-running the workflow function, whose steps that completed return their recorded outcomes.
"""

from __future__ import annotations

import asyncio
import contextvars
import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any, Generic, TypeVar

from dbos import DBOS, DBOSConfig, SetWorkflowID, WorkflowHandleAsync

from llmist.agent import Agent, AgentResult
from llmist.agent.approvals import Decision, PendingCall
from llmist.agent.steps import run_steps
from llmist.durable._approvals import Messenger, RunApprovals, pending_calls, send_decision, wait_for_decisions
from llmist.durable._steps import DBOSSteps
from llmist.durable.config import DurableConfigError, system_database_url
from llmist.durable.events import DurableRunEvent

__all__ = ["DBOSAgent", "DurableStream", "launch", "queue_name", "workflow_name"]

OutputT = TypeVar("OutputT")

_LISTENERS: dict[str, Callable[[object], None]] = {}
"""The callers streaming a run in this process, by workflow id: the workflow hands each event
to the caller's queue (a run recovered with nobody listening runs all the same)."""

_AGENTS: dict[str, DBOSAgent[Any]] = {}
"""This process's DBOSAgents by name (their queues are registered at launch). A workflow name is
the run's identity in the system
database, so two agents under one name would recover each other's runs."""

_END = object()


class DBOSAgent(Generic[OutputT]):
    """Runs ``agent`` durably: each run a DBOS workflow named ``llmist.agent.<name>``.

    Create it before :func:`~llmist.durable.launch` (DBOS recovers, as it launches, the runs of
    workflows registered by then), once per process, with a ``name`` no other DBOSAgent has.

    Args:
        agent: the agent to run; its options as they are when a run starts apply to that run.
        name: the workflow's name, the same in every process that runs or recovers its runs.
        concurrency: at most this many runs of the agent's queue at once, over all workers
            (:meth:`enqueue`); ``None``: no limit.
        worker_concurrency: at most this many at once in one worker.
        on_event: given the events of the runs this process executes that nobody streams here
            (a run DBOS recovered, one a worker took from the queue), a
            :class:`DurableRunEvent` first; ``None``: they are dropped.
    """

    def __init__(
        self,
        agent: Agent[OutputT],
        *,
        name: str,
        concurrency: int | None = None,
        worker_concurrency: int | None = None,
        on_event: Callable[[object], None] | None = None,
    ) -> None:
        if not isinstance(agent, Agent):
            raise TypeError(f"DBOSAgent wraps an llmist Agent, got {type(agent).__name__}")
        if not isinstance(name, str) or not name.strip():
            raise DurableConfigError(f"a DBOSAgent needs a name (its workflow's), got {name!r}")
        if name in _AGENTS:
            raise DurableConfigError(
                f"a DBOSAgent named {name!r} exists already in this process; give each agent its own name "
                "(the name is how every process finds the agent's runs)"
            )
        if agent.spec.session is not None:
            raise DurableConfigError(
                f"the agent has a session ({agent.spec.session!r}); a DBOSAgent's runs keep their state in DBOS's "
                "system database, and a recovered run would write the session again: give the agent no session"
            )
        self.agent = agent
        """The agent that runs."""
        self.name = name
        """The agent's name: its workflow is ``llmist.agent.<name>``, its queue ``llmist.queue.<name>``."""
        self.on_event = on_event
        """Given the events of runs nobody streams in this process."""
        self.queue_name = queue_name(name)
        """The DBOS queue :meth:`enqueue` puts runs on (registered by :func:`launch`)."""
        self.concurrency, self.worker_concurrency = concurrency, worker_concurrency
        """The queue's limits: over all workers, in one worker (``None``: none)."""
        _AGENTS[name] = self

        async def workflow(prompt: str) -> AgentResult[Any]:
            return await self._execute(prompt)

        self._workflow = DBOS.workflow(name=workflow_name(name))(workflow)

    # --- starting runs ------------------------------------------------------------------------

    async def start(self, prompt: str, *, workflow_id: str | None = None) -> WorkflowHandleAsync[AgentResult[Any]]:
        """Start a run of ``prompt`` as workflow ``workflow_id`` (default: a new id) and return its
        handle. An id whose run exists already is that run: it is not started again."""
        with SetWorkflowID(_workflow_id(workflow_id)):
            return await DBOS.start_workflow_async(self._workflow, _prompt(prompt))

    async def enqueue(self, prompt: str, *, workflow_id: str | None = None) -> WorkflowHandleAsync[AgentResult[Any]]:
        """Put a run of ``prompt`` on the agent's queue, for whichever worker takes it first
        (within the queue's limits); its handle."""
        with SetWorkflowID(_workflow_id(workflow_id)):
            queue = await DBOS.retrieve_queue_async(self.queue_name)
            if queue is None:
                raise DurableConfigError(
                    f"queue {self.queue_name!r} is not registered: launch DBOS with llmist.durable.launch"
                )
            return await queue.enqueue_async(self._workflow, _prompt(prompt))

    async def run(self, prompt: str, *, workflow_id: str | None = None) -> AgentResult[OutputT]:
        """Run ``prompt`` durably to its result (as :meth:`start`, then waiting for the result)."""
        handle = await self.start(prompt, workflow_id=workflow_id)
        return await handle.get_result()

    def stream(self, prompt: str, *, workflow_id: str | None = None) -> DurableStream:
        """Start (or join, in the process that runs it) run ``workflow_id`` of ``prompt``;
        iterate the stream for its events as they happen, a :class:`DurableRunEvent` first."""
        return DurableStream(self, prompt, _workflow_id(workflow_id))

    async def result(self, workflow_id: str) -> AgentResult[OutputT]:
        """The result of run ``workflow_id``, once it ends (in whichever process runs it)."""
        handle: WorkflowHandleAsync[AgentResult[OutputT]] = await DBOS.retrieve_workflow_async(workflow_id)
        return await handle.get_result()

    async def pending(self, workflow_id: str) -> list[PendingCall]:
        """The calls run ``workflow_id`` waits for decisions on (``approvals="defer"``)."""
        return await pending_calls(workflow_id, _DBOS)

    async def decide(self, workflow_id: str, invocation_id: str, decision: Decision) -> PendingCall:
        """Give run ``workflow_id`` a person's ``decision`` on its waiting call ``invocation_id``
        (as ``session.decide`` does for a run that is not durable), from any process launched
        on the system database; the run goes on once each waiting call has its decision.

        Raises:
            UnknownApprovalError: the run does not wait for a decision on that call.
        """
        return await send_decision(workflow_id, invocation_id, decision, _DBOS)

    @staticmethod
    def recover(executor_ids: list[str]) -> list[str]:
        """Take over the runs that the workers ``executor_ids`` (their ``launch(executor_id=)``)
        left unfinished, when they died: the ids of the runs now going on here. DBOS recovers a
        process's own runs when it launches again; a run of a worker that does not come back is
        recovered by another worker through this."""
        # DBOS offers this only through its admin server's recovery endpoint (what DBOS
        # Conductor calls); in Python it is `_recover_pending_workflows`, which that endpoint
        # runs. The durable extra pins dbos below 4 for it; tests/durable/test_workers.py
        # fails at once if it moves.
        return [handle.workflow_id for handle in DBOS._recover_pending_workflows(executor_ids)]

    # --- the workflow -------------------------------------------------------------------------

    async def _execute(self, prompt: str) -> AgentResult[Any]:
        workflow_id = DBOS.workflow_id
        assert workflow_id is not None, "a durable run executes as a DBOS workflow"
        emit = _LISTENERS.get(workflow_id, self.on_event)
        if emit is not None:
            emit(DurableRunEvent(workflow_id, await _recovered(workflow_id)))
        result = await self._segment(workflow_id, prompt, RunApprovals(workflow_id), 0, emit)
        segment = 0
        while result.stop_reason == "awaiting_approval":
            calls = await wait_for_decisions(result.pending)
            segment += 1
            result = await self._segment(
                workflow_id, None, RunApprovals(workflow_id, result.messages, calls), segment, emit
            )
        return result

    async def _segment(
        self,
        workflow_id: str,
        prompt: str | None,
        store: RunApprovals,
        segment: int,
        emit: Callable[[object], None] | None,
    ) -> AgentResult[Any]:
        """One run of the agent inside the workflow: the first on the prompt, then one after each
        set of decisions (its calls' keys scoped by the segment: each run counts from one)."""
        scope = workflow_id if segment == 0 else f"{workflow_id}#{segment}"
        with run_steps(DBOSSteps(scope)):
            stream = self.agent.stream(prompt, session=store)
            async for event in stream:
                if emit is not None:
                    emit(event)
        result: AgentResult[Any] | None = stream.result
        assert result is not None
        return result


async def launch(
    url: str,
    *,
    name: str = "llmist",
    executor_id: str | None = None,
    application_version: str | None = None,
    log_level: str = "WARNING",
) -> DBOS:
    """Start DBOS on the system database at ``url`` (see :func:`system_database_url`) and return it.

    Create each :class:`~llmist.durable.DBOSAgent` first: DBOS recovers, as it launches, the
    runs of the workflows registered by then. ``executor_id`` names this process among several
    workers (DBOS's default, ``"local"``, suits one). ``application_version``: DBOS recovers only
    the runs of its own version, by default a hash of the registered workflows' code; give the
    same one to workers whose code differs in ways that do not change a run.
    """
    config: DBOSConfig = {"name": name, "system_database_url": system_database_url(url), "log_level": log_level}
    if executor_id is not None:
        config["executor_id"] = executor_id
    if application_version is not None:
        config["application_version"] = application_version
    dbos = DBOS(config=config)
    DBOS.launch()
    for agent in _AGENTS.values():  # a queue lives in the system database: registered once it is open
        await DBOS.register_queue_async(
            agent.queue_name, global_concurrency=agent.concurrency, worker_concurrency=agent.worker_concurrency
        )
    return dbos


class DurableStream:
    """The events of a durable run as they happen (``async for``); :attr:`result` once it ends.

    The events come from the workflow running in this process; a run already finished, or
    running in another process, has no events here, only its result."""

    def __init__(self, agent: DBOSAgent[Any], prompt: str, workflow_id: str) -> None:
        self._agent, self._prompt = agent, prompt
        self.workflow_id = workflow_id
        """The run's workflow id."""
        self.result: AgentResult[Any] | None = None
        """The run's result, once the stream is exhausted."""

    def __aiter__(self) -> AsyncIterator[object]:
        return self._events()

    async def _events(self) -> AsyncIterator[object]:
        queue: asyncio.Queue[object] = asyncio.Queue()
        _LISTENERS[self.workflow_id] = queue.put_nowait
        try:
            handle = await self._agent.start(self._prompt, workflow_id=self.workflow_id)
            done = asyncio.ensure_future(handle.get_result())
            done.add_done_callback(lambda _: queue.put_nowait(_END))
            while (event := await queue.get()) is not _END:
                yield event
            self.result = done.result()
        finally:
            _LISTENERS.pop(self.workflow_id, None)


async def _recovered(workflow_id: str) -> bool:
    """Whether this execution of the workflow continues an earlier one. Read outside the
    workflow's context: inside it, DBOS would record the answer as a step and replay it."""
    loop = asyncio.get_running_loop()
    status = await loop.run_in_executor(None, contextvars.Context().run, DBOS.get_workflow_status, workflow_id)
    return status is not None and (status.recovery_attempts or 0) > 1


_DBOS: Messenger = DBOS  # its class methods are the protocol's
"""This process's DBOS, as what reads runs' events and sends them messages."""


def workflow_name(name: str) -> str:
    """The DBOS workflow of the DBOSAgent named ``name``."""
    return f"llmist.agent.{name}"


def queue_name(name: str) -> str:
    """The DBOS queue of the DBOSAgent named ``name``."""
    return f"llmist.queue.{name}"


def _workflow_id(workflow_id: str | None) -> str:
    """A run's workflow id, checked; a new one when none is given."""
    if workflow_id is None:
        return uuid.uuid4().hex
    if not isinstance(workflow_id, str) or not workflow_id:
        raise DurableConfigError(f"a workflow id is a non-empty string, got {workflow_id!r}")
    return workflow_id


def _prompt(prompt: str) -> str:
    """A durable run's prompt, checked: DBOS records it, so it is text."""
    if not isinstance(prompt, str):
        raise TypeError(f"a durable run's prompt is text (DBOS records it), got {type(prompt).__name__}")
    return prompt
