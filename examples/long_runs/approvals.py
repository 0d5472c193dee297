"""Deferred approvals: a run pauses on a call that needs a person's approval; a decision, later
and from any process, lets the next run of the session go on (docs/approvals.md)."""

import asyncio
import tempfile
from pathlib import Path

from llmist import Agent, gadget
from llmist.agent import Decision, SQLiteSession
from llmist.testing import MockModel, block_call


@gadget
def find_address(name: str) -> str:
    """The email address of a colleague."""
    return f"{name.lower()}@example.com"


@gadget(requires_approval=True)
def send_email(to: str, subject: str) -> str:
    """Send an email (a person approves each one)."""
    return f"Sent {subject!r} to {to}."


def mail_agent(db: Path, *answers: str) -> Agent:
    return Agent(
        model=MockModel(list(answers)),
        gadgets=[find_address, send_email],
        session=SQLiteSession(db, "mail-1"),
        approvals="defer",
    )


async def main(folder: Path) -> None:
    db = folder / "runs.db"
    response = block_call("find_address", invocation_id="who", name="Ada") + block_call(
        "send_email", invocation_id="mail", to="ada@example.com", subject="Lunch?"
    )
    result = await mail_agent(db, response).run("Ask Ada to lunch.")
    print(result.stop_reason)  # awaiting_approval
    for call in result.pending:
        print(call.invocation_id, call.gadget_name, call.parameters)
    # mail send_email {'to': 'ada@example.com', 'subject': 'Lunch?'}

    # Later, from any process: a decision per call (approve, approve with edits, or deny).
    edited = {"to": "ada@example.com", "subject": "Lunch on Friday?"}
    await SQLiteSession(db, "mail-1").decide("mail", Decision.approve(edited))

    # The next run of the session runs the decided call, once, then the model goes on.
    done = await mail_agent(db, "Ada has the invitation.").run(None)
    print(done.gadget_results[0].result.splitlines()[-1])  # Sent 'Lunch on Friday?' to ada@example.com.
    print(done.output)  # Ada has the invitation.


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(main(Path(tmp)))
