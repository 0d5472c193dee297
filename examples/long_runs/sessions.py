"""A session: the conversation is saved after every iteration and the next run continues it."""

import asyncio
import tempfile
from pathlib import Path

from llmist import Agent
from llmist.agent import SQLiteSession
from llmist.testing import MockModel


async def main(folder: Path) -> None:
    db = folder / "runs.db"

    agent = Agent(model=MockModel(["Noted: 42."]), session=SQLiteSession(db, "chat-42"))
    await agent.run("Remember the number 42.")

    # Later, maybe in another process: the same file and session id continue the conversation.
    model = MockModel(["You asked me to remember 42."])
    agent = Agent(model=model, session=SQLiteSession(db, "chat-42"))
    result = await agent.run("Which number?")
    print(result.output)  # You asked me to remember 42.
    print([m.text for m in model.requests[0].messages[1:]])
    # ['Remember the number 42.', 'Noted: 42.', 'Which number?']


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(main(Path(tmp)))
