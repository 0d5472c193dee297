"""Gadget instructions for the system prompt."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

from llmist import ExecutionContext, Gadget, GadgetExample, render_gadget


class User(BaseModel):
    name: str = Field(description="Full name")


class CreateFile(Gadget):
    description = "Create a file"

    class Params(BaseModel):
        path: Annotated[str, Field(description="Where to write")]
        encoding: Literal["utf-8", "latin-1"] = "utf-8"
        owners: list[User] = []
        content: Annotated[str, Field(json_schema_extra={"body": True})] = ""

    examples = (
        GadgetExample(
            params={"path": "script.py", "content": 'print("Hello World")'}, output="written", comment="A script"
        ),
    )

    def execute(self, params: Params, ctx: ExecutionContext) -> str:
        return "written"


def test_parameters_show_type_requirement_default_enum_and_description() -> None:
    text = render_gadget(CreateFile())
    assert "- path (string, required): Where to write" in text
    assert '- encoding ("utf-8" | "latin-1", default "utf-8")' in text


def test_nested_fields_are_indented_under_their_parent() -> None:
    text = render_gadget(CreateFile())
    assert "- owners (array of object, default [])\n  - name (string, required): Full name" in text


def test_block_example_uses_configured_markers() -> None:
    text = render_gadget(CreateFile(), "block", start_prefix="<<S:", end_prefix="<<E", arg_prefix="<<A:")
    assert '<<S:CreateFile\n<<A:path\nscript.py\n<<A:content\nprint("Hello World")\n<<E' in text
    # The example's output stays out of the prompt: a model copies it as its own answer.
    assert "Example (A script):" in text and "written" not in text and "Output:" not in text


def test_emoji_example_puts_body_field_in_the_body() -> None:
    text = render_gadget(CreateFile(), "emoji")
    assert '🛠️[CreateFile script.py]\nprint("Hello World")\n🛠️[/end]' in text


def test_emoji_example_quotes_args_with_spaces() -> None:
    class Greet(Gadget):
        description = "Greet"

        class Params(BaseModel):
            who: str
            times: int = 1

        examples = (GadgetExample(params={"who": "Ada Lovelace", "times": 2}),)

        def execute(self, params: Params, ctx: ExecutionContext) -> str:
            return "hi"

    assert '🛠️[Greet "Ada Lovelace" 2]\n🛠️[/end]' in render_gadget(Greet(), "emoji")
