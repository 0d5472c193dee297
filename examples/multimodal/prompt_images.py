"""Show a model a picture: a prompt is text, or text and images."""

from collections.abc import Sequence
from pathlib import Path

from llmist import Agent, ImagePart
from llmist.providers import Message
from llmist.testing import MockModel

CHART = Path(__file__).with_name("chart.png")


def looks(messages: Sequence[Message]) -> str:
    """Stands in for a vision model: says what images the prompt carried."""
    content = messages[-1].content
    images = [] if isinstance(content, str) else [p for p in content if isinstance(p, ImagePart)]
    return "; ".join(f"I see {image.describe()}" for image in images)


agent = Agent(model=MockModel(looks))  # a real one: Agent(model="gpt-4o"), "sonnet", "flash"...
result = agent.run_sync(
    [
        "What is in these pictures?",
        ImagePart.from_path(CHART),  # read from a file; the type comes from the bytes
        ImagePart.from_url("https://example.com/cat.jpg"),  # the provider fetches it
    ]
)
print(result.output)
