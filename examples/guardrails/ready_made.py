"""Ready-made guardrails around the built-in gadgets: no `rm -rf`, writes only under out/.

The mock model plays a model that tries to clean up with `rm -rf`, then writes where it may
not and where it may. Both refusals reach the model as errors; the run goes on.
"""

import asyncio
import tempfile
from pathlib import Path

from llmist import Agent
from llmist.agent.builtin_guardrails import allow_paths, deny_parameters, max_prompt_chars
from llmist.gadgets.builtins import builtin_gadgets
from llmist.testing import MockModel, block_call

script = [
    block_call("RunCommand", command="rm -rf ./*"),
    block_call("WriteFile", path="setup.py", content="oops")
    + block_call("WriteFile", path="out/notes.md", content="ok"),
    "Cleaned up nothing; wrote out/notes.md.",
]


async def main(root: Path) -> None:
    (root / "out").mkdir()
    agent = Agent(
        model=MockModel(script),
        gadgets=builtin_gadgets(root),
        guardrails=[
            max_prompt_chars(20_000),
            deny_parameters(r"\brm\s+-(?=\w*r)(?=\w*f)\w+", gadgets=["RunCommand"]),
            allow_paths("out/", gadgets=["WriteFile", "EditFile"], root=root),
        ],
    )
    result = await agent.run("Tidy the project and write notes.")
    for check in result.guardrails:
        if check.outcome != "pass":
            print(check.describe())
    print(sorted(p.name for p in root.rglob("*")))  # ['notes.md', 'out']


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(main(Path(tmp)))
