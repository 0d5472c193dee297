"""docs/web.md: drive an agent over AG-UI, as CopilotKit or any AG-UI client does.

The app is called in-process here (httpx2's ASGI transport); over the network it is the same
POST to /agui, answered with server-sent events.
"""

import asyncio
import json
import tempfile
from pathlib import Path

import httpx2

from llmist import Agent, gadget
from llmist.testing import MockModel, block_call
from llmist.web import to_asgi


@gadget(description="Add two numbers.")
def add(a: int, b: int) -> int:
    return a + b


agent = Agent(model=MockModel([block_call("add", invocation_id="sum", a=2, b=3), "It is 5."]), gadgets=[add])
app = to_asgi(agent, sessions=Path(tempfile.mkdtemp()) / "conversations.db")


run_input = {
    "threadId": "thread-1",
    "runId": "run-1",
    "messages": [{"id": "m1", "role": "user", "content": "What is 2 + 3?"}],
}


async def main() -> None:
    transport = httpx2.ASGITransport(app=app)
    client = httpx2.AsyncClient(transport=transport, base_url="http://127.0.0.1")
    async with client, client.stream("POST", "/agui", json=run_input) as response:
        async for line in response.aiter_lines():
            if line.startswith("data: "):
                event = json.loads(line[6:])
                streamed = event["type"] in ("TOOL_CALL_ARGS", "TEXT_MESSAGE_CONTENT")
                print(event["type"], event["delta"] if streamed else event.get("content", ""))


asyncio.run(main())
# RUN_STARTED
# STATE_SNAPSHOT
# STEP_STARTED
# TOOL_CALL_START
# STATE_DELTA            (the call's status: streaming)
# TOOL_CALL_ARGS {"a":2,"b":3}
# TOOL_CALL_END
# ...                    (STATE_DELTA: queued, running; STEP_FINISHED)
# TOOL_CALL_RESULT 5
# ...
# TEXT_MESSAGE_CONTENT It is 5.
# ...
# RUN_FINISHED
