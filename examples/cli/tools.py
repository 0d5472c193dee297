"""A gadget file for the CLI guide: `llmist gadget run/info/validate` and `llmist agent -g` load it."""

from typing import Annotated

from pydantic import BaseModel, Field

from llmist import Gadget, GadgetExample, gadget


@gadget(description="Add two integers", examples=[GadgetExample({"a": 2, "b": 3}, output="5")])
def add(a: Annotated[int, Field(description="First term")], b: Annotated[int, Field(description="Second term")]) -> str:
    return str(a + b)


class Item(BaseModel):
    name: str
    qty: int = 1


class InvoiceParams(BaseModel):
    customer: str
    items: list[Item]


class Invoice(Gadget):
    description = "Count the items of an order"
    Params = InvoiceParams

    def execute(self, params: InvoiceParams) -> str:
        return f"{params.customer}: {sum(i.qty for i in params.items)} items"
