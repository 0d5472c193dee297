"""The gadgets of the built-in suite: small, deterministic, with answers a grader can check.

Gadgets with state (one that fails once, a note store) are made fresh for every run by the
``*_gadgets`` factories, so runs never see each other.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import BaseModel, Field, field_validator

from llmist.gadgets import ExecutionContext, Gadget, GadgetExample, ModelRetry, TaskCompletionSignal, gadget

_WEATHER = {"paris": "18°C, sunny", "tokyo": "24°C, cloudy", "oslo": "-3°C, snow", "lima": "21°C, mist"}
_CAPITALS = {"australia": "Canberra", "france": "Paris", "japan": "Tokyo", "canada": "Ottawa", "italy": "Rome"}
_ORDERS = {"007": "Order 007: 3 blue widgets, shipped", "7": "Order 7: 1 red gadget, pending"}
_BODY = {"body": True}
_DEF = re.compile(r"^\s*(?:async\s+)?def\s", re.MULTILINE)


@gadget(description="Add two integers.", examples=[GadgetExample({"a": 2, "b": 3}, "5", "Use add to compute 2 + 3.")])
def add(a: Annotated[int, Field(description="First number")], b: Annotated[int, Field(description="Second")]) -> str:
    """Their sum."""
    return str(a + b)


@gadget(description="Multiply two numbers.", examples=[GadgetExample({"a": 3, "b": 1.5}, "4.5", "Multiply 3 by 1.5.")])
def multiply(
    a: Annotated[float, Field(description="First number")], b: Annotated[float, Field(description="Second")]
) -> str:
    """Their product (integers shown without a decimal point)."""
    product = a * b
    return str(int(product)) if product.is_integer() else str(product)


@gadget(
    description="Current weather of a city.",
    examples=[GadgetExample({"city": "Lima"}, "Lima: 21°C, mist", "What is the weather in Lima?")],
)
def get_weather(city: Annotated[str, Field(description="City name")]) -> str:
    """The weather, or an error naming the known cities."""
    found = _WEATHER.get(city.strip().lower())
    if found is None:
        raise ValueError(f"no weather for {city!r}; known cities: {', '.join(sorted(_WEATHER))}")
    return f"{city.strip().title()}: {found}"


@gadget(
    description="Capital city of a country.",
    examples=[GadgetExample({"country": "Peru"}, "Lima", "What is the capital of Peru?")],
)
def capital_of(country: Annotated[str, Field(description="Country name")]) -> str:
    """The capital, or an error naming the known countries."""
    found = _CAPITALS.get(country.strip().lower())
    if found is None:
        raise ValueError(f"unknown country {country!r}; known: {', '.join(sorted(_CAPITALS))}")
    return found


@gadget(
    description="Reverse the characters of a text.",
    examples=[GadgetExample({"text": "abc"}, "cba", "Reverse the text abc.")],
)
def reverse_text(text: Annotated[str, Field(description="Text to reverse")]) -> str:
    """The text backwards."""
    return text[::-1]


@gadget(
    description="Turn a feature flag on or off.",
    examples=[GadgetExample({"name": "beta", "enabled": False}, "flag beta is now OFF", "Turn the flag beta off.")],
)
def set_flag(
    name: Annotated[str, Field(description="Flag name")], enabled: Annotated[bool, Field(description="true or false")]
) -> str:
    """A confirmation."""
    return f"flag {name} is now {'ON' if enabled else 'OFF'}"


@gadget(
    description="Look up an order by its id (ids are strings: keep leading zeros).",
    examples=[GadgetExample({"order_id": "7"}, "Order 7: 1 red gadget, pending", "Look up order 7.")],
)
def lookup_order(order_id: Annotated[str, Field(description="Order id, exactly as given")]) -> str:
    """The order, or an error."""
    found = _ORDERS.get(order_id.strip())
    if found is None:
        raise ValueError(f"no order {order_id!r}")
    return found


@gadget(
    description="Repeat a word a number of times, joined without spaces.",
    examples=[GadgetExample({"word": "ab", "times": 2}, "abab", "Repeat ab twice.")],
)
def repeat_word(
    word: Annotated[str, Field(description="The word")], times: Annotated[int, Field(description="How often")]
) -> str:
    """The repeated word."""
    return word.strip() * times


@gadget(
    description="Count the lines of a text.",
    examples=[GadgetExample({"text": "one\ntwo"}, "2 lines", "Count the lines of: one, two.")],
)
def count_lines(text: Annotated[str, Field(description="The text, one item per line", json_schema_extra=_BODY)]) -> str:
    """How many non-empty lines."""
    return f"{sum(1 for line in text.splitlines() if line.strip())} lines"


@gadget(
    description="Count the Python functions (def statements) in some code.",
    examples=[GadgetExample({"code": "def f():\n    pass"}, "1 functions", "How many functions in: def f(): pass")],
)
def count_functions(code: Annotated[str, Field(description="Python source code", json_schema_extra=_BODY)]) -> str:
    """How many ``def`` lines."""
    return f"{len(_DEF.findall(code))} functions"


@gadget(description="Sum a list of numbers.", examples=[GadgetExample({"numbers": [1, 2]}, "3", "Sum 1 and 2.")])
def sum_numbers(numbers: Annotated[list[float], Field(description="The numbers", json_schema_extra=_BODY)]) -> str:
    """The sum (integers shown without a decimal point)."""
    total = float(sum(numbers))
    return str(int(total)) if total.is_integer() else str(total)


@gadget(
    description="Largest of a list of numbers.",
    examples=[GadgetExample({"numbers": [4, 9]}, "9", "Which is larger, 4 or 9?")],
)
def max_of(numbers: Annotated[list[float], Field(description="The numbers", json_schema_extra=_BODY)]) -> str:
    """The largest number."""
    top = max(numbers)
    return str(int(top)) if top.is_integer() else str(top)


class Person(BaseModel):
    """A user to register."""

    name: Annotated[str, Field(description="Full name")]
    age: Annotated[int, Field(description="Age in years")]


@gadget(
    description="Register a user; returns the new user's id.",
    examples=[
        GadgetExample(
            {"user": {"name": "Bo Li", "age": 20}}, "registered Bo Li (20) as user #120", "Register Bo Li, aged 20."
        )
    ],
)
def register_user(user: Annotated[Person, Field(description="The user: name and age")]) -> str:
    """An id made from the user."""
    return f"registered {user.name.strip()} ({user.age}) as user #{100 + user.age}"


class MeetingParams(BaseModel):
    """A meeting to book."""

    date: Annotated[str, Field(description="Day of the meeting")]
    hour: Annotated[int, Field(description="Hour (0-23)", ge=0, le=23)]

    @field_validator("date")
    @classmethod
    def _iso(cls, value: str) -> str:
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value.strip()):
            raise ValueError("must be written YYYY-MM-DD, for example 2025-03-05")
        return value.strip()


class BookMeeting(Gadget):
    """Books a meeting (dates must be ISO)."""

    name = "book_meeting"
    description = "Book a meeting on a date at an hour."
    Params = MeetingParams
    examples = (
        GadgetExample(
            {"date": "2024-12-01", "hour": 9},
            "meeting booked on 2024-12-01 at 9:00",
            "Book a meeting on 1 December 2024 at 9 am.",
        ),
    )

    def execute(self, params: MeetingParams, ctx: ExecutionContext) -> str:
        """A confirmation."""
        return f"meeting booked on {params.date} at {params.hour}:00"


@gadget(
    description="Convert a temperature from Celsius.",
    examples=[GadgetExample({"celsius": 0, "unit": "K"}, "273.15 K", "Convert 0 °C to Kelvin.")],
)
def convert_temperature(
    celsius: Annotated[float, Field(description="Degrees Celsius")],
    unit: Annotated[Literal["F", "K"], Field(description="Target unit")],
) -> str:
    """The converted temperature."""
    value = celsius * 9 / 5 + 32 if unit == "F" else celsius + 273.15
    return f"{value:g} {unit}"


@gadget(
    description="Look up a ticket by its id.",
    examples=[GadgetExample({"ticket_id": "TCK-5"}, "TCK-5: wifi is down (status: closed)", "What is ticket 5 about?")],
)
def get_ticket(ticket_id: Annotated[str, Field(description="Ticket id", pattern=r"^TCK-\d+$")]) -> str:
    """The ticket."""
    return f"{ticket_id}: printer on floor 3 is jammed (status: open)"


def flaky_gadgets(name: str, description: str, answer: str) -> list[object]:
    """One gadget that fails its first call with a temporary error and then answers ``answer``."""
    calls = {"n": 0}

    @gadget(name=name, description=description, examples=[GadgetExample({"key": "demo"}, answer.format(key="demo"))])
    def flaky(key: Annotated[str, Field(description="What to look up")]) -> str:
        calls["n"] += 1
        if calls["n"] == 1:
            raise ConnectionError("temporary network failure, try the same call again")
        return answer.format(key=key.strip())

    return [flaky]


def retry_gadgets() -> list[object]:
    """A seat booking that asks for one retry (``ModelRetry``) before it succeeds."""
    calls = {"n": 0}

    @gadget(
        description="Reserve a seat on the train.",
        examples=[GadgetExample({"seat": "3C"}, "seat 3C reserved, confirmation R-277", "Reserve seat 3C.")],
    )
    def reserve_seat(seat: Annotated[str, Field(description="Seat, like 12A")]) -> str:
        calls["n"] += 1
        if calls["n"] == 1:
            raise ModelRetry("the booking system was busy; send the same call again")
        return f"seat {seat.strip()} reserved, confirmation R-{len(seat.strip())}77"

    return [reserve_seat]


def note_gadgets() -> list[object]:
    """``save_note`` and ``read_note`` sharing one store (a read needs the save first)."""
    notes: dict[str, str] = {}

    @gadget(
        description="Save a note under a key.", examples=[GadgetExample({"key": "a", "text": "hi"}, "saved note 'a'")]
    )
    def save_note(
        key: Annotated[str, Field(description="Key")], text: Annotated[str, Field(description="Note")]
    ) -> str:
        notes[key.strip()] = text.strip()
        return f"saved note {key.strip()!r}"

    @gadget(description="Read the note saved under a key.")
    def read_note(key: Annotated[str, Field(description="Key")]) -> str:
        found = notes.get(key.strip())
        if found is None:
            raise KeyError(f"no note {key.strip()!r} yet: save it first")
        return found

    return [save_note, read_note]


def folder_gadgets() -> list[object]:
    """``make_folder`` and ``save_file`` (which needs the folder to exist)."""
    folders: set[str] = set()

    @gadget(
        description="Create a folder.",
        examples=[GadgetExample({"name": "tmp"}, "created folder tmp", "Create the folder tmp.")],
    )
    def make_folder(name: Annotated[str, Field(description="Folder name")]) -> str:
        folders.add(name.strip())
        return f"created folder {name.strip()}"

    @gadget(description="Save a file into an existing folder.")
    def save_file(
        folder: Annotated[str, Field(description="Folder")],
        filename: Annotated[str, Field(description="File name")],
        content: Annotated[str, Field(description="Content", json_schema_extra=_BODY)],
    ) -> str:
        if folder.strip() not in folders:
            raise FileNotFoundError(f"folder {folder.strip()!r} does not exist: create it first")
        return f"wrote {len(content)} characters to {folder.strip()}/{filename.strip()}"

    return [make_folder, save_file]


def counter_gadgets() -> list[object]:
    """``start_counter`` and ``count_to`` (which needs a started counter)."""
    started: set[str] = set()

    @gadget(
        description="Start a named counter at zero.", examples=[GadgetExample({"name": "x"}, "counter x started at 0")]
    )
    def start_counter(name: Annotated[str, Field(description="Counter name")]) -> str:
        started.add(name.strip())
        return f"counter {name.strip()} started at 0"

    @gadget(description="Advance a started counter to a number.")
    def count_to(
        name: Annotated[str, Field(description="Counter name")], n: Annotated[int, Field(description="Target")]
    ) -> str:
        if name.strip() not in started:
            raise RuntimeError(f"counter {name.strip()!r} was not started")
        return f"counter {name.strip()} is at {n}"

    return [start_counter, count_to]


@gadget(description="Read the server log (long).")
def read_server_log() -> str:
    """300 log lines, one of them the error."""
    lines = [f"2025-01-01 10:{i // 60:02d}:{i % 60:02d} INFO request {i} served in {i % 7 + 1}ms" for i in range(300)]
    lines[217] = "2025-01-01 10:03:37 ERROR disk full on /var/data"
    return "\n".join(lines)


@gadget(description="List every user of the system (long).")
def list_users() -> str:
    """250 users, one line each."""
    rows = [f"id={4000 + i} name=user{i} role=viewer" for i in range(250)]
    rows[142] = "id=4142 name=Grace Hopper role=admin"
    return "\n".join(rows)


@gadget(
    description="Finish the task: give the final answer. Call it once, at the end.",
    examples=[GadgetExample({"answer": "Lima"}, "Lima", "Give the final answer Lima with finish.")],
    ends_run=True,
)
def finish(answer: Annotated[str, Field(description="The final answer")]) -> str:
    """Ends the run with ``answer``."""
    raise TaskCompletionSignal(answer.strip())


__all__ = [
    "BookMeeting",
    "add",
    "capital_of",
    "convert_temperature",
    "count_functions",
    "count_lines",
    "counter_gadgets",
    "finish",
    "flaky_gadgets",
    "folder_gadgets",
    "get_ticket",
    "get_weather",
    "list_users",
    "lookup_order",
    "max_of",
    "multiply",
    "note_gadgets",
    "read_server_log",
    "register_user",
    "repeat_word",
    "retry_gadgets",
    "reverse_text",
    "set_flag",
    "sum_numbers",
]
