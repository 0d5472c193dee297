"""``to_a2a(agent)`` answers a2a-sdk's own client: the card, send and stream, tasks, approvals."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from a2a.types import CancelTaskRequest, GetTaskRequest, TaskState

from llmist import Agent, gadget
from llmist.a2a import to_a2a
from llmist.testing import MockModel, block_call
from tests.a2a.remotes import asgi, collect, sdk_client, user_message

BASE = "http://127.0.0.1"


@gadget
def add(a: int, b: int) -> str:
    """Add two numbers."""
    return str(a + b)


@gadget(requires_approval=True)
def send_email(to: str) -> str:
    """Send an email (a person approves each one)."""
    return f"Sent to {to}."


def calculator(*answers: str) -> Agent:
    script = list(answers) or [block_call("add", a=2, b=3), "The sum is 5."]
    return Agent(model=MockModel(script), gadgets=[add], name="calculator", description="Adds numbers.")


def answer_of(task: Any) -> str:
    return "\n".join(p.text for a in task.artifacts for p in a.parts)


async def test_the_card_names_the_agent_and_lists_its_gadgets_as_skills() -> None:
    async with asgi(to_a2a(calculator())) as http:
        card = (await http.get("/.well-known/agent-card.json")).json()
    assert card["name"] == "calculator" and card["description"] == "Adds numbers."
    assert [(s["name"], s["description"]) for s in card["skills"]] == [("add", "Add two numbers.")]
    assert card["capabilities"]["streaming"] is True
    assert card["supportedInterfaces"][0]["url"] == BASE + "/a2a"


async def test_message_send_runs_the_agent_and_returns_the_completed_task_with_its_answer() -> None:
    async with asgi(to_a2a(calculator())) as http:
        client = await sdk_client(http, BASE, streaming=False)
        [response] = await collect(client, user_message("What is 2 + 3?"))
    task = response.task
    assert task.status.state == TaskState.TASK_STATE_COMPLETED
    assert answer_of(task) == "The sum is 5."


async def test_message_stream_reports_each_gadget_call_then_the_answer_as_an_artifact() -> None:
    async with asgi(to_a2a(calculator())) as http:
        client = await sdk_client(http, BASE)
        events = await collect(client, user_message("What is 2 + 3?"))
    kinds = [e.WhichOneof("payload") for e in events]
    assert kinds[0] == "task" and kinds[-1] == "status_update"
    notes = [
        e.status_update.status.message.parts[0].text
        for e in events
        if e.WhichOneof("payload") == "status_update" and e.status_update.status.message.parts
    ]
    assert notes == ["calling add", "add returned: 5"]
    [artifact] = [e.artifact_update.artifact for e in events if e.WhichOneof("payload") == "artifact_update"]
    assert artifact.name == "answer" and artifact.parts[0].text == "The sum is 5."
    assert events[-1].status_update.status.state == TaskState.TASK_STATE_COMPLETED


async def test_a_second_message_in_the_same_context_continues_the_conversation() -> None:
    seen: list[int] = []

    def model(messages: Any) -> str:
        seen.append(len(messages))
        return f"answer {len(seen)}"

    agent = Agent(model=MockModel(model), name="echo", description="Answers.")
    async with asgi(to_a2a(agent)) as http:
        client = await sdk_client(http, BASE, streaming=False)
        [first] = await collect(client, user_message("one"))
        [second] = await collect(client, user_message("two", context_id=first.task.context_id))
        got = await client.get_task(GetTaskRequest(id=first.task.id))
    assert answer_of(second.task) == "answer 2"
    assert seen[1] > seen[0]  # the second call saw the first exchange
    assert answer_of(got) == "answer 1"  # tasks are kept while the server runs


def mailer(*answers: Any) -> Agent:
    script = answers[0] if answers and callable(answers[0]) else list(answers)
    return Agent(model=MockModel(script), gadgets=[send_email], name="mailer", description="Sends mail.")


ASK = block_call("send_email", invocation_id="mail", to="ada@example.com")


async def test_a_call_that_needs_approval_leaves_the_task_input_required_and_approve_resumes_it() -> None:
    app = to_a2a(mailer(ASK, "Ada has the email."))
    async with asgi(app) as http:
        client = await sdk_client(http, BASE, streaming=False)
        [paused] = await collect(client, user_message("Email Ada."))
        task = paused.task
        assert task.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
        assert "send_email" in task.status.message.parts[0].text and "approve" in task.status.message.parts[0].text
        [done] = await collect(client, user_message("approve", task_id=task.id, context_id=task.context_id))
    assert done.task.status.state == TaskState.TASK_STATE_COMPLETED
    assert answer_of(done.task) == "Ada has the email."


async def test_deny_resumes_without_running_the_call_and_the_model_reads_why() -> None:
    seen: list[str] = []

    def model(messages: Any) -> str:
        seen.append(str(messages[-1].content))
        return ASK if len(seen) == 1 else "I did not send it."

    async with asgi(to_a2a(mailer(model))) as http:
        client = await sdk_client(http, BASE, streaming=False)
        [paused] = await collect(client, user_message("Email Ada."))
        t = paused.task
        [done] = await collect(client, user_message("deny not today", task_id=t.id, context_id=t.context_id))
    assert answer_of(done.task) == "I did not send it."
    assert "not today" in seen[-1]


async def test_a_reply_that_is_no_decision_keeps_the_task_waiting() -> None:
    async with asgi(to_a2a(mailer(ASK, "sent"))) as http:
        client = await sdk_client(http, BASE, streaming=False)
        [paused] = await collect(client, user_message("Email Ada."))
        t = paused.task
        [again] = await collect(client, user_message("hmm?", task_id=t.id, context_id=t.context_id))
    assert again.task.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
    assert "neither 'approve' nor 'deny'" in again.task.status.message.parts[0].text


async def test_with_a_session_db_a_waiting_task_survives_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "a2a.db"
    first = to_a2a(mailer(ASK), session_db=db)
    async with asgi(first) as http:
        client = await sdk_client(http, BASE, streaming=False)
        [paused] = await collect(client, user_message("Email Ada."))
    await first.aclose()  # the server stops; a new one starts on the same file
    second = to_a2a(mailer("Ada has the email."), session_db=db)
    async with asgi(second) as http:
        client = await sdk_client(http, BASE, streaming=False)
        t = await client.get_task(GetTaskRequest(id=paused.task.id))
        assert t.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
        [done] = await collect(client, user_message("approve", task_id=t.id, context_id=t.context_id))
    await second.aclose()
    assert done.task.status.state == TaskState.TASK_STATE_COMPLETED
    assert answer_of(done.task) == "Ada has the email."


async def test_a_run_that_raises_leaves_the_task_failed_with_the_error() -> None:
    @gadget
    def boom() -> str:
        """Fails."""
        raise RuntimeError("unreachable")

    def model(messages: Any) -> str:
        raise ValueError("the model is down")

    async with asgi(to_a2a(Agent(model=MockModel(model), gadgets=[boom]))) as http:
        client = await sdk_client(http, BASE, streaming=False)
        [response] = await collect(client, user_message("hi"))
    assert response.task.status.state == TaskState.TASK_STATE_FAILED
    assert "the model is down" in response.task.status.message.parts[0].text


async def test_the_0_3_method_names_are_answered_too() -> None:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "message/send",
        "params": {"message": {"role": "user", "messageId": "m1", "parts": [{"kind": "text", "text": "2 + 3?"}]}},
    }
    async with asgi(to_a2a(calculator())) as http:
        answer = (await http.post("/a2a", json=body)).json()
    assert answer["result"]["status"]["state"] == "completed"
    assert answer["result"]["artifacts"][0]["parts"][0]["text"] == "The sum is 5."


async def test_cancel_task_cancels_the_run_and_the_task_ends_canceled() -> None:
    slow = Agent(model=MockModel(lambda _: "word " * 200, chunk_size=5, delay_s=0.02), name="slow")
    async with asgi(to_a2a(slow)) as http:
        client = await sdk_client(http, BASE, streaming=False)
        request = user_message("Talk.")
        request.configuration.return_immediately = True  # the task comes back while it runs
        [started] = await collect(client, request)
        cancelled = await client.cancel_task(CancelTaskRequest(id=started.task.id))
        got = await client.get_task(GetTaskRequest(id=started.task.id))
    assert cancelled.status.state == TaskState.TASK_STATE_CANCELED
    assert got.status.state == TaskState.TASK_STATE_CANCELED and not got.artifacts
