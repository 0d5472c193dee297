"""Registering gadgets of every kind, and testing them in isolation."""

from pydantic import BaseModel

from llmist import ExecutionContext, Gadget, GadgetExecutor, create_gadget, gadget, test_gadget, validate_gadget_params


class AddParams(BaseModel):
    a: float
    b: float = 0


class Calculator(Gadget):
    description = "Adds two numbers"
    Params = AddParams

    def execute(self, params: AddParams, ctx: ExecutionContext) -> str:
        return str(params.a + params.b)


@gadget
def weather(city: str) -> str:
    """Get weather for a city."""
    return f"{city}: sunny"


email = create_gadget(name="Email", description="Send an email", schema=AddParams, execute=lambda p: "sent")

# Classes, instances, decorated functions and create_gadget results mix freely.
executor = GadgetExecutor([Calculator, weather, email])


def main() -> None:
    assert sorted(executor.gadgets) == ["Calculator", "Email", "weather"]

    result = test_gadget(Calculator, {"a": 5})  # validates and applies defaults before executing
    assert result.result == "5.0"  # b=0 default applied
    assert result.error is None
    assert result.cost == 0.0

    validation = validate_gadget_params(Calculator, {"a": 5})
    assert validation.success and validation.data == {"a": 5.0, "b": 0.0}


if __name__ == "__main__":
    main()
