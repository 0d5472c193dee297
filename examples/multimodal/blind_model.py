"""Images for a model known not to see them are refused before any request, not dropped."""

from pathlib import Path

from llmist import Agent, ImagePart, ImagesNotSupportedError
from llmist.testing import MockModel

CHART = Path(__file__).with_name("chart.png")

# A text-only model, as the registry knows "o3-mini" to be.
agent = Agent(model=MockModel(["never sent"], vision=False, name="text-only"))
try:
    agent.run_sync(["What is in this chart?", ImagePart.from_path(CHART)])
except ImagesNotSupportedError as error:
    print(error)
