"""An agent with the built-in gadgets, confined to a temporary directory, driven offline by a MockModel."""

import tempfile
from pathlib import Path

from llmist import Agent
from llmist.gadgets.builtins import builtin_gadgets
from llmist.testing import MockModel, block_call

workdir = Path(tempfile.mkdtemp())
model = MockModel([
    block_call("WriteFile", path="hello.py", content='print("hello")', invocation_id="w")
    + block_call("RunCommand", command="python3 hello.py", invocation_id="run", deps=["w"]),
    "It printed hello.",
])  # fmt: skip

agent = Agent(model=model, gadgets=builtin_gadgets(workdir, command_timeout_s=10))
result = agent.run_sync("Write hello.py and run it")

assert [r.result for r in result.gadget_results] == [
    "Wrote 14 characters to hello.py (created)",
    "$ python3 hello.py\nhello\n[exit code 0]",
]
assert result.output == "It printed hello."
