"""Quick start: the same calculator as a class and with create_gadget."""

from typing import Literal

from pydantic import BaseModel

from llmist import ExecutionContext, Gadget, create_gadget, test_gadget


class CalculatorParams(BaseModel):
    operation: Literal["add", "subtract"]
    a: float
    b: float


class Calculator(Gadget):
    description = "Performs arithmetic"
    Params = CalculatorParams

    def execute(self, params: CalculatorParams, ctx: ExecutionContext) -> str:
        return str(params.a + params.b if params.operation == "add" else params.a - params.b)


calculator = create_gadget(
    name="calculator",
    description="Performs arithmetic",
    schema=CalculatorParams,
    execute=lambda p: str(p.a + p.b if p.operation == "add" else p.a - p.b),
)


def main() -> None:
    assert test_gadget(Calculator, {"operation": "add", "a": 2, "b": 3}).result == "5.0"
    assert test_gadget(calculator, {"operation": "subtract", "a": 2, "b": 3}).result == "-1.0"


if __name__ == "__main__":
    main()
