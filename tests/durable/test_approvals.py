"""A deferred approval waits in DBOS, not in a process: the worker that held the run dies, a new
one recovers it, and the decision given after the restart lets the run finish."""

from __future__ import annotations

import asyncio
import json
import time

import pytest

from llmist.agent.approvals import Decision, UnknownApprovalError
from llmist.durable import DurableClient
from tests.cli.helpers import llmist
from tests.durable.conftest import WAIT_S, Children

pytestmark = pytest.mark.slow


async def _waiting(client: DurableClient, workflow_id: str) -> list[str]:
    deadline = time.monotonic() + WAIT_S
    while not (calls := await client.pending(workflow_id)):
        if time.monotonic() > deadline:
            pytest.fail(f"run {workflow_id} never waited for a decision")
        await asyncio.sleep(0.05)
    return [c.invocation_id for c in calls]


def test_a_decision_given_after_the_worker_restarted_finishes_the_run(children: Children) -> None:
    first = children.start("run", "deal", "--approvals")
    children.wait_for("ready_run", first)  # the system database's tables exist
    with DurableClient(children.url, "crash-test") as client:
        assert asyncio.run(_waiting(client, "deal")) == ["s1"]
        children.kill(first)  # nothing holds the wait now but the system database
        second = children.start("recover", "deal", "--approvals")
        children.wait_for("ready_recover", second)
        asyncio.run(client.decide("deal", "s1", Decision.approve()))
    result = json.loads(children.finish(second).strip().splitlines()[-1])
    assert result["output"] == "Signed the deal."
    assert children.lines("calls.log") == ["sign deal"]  # run once, after the decision
    assert children.lines("requests.log") == ["request 0", "request 1"]  # the paused response not asked again


def test_a_decision_on_a_call_that_does_not_wait_names_those_that_do(children: Children) -> None:
    first = children.start("run", "deal", "--approvals")
    children.wait_for("ready_run", first)  # the system database's tables exist
    with DurableClient(children.url, "crash-test") as client:
        asyncio.run(_waiting(client, "deal"))
        with pytest.raises(UnknownApprovalError, match=r"'nope'.*waiting: s1"):
            asyncio.run(client.decide("deal", "nope", Decision.approve()))
        asyncio.run(client.decide("deal", "s1", Decision.deny("not today")))
    result = json.loads(children.finish(first).strip().splitlines()[-1])
    assert children.lines("calls.log") == []  # denied: never run
    assert result["output"] == "Signed the deal."  # the script's answer; the model read the denial


def test_the_approval_commands_decide_a_durable_run(children: Children) -> None:
    first = children.start("run", "deal", "--approvals")
    children.wait_for("ready_run", first)
    with DurableClient(children.url) as client:
        asyncio.run(_waiting(client, "deal"))
    listed = llmist("approvals", "--durable", children.url, "deal", "--json")
    assert listed.returncode == 0, listed.stderr
    assert [c["invocation_id"] for c in json.loads(listed.stdout)["pending"]] == ["s1"]
    approved = llmist("approve", "--durable", children.url, "deal", "s1")
    assert approved.returncode == 0, approved.stderr
    result = json.loads(children.finish(first).strip().splitlines()[-1])
    assert result["output"] == "Signed the deal."
    assert children.lines("calls.log") == ["sign deal"]


def test_the_approval_commands_name_a_bad_database_url() -> None:
    done = llmist("approvals", "--durable", "mysql://db", "deal")
    assert done.returncode == 2
    assert "not a DBOS system database URL: 'mysql://db'" in done.stderr
