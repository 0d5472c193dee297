"""Native tool calls at the provider level: offer a tool, read the model's calls whole, answer them.

Agent(syntax="native") does all of this for you; this is what it sends and receives.
Reads OPENAI_API_KEY (and OPENAI_BASE_URL, if set).
"""

import asyncio
import json

from llmist.providers import LLMClient, LLMRequest, Message, ToolCall, ToolSpec

ADD = ToolSpec(
    "add",
    "Add two integers.",
    {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]},
)


async def main() -> None:
    client = LLMClient(model="gpt-4o")
    conversation = [Message("user", "What is 2 + 3? Use the tool.")]
    calls: list[ToolCall] = []
    async for chunk in client.stream(LLMRequest(model="gpt-4o", messages=conversation, tools=(ADD,))):
        for call in chunk.tool_calls:  # each call arrives once, whole
            print(f"call {call.id}: {call.name}({call.arguments})")
            calls.append(call)
    conversation.append(Message("assistant", "", tool_calls=tuple(calls)))
    for call in calls:
        args = json.loads(call.arguments)
        conversation.append(Message("gadget_result", str(args["a"] + args["b"]), tool_call_id=call.id))
    print(await client.complete(LLMRequest(model="gpt-4o", messages=conversation, tools=(ADD,))))


if __name__ == "__main__":
    asyncio.run(main())
