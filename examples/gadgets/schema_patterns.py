"""Schema patterns: basic types, optional fields, arrays, nested objects, descriptions."""

from typing import Annotated, Literal

from pydantic import BaseModel, Field

from llmist import ExecutionContext, Gadget, create_gadget, render_gadget


class SearchParams(BaseModel):
    query: Annotated[str, Field(description="Search query - supports wildcards like * and ?")]
    limit: Annotated[int, Field(ge=1, le=100, description="Maximum number of results to return")] = 10
    format: Annotated[Literal["json", "csv", "xml"], Field(description="Output format for results")] = "json"


search = create_gadget(
    name="search",
    description="Search for items",
    schema=SearchParams,
    execute=lambda p: f"Results for: {p.query}",
)


class Shapes(BaseModel):
    text: str  # basic types
    count: float
    enabled: bool
    choice: Literal["option1", "option2"]
    required: str  # optional fields
    optional: str | None = None
    with_default: str = "default"
    items: list[str]  # arrays
    numbers: list[float]


class NewUser(BaseModel):
    name: Annotated[str, Field(description="Full name of the user")]
    email: Annotated[str, Field(pattern=r"^[^@\s]+@[^@\s]+$", description="Contact email address")]


class AccountOptions(BaseModel):
    notify: Annotated[bool, Field(description="Whether to send welcome email")]
    role: Annotated[Literal["admin", "user", "guest"], Field(description="Permission level")]


class CreateAccountParams(BaseModel):
    user: Annotated[NewUser, Field(description="User information to create")]
    options: Annotated[AccountOptions, Field(description="Account creation options")]


class CreateAccount(Gadget):
    description = "Create a user account"
    Params = CreateAccountParams

    def execute(self, params: CreateAccountParams, ctx: ExecutionContext) -> str:
        return f"created {params.user.name} as {params.options.role}"


def main() -> None:
    text = render_gadget(CreateAccount())
    assert "- user (object, required): User information to create" in text
    assert '  - role ("admin" | "user" | "guest", required): Permission level' in text
    assert "- limit (integer, default 10, >= 1, <= 100): Maximum number of results" in render_gadget(search)
    print(text)


if __name__ == "__main__":
    main()
