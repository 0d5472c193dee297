"""HumanInputRequired: the handler's answer becomes the result; without one, an error says so."""

from __future__ import annotations

from llmist import Agent, HumanInputRequired, LLMist, gadget
from llmist.testing import MockModel, block_call


@gadget
def ask_user(question: str) -> str:
    """Ask the user a question."""
    raise HumanInputRequired(question)


SCRIPT = [block_call("ask_user", question="Favourite colour?"), "Noted."]


async def test_sync_handler_answer_becomes_the_result() -> None:
    asked: list[str] = []

    def handler(question: str) -> str:
        asked.append(question)
        return "blue"

    model = MockModel(SCRIPT)
    result = await Agent(model=model, gadgets=[ask_user], on_human_input=handler).run("q")
    assert asked == ["Favourite colour?"]
    assert result.gadget_results[0].result == "blue"
    assert "blue" in model.requests[1].messages[-1].text


async def test_async_handler_from_the_builder() -> None:
    async def handler(question: str) -> str:
        return "green"

    builder = LLMist.create_agent().with_model(MockModel(SCRIPT)).with_gadgets(ask_user).on_human_input(handler)
    result = await builder.build().run("q")
    assert result.gadget_results[0].result == "green"


async def test_without_a_handler_the_call_fails_with_a_clear_error() -> None:
    result = await Agent(model=MockModel(SCRIPT), gadgets=[ask_user]).run("q")
    error = result.gadget_results[0].error
    assert error is not None and "no input handler" in error
