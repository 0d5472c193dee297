"""One conversation with native tool calls, shared by each provider's tool-call tests.

Two parallel calls (one answered with text and an image), then a call whose gadget failed.
"""

from __future__ import annotations

from llmist.providers.base import ImagePart, Message, TextPart, ToolCall, ToolSpec

ADD = ToolSpec(
    "add",
    "Add two numbers.",
    {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        "required": ["a", "b"],
    },
)
PLOT = ToolSpec(
    "plot",
    "Draw a series.",
    {
        "type": "object",
        "properties": {"points": {"type": "array", "items": {"$ref": "#/$defs/Point"}}},
        "required": ["points"],
        "$defs": {"Point": {"type": "object", "properties": {"x": {"type": "number"}, "y": {"type": "number"}}}},
    },
)
TOOLS = (ADD, PLOT)

CALL_ADD = ToolCall("call_add", "add", '{"a": 2, "b": 3}')
CALL_PLOT = ToolCall("call_plot", "plot", '{"points": [{"x": 1, "y": 2}]}')
CALL_DIVIDE = ToolCall("call_div", "divide", '{"a": 1, "b": 0}')
IMAGE = ImagePart(b"\x89PNG", "image/png")

CONVERSATION = [
    Message("system", "Rules."),
    Message("user", "Add 2 and 3, then plot it."),
    Message("assistant", "Calling both.", tool_calls=(CALL_ADD, CALL_PLOT)),
    Message("gadget_result", "5", tool_call_id="call_add"),
    Message("gadget_result", (TextPart("Plot drawn."), IMAGE), tool_call_id="call_plot"),
    Message("assistant", "", tool_calls=(CALL_DIVIDE,)),
    Message("gadget_result", "Error in divide: division by zero", tool_call_id="call_div"),
]
"""The conversation each provider must send in its API's own tool-call form."""
