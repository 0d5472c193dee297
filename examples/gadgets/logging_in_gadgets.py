"""ctx.logger is a stdlib logger named llmist.gadget.<Name>: configure it like any other."""

import logging

from pydantic import BaseModel

from llmist import ExecutionContext, Gadget, test_gadget


class EndpointParams(BaseModel):
    endpoint: str


class APIGadget(Gadget):
    description = "Calls external API"
    Params = EndpointParams

    def execute(self, params: EndpointParams, ctx: ExecutionContext) -> str:
        ctx.logger.debug("Starting request", extra={"endpoint": params.endpoint})
        status = 200
        ctx.logger.info("Request completed with status %s", status)
        return f"{params.endpoint}: {status}"


class Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(f"{record.name}: {record.getMessage()}")


def main() -> None:
    handler = Collect()
    logger = logging.getLogger("llmist.gadget")
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    try:
        assert test_gadget(APIGadget, {"endpoint": "/status"}).result == "/status: 200"
    finally:
        logger.removeHandler(handler)
    assert handler.messages == [
        "llmist.gadget.APIGadget: Starting request",
        "llmist.gadget.APIGadget: Request completed with status 200",
    ]


if __name__ == "__main__":
    main()
