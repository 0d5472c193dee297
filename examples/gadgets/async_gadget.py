"""An async gadget with a timeout (a local fake stands in for the HTTP API)."""

import asyncio
import json

from pydantic import BaseModel

from llmist import ExecutionContext, Gadget, test_gadget


async def fetch_json(endpoint: str) -> dict[str, str]:
    await asyncio.sleep(0)
    return {"endpoint": endpoint, "status": "ok"}


class EndpointParams(BaseModel):
    endpoint: str


class APIGadget(Gadget):
    description = "Fetches data from API"
    Params = EndpointParams
    timeout_s = 30  # 30 second timeout

    async def execute(self, params: EndpointParams, ctx: ExecutionContext) -> str:
        data = await fetch_json(params.endpoint)
        return json.dumps(data)


def main() -> None:
    result = test_gadget(APIGadget, {"endpoint": "/users"})
    assert result.result == '{"endpoint": "/users", "status": "ok"}'


if __name__ == "__main__":
    main()
