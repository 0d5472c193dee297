"""ctx.logger: the stdlib logger llmist.gadget.<Name>, with trace and structured fields (docs/gadgets.md)."""

import logging

from pydantic import BaseModel

from llmist import ExecutionContext, Gadget, test_gadget
from llmist.gadgets import TRACE


class EndpointParams(BaseModel):
    endpoint: str


class APIGadget(Gadget):
    description = "Calls external API"
    Params = EndpointParams

    def execute(self, params: EndpointParams, ctx: ExecutionContext) -> str:
        ctx.logger.trace("Resolving %s", params.endpoint)
        ctx.logger.debug("Starting request", {"endpoint": params.endpoint})
        status = 200
        ctx.logger.info("Request completed with status %s", status)
        return f"{params.endpoint}: {status}"


class Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        fields = f" endpoint={record.endpoint}" if hasattr(record, "endpoint") else ""
        self.messages.append(f"{record.levelname} {record.name}: {record.getMessage()}{fields}")


def main() -> None:
    handler = Collect()
    logger = logging.getLogger("llmist.gadget")
    logger.addHandler(handler)
    logger.setLevel(TRACE)
    try:
        assert test_gadget(APIGadget, {"endpoint": "/status"}).result == "/status: 200"
    finally:
        logger.removeHandler(handler)
    assert handler.messages == [
        "TRACE llmist.gadget.APIGadget: Resolving /status",
        "DEBUG llmist.gadget.APIGadget: Starting request endpoint=/status",
        "INFO llmist.gadget.APIGadget: Request completed with status 200",
    ]


if __name__ == "__main__":
    main()
