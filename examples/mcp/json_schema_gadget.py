"""docs/mcp.md: a gadget whose schema is a JSON-schema dict, as MCP tools have."""

from llmist import create_gadget, test_gadget


def greet(params: dict[str, object]) -> str:
    return f"Hello, {params['name']}!" * int(str(params["times"]))  # "times" is filled from its default


hello = create_gadget(
    name="greet",
    description="Greet someone.",
    schema={
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "Who to greet"},
            "times": {"type": "integer", "default": 1},
        },
        "required": ["name"],
    },
    execute=greet,
)

print(test_gadget(hello, {"name": "Ada", "times": "2"}).result)  # Hello, Ada!Hello, Ada!
print(test_gadget(hello, {}).error)  # Invalid parameters for greet: - name: missing (required) ...
