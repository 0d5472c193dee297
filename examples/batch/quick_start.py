"""A batch: one agent over many tasks, results written as they come, a re-run does only what is left."""

import json
import tempfile
from pathlib import Path

from llmist import Agent, gadget
from llmist.batch import Task, run_batch
from llmist.testing import MockModel, block_call


@gadget(description="Count the words of a text")
def count_words(text: str) -> str:
    return str(len(text.split()))


def model_reply(messages):  # a scripted model: call the gadget, then answer with its result
    if messages[-1].role == "user":
        return block_call("count_words", text=messages[-1].text)
    return f"{messages[-1].text.splitlines()[-1]} words"


agent = Agent(model=MockModel(model_reply), gadgets=[count_words])
out = Path(tempfile.mkdtemp()) / "results.jsonl"

tasks = [
    Task("greeting", "hello there"),
    {"id": "motto", "prompt": "one agent many tasks"},
    "a plain prompt gets its position as id",
]
summary = run_batch(agent, tasks, out=out, concurrency=50)
print(summary.message)  # Every task ran; results in .../results.jsonl.

for line in out.read_text().splitlines():
    row = json.loads(line)
    print(row["id"], row["output"], row["stop_reason"], row["usage"]["output_tokens"], row["error"])

again = run_batch(agent, tasks, out=out)
assert again.skipped == 3 and again.succeeded == 0  # ids already done are skipped
assert summary.succeeded == 3
