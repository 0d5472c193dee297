"""A gadget returns an image beside its text; the next turn shows it to a model that sees."""

from pathlib import Path

from llmist import Agent, GadgetMedia, GadgetResult, gadget
from llmist.providers import ImagePart
from llmist.testing import MockModel

CHART = Path(__file__).with_name("chart.png")


@gadget(description="Plot numbers as a chart.")
def plot(numbers: str) -> GadgetResult:
    # A real gadget would draw the chart; the media may be an image, a sound or any file.
    return GadgetResult(f"Plotted {numbers}.", media=[GadgetMedia.from_path(CHART)])


CALL = "!!!GADGET_START:plot\n!!!ARG:numbers\n1,2,3\n!!!GADGET_END\n"

for vision in (True, False):
    model = MockModel([CALL, "The line rises."], vision=vision)
    result = Agent(model=model, gadgets=[plot]).run_sync("Plot 1,2,3 and describe the chart.")
    print(f"gadget media: {[m.describe() for m in result.gadget_results[0].media]}")
    sent = model.requests[1].messages[-1]  # what the model read in its second turn
    if isinstance(sent.content, str):
        print(f"vision={vision}: described -> {sent.content.splitlines()[-1]}")
    else:
        images = [p for p in sent.content if isinstance(p, ImagePart)]
        print(f"vision={vision}: shown as {len(images)} image(s), {images[0].media_type}")
