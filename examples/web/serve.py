"""docs/web.md: serve an agent's page from Python (open the address it prints; Ctrl-C stops it).

The model is scripted, so the example runs offline: it looks up two capitals at once, then
saves a note, which waits for your Approve, Edit or Deny on the page.
"""

import os
from typing import Annotated, ClassVar

from pydantic import BaseModel, Field

from llmist import Agent, Gadget, gadget
from llmist.testing import MockModel, block_call
from llmist.web import serve_web


@gadget(description="The capital city of a country.")
def capital(country: Annotated[str, Field(description="country name")]) -> str:
    return {"france": "Paris", "japan": "Tokyo"}.get(country.lower(), "unknown")


class SaveNote(Gadget):
    description = "Save a note for the user."
    requires_approval: ClassVar[bool] = True  # the page asks before each call

    class Params(BaseModel):
        title: str = Field(description="the note's title")
        text: str = Field(description="the note")

    def execute(self, params: "SaveNote.Params", ctx: object) -> str:
        return f"saved {params.title!r}"


script = [
    "Looking both up at once.\n"
    + block_call("capital", invocation_id="fr", country="France")
    + block_call("capital", invocation_id="jp", country="Japan")
    + block_call("SaveNote", invocation_id="note", deps=["fr", "jp"], title="Capitals", text="Paris\nTokyo"),
    "Paris and Tokyo; the note is saved.",
]
agent = Agent(model=MockModel(script, chunk_size=8, delay_s=0.03), gadgets=[capital, SaveNote()])

if __name__ == "__main__":
    serve_web(agent, port=int(os.environ.get("PORT", "8000")), sessions="conversations.db")
