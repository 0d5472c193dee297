"""Examples are rendered with the schema, in the active call syntax."""

from typing import Annotated, Literal

from pydantic import BaseModel, Field

from llmist import ExecutionContext, Gadget, GadgetExample, create_gadget, render_gadget


class CalcParams(BaseModel):
    operation: Literal["add", "subtract", "multiply", "divide"]
    a: Annotated[float, Field(description="First number")]
    b: Annotated[float, Field(description="Second number")]


calculator = create_gadget(
    name="Calculator",
    description="Performs arithmetic operations",
    schema=CalcParams,
    examples=[GadgetExample(params={"operation": "add", "a": 15, "b": 23}, output="38", comment="Add two numbers")],
    execute=lambda p: str(p.a + p.b),
)


class StringProcessorParams(BaseModel):
    text: str
    operation: Literal["reverse", "uppercase", "lowercase"]


class StringProcessor(Gadget):
    description = "Processes strings"
    Params = StringProcessorParams
    examples = (
        GadgetExample(params={"text": "Hello", "operation": "reverse"}, output="olleH", comment="Reverse a string"),
        GadgetExample(
            params={"text": "hello", "operation": "uppercase"}, output="HELLO", comment="Convert to uppercase"
        ),
    )

    def execute(self, params: StringProcessorParams, ctx: ExecutionContext) -> str:
        if params.operation == "reverse":
            return params.text[::-1]
        return params.text.upper() if params.operation == "uppercase" else params.text.lower()


def main() -> None:
    block = render_gadget(calculator, "block")
    assert "!!!GADGET_START:Calculator\n!!!ARG:operation\nadd\n!!!ARG:a\n15\n!!!ARG:b\n23\n!!!GADGET_END" in block
    # An example's output stays out of the prompt: a model copies it as its own answer.
    assert "Example (Add two numbers):\n!!!GADGET_START:Calculator" in block and "38" not in block
    emoji = render_gadget(StringProcessor(), "emoji")
    assert "Example (Reverse a string):\n🛠️[StringProcessor Hello reverse]\n🛠️[/end]" in emoji
    print(block, emoji, sep="\n\n")


if __name__ == "__main__":
    main()
