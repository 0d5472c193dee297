"""docs/mcp.md: a gadget file to serve with `llmist mcp serve examples/mcp/tools.py`."""

from typing import Annotated

from pydantic import Field

from llmist import gadget


@gadget(timeout_s=5)
def word_count(text: Annotated[str, Field(description="The text to count")]) -> str:
    """Count the words of a text."""
    return str(len(text.split()))
