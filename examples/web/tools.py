"""Gadgets of the docs/web.md examples: a lookup, and a note writer that needs approval."""

from typing import Annotated, ClassVar

from pydantic import BaseModel, Field

from llmist import Gadget, gadget

CAPITALS = {"france": "Paris", "japan": "Tokyo", "peru": "Lima"}


@gadget(description="The capital city of a country.")
def capital(country: Annotated[str, Field(description="country name")]) -> str:
    return CAPITALS.get(country.lower(), f"unknown country: {country}")


class SaveNote(Gadget):
    """Saves a note; a person approves each call on the page first."""

    description = "Save a note for the user."
    requires_approval: ClassVar[bool] = True

    class Params(BaseModel):
        title: str = Field(description="the note's title")
        text: str = Field(description="the note")

    def execute(self, params: "SaveNote.Params", ctx: object) -> str:
        return f"saved {params.title!r}"
