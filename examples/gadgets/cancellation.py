"""Cancellation: the signal fires before the timeout error, so gadgets can clean up."""

import asyncio

from pydantic import BaseModel

from llmist import AbortSignal, ExecutionContext, Gadget, GadgetExecutor
from llmist.syntax import ParsedCall


class FakeBrowser:
    """Stands in for a real browser: opening a page never finishes."""

    def __init__(self) -> None:
        self.closed = False

    async def goto(self, url: str) -> str:
        await asyncio.Event().wait()
        return "<html>"

    def close(self) -> None:
        self.closed = True


opened: list[FakeBrowser] = []


class UrlParams(BaseModel):
    url: str


class BrowserGadget(Gadget):
    description = "Fetches web page content"
    Params = UrlParams
    timeout_s = 0.05  # seconds; short so the example times out quickly

    async def execute(self, params: UrlParams, ctx: ExecutionContext) -> str:
        browser = FakeBrowser()
        opened.append(browser)
        ctx.signal.add_listener(lambda reason: browser.close())  # runs when the timeout fires
        try:
            return await browser.goto(params.url)
        finally:
            browser.close()


class ItemsParams(BaseModel):
    items: list[str]


class DataProcessor(Gadget):
    description = "Processes data in batches"
    Params = ItemsParams

    def execute(self, params: ItemsParams, ctx: ExecutionContext) -> str:  # sync: runs in a worker thread
        results = []
        for item in params.items:
            ctx.signal.throw_if_aborted()  # check before each expensive operation
            results.append(item.upper())
        return ", ".join(results)


async def fetch(url: str, *, signal: AbortSignal) -> str:
    """A client that takes the signal, the way fetch() does, and stops once it fires."""
    signal.throw_if_aborted()
    await asyncio.sleep(0)  # the request
    signal.throw_if_aborted()
    return f"body of {url}"


class Download(Gadget):
    description = "Downloads a URL"
    Params = UrlParams

    async def execute(self, params: UrlParams, ctx: ExecutionContext) -> str:
        return await fetch(params.url, signal=ctx.signal)  # pass the signal on


async def run() -> None:
    executor = GadgetExecutor([BrowserGadget, DataProcessor, Download])
    timed_out = await executor.execute(ParsedCall("BrowserGadget", "b", "", {"url": "https://x"}, None, ()))
    assert timed_out.status == "timeout" and opened[0].closed
    done = await executor.execute(ParsedCall("DataProcessor", "d", "", {"items": ["a", "b"]}, None, ()))
    assert done.result == "A, B"
    body = await executor.execute(ParsedCall("Download", "w", "", {"url": "https://x"}, None, ()))
    assert body.result == "body of https://x"


def main() -> None:
    asyncio.run(run())


if __name__ == "__main__":
    main()
