"""An agent with the skills of this folder: a scripted model loads one and runs its script."""

import sys
import tempfile
from pathlib import Path

from llmist import Agent
from llmist.gadgets.builtins import RunCommand
from llmist.testing import MockModel, block_call

SKILLS = Path(__file__).resolve().parent  # commit-messages, csv-summary, write-a-gadget
workdir = Path(tempfile.mkdtemp())
(workdir / "sales.csv").write_text("region,units\nnorth,12\nsouth,30\n")

script = SKILLS / "csv-summary" / "scripts" / "summarize.py"
model = MockModel([
    block_call("LoadSkill", name="csv-summary"),  # the instructions say: run scripts/summarize.py
    block_call("RunCommand", command=f"{sys.executable} {script} sales.csv"),
    "sales.csv has 2 rows; units go from 12 to 30.",
])  # fmt: skip
agent = Agent(model=model, gadgets=[RunCommand(workdir)], skills=[SKILLS])
print("- csv-summary: Summarize a CSV file" in agent.system_prompt)  # listed, not loaded
result = agent.run_sync("Summarize sales.csv")
print(result.gadget_results[1].result)
# True
# $ ... sales.csv
# sales.csv: 2 rows, 2 columns
# region: text, 0 empty, 2 distinct, most common: 'north' (1), 'south' (1)
# units: integer, 0 empty, min 12, max 30, mean 21
# [exit code 0]
