"""Where each kind of gadget runs: a worker thread, the event loop's thread, or its own task."""

import asyncio
import sys
import threading

from llmist import GadgetExecutor, GadgetScheduler, gadget
from llmist.syntax import ParsedCall

on_loop_thread: dict[str, bool] = {}


@gadget
def read_sensor(sensor: str) -> str:
    """Blocking I/O: runs in a worker thread (the default for sync gadgets)."""
    on_loop_thread["read_sensor"] = threading.current_thread() is threading.main_thread()
    return f"{sensor}: 21.5"


@gadget(inline=True)
def celsius_to_fahrenheit(celsius: float) -> float:
    """Returns in microseconds: runs right on the event loop's thread (opt-in)."""
    on_loop_thread["celsius_to_fahrenheit"] = threading.current_thread() is threading.main_thread()
    return celsius * 9 / 5 + 32


@gadget
async def lookup_unit(name: str) -> str:
    """Async: its own task (on Python 3.12+ started the moment its call is submitted)."""
    on_loop_thread["lookup_unit"] = threading.current_thread() is threading.main_thread()
    return {"temp": "°C"}.get(name, "?")


async def main() -> None:
    scheduler = GadgetScheduler(GadgetExecutor([read_sensor, celsius_to_fahrenheit, lookup_unit]))
    scheduler.submit(ParsedCall("lookup_unit", "u", "", {"name": "temp"}, None, ()))
    # On Python 3.12+ an async gadget that never waits has already finished here, inside submit()
    # (asyncio's eager tasks); on 3.11 it starts at the event loop's next turn.
    early = [r.result for r in scheduler.take_ready()]
    assert early == (["°C"] if sys.version_info >= (3, 12) else [])
    scheduler.submit(ParsedCall("celsius_to_fahrenheit", "f", "", {"celsius": 21.5}, None, ()))
    scheduler.submit(ParsedCall("read_sensor", "s", "", {"sensor": "kitchen"}, None, ()))
    scheduler.close()
    results = {r.invocation_id: r.result async for r in scheduler}
    expected = {"f": "70.7", "s": "kitchen: 21.5"} | ({} if early else {"u": "°C"})
    assert results == expected
    assert on_loop_thread == {"lookup_unit": True, "celsius_to_fahrenheit": True, "read_sensor": False}


if __name__ == "__main__":
    asyncio.run(main())
