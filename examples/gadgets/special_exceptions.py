"""TaskCompletionSignal ends the loop; HumanInputRequired asks the registered input handler."""

import asyncio

from pydantic import BaseModel

from llmist import ExecutionContext, Gadget, GadgetExecutor, HumanInputRequired, TaskCompletionSignal
from llmist.syntax import ParsedCall


class SummaryParams(BaseModel):
    summary: str


class FinishTask(Gadget):
    description = "Call when task is complete"
    Params = SummaryParams
    exclusive = True  # runs after every call issued before it
    ends_run = True  # the prompt tells the model to end the task by calling it

    def execute(self, params: SummaryParams, ctx: ExecutionContext) -> str:
        raise TaskCompletionSignal(params.summary)


class QuestionParams(BaseModel):
    question: str


class AskUser(Gadget):
    description = "Ask the user a question"
    Params = QuestionParams

    def execute(self, params: QuestionParams, ctx: ExecutionContext) -> str:
        raise HumanInputRequired(params.question)


async def prompt_user(question: str) -> str:
    return "Plan a trip to Lisbon"  # your input function: a terminal prompt, a web form...


async def run() -> None:
    executor = GadgetExecutor([FinishTask, AskUser], on_human_input=prompt_user)
    answer = await executor.execute(ParsedCall("AskUser", "a", "", {"question": "What should I plan?"}, None, ()))
    assert answer.result == "Plan a trip to Lisbon"
    done = await executor.execute(ParsedCall("FinishTask", "f", "", {"summary": "Trip planned"}, None, ()))
    assert done.breaks_loop and done.result == "Trip planned"


def main() -> None:
    asyncio.run(run())


if __name__ == "__main__":
    main()
