"""The built-in suite: 31 tasks over every kind of call a model must get right.

Categories: ``single`` (one call), ``coercion`` (values a schema must coerce), ``multiline``
(code and text bodies), ``nested`` (objects and lists), ``parallel`` (two independent calls in
one response), ``dependency`` (a call waiting for another by invocation id; block syntax only),
``validation`` (recovering from a rejected call), ``fails_once`` (a gadget failing once),
``output_viewer`` (an output too long for the context, read back with ``GadgetOutputViewer``;
not in the emoji syntax, whose header cannot hold the viewer's pattern list) and
``completion`` (ending with ``TaskCompletionSignal``). Each case has a reference solution.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import partial
from typing import Any

from llmist.evals import _gadgets as g
from llmist.evals.case import Call, EvalCase, EvalSuite, ExpectedCall, SyntaxName

__all__ = ["BUILTIN_SUITE", "builtin_suite"]

_E = ExpectedCall
_BLOCK: tuple[SyntaxName, ...] = ("block",)
_NO_EMOJI: tuple[SyntaxName, ...] = ("block", "native")
_POEM = "Roses are red\nViolets are blue\nSugar is sweet\nAnd so are you"
_CODE = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n"
_SMALL_CONTEXT = {"context_window": 8000}  # output limit of 4,800 characters: the long outputs are stored


def _view(regex: str, last: str) -> tuple[Call, ...]:
    """The viewer call for the stored output named in ``last``."""
    found = re.search(r'id "([^"]+)"', last)
    output_id = found.group(1) if found else "missing"
    return (Call("GadgetOutputViewer", {"id": output_id, "patterns": [{"regex": regex}]}),)


def _hello_script(params: Mapping[str, Any]) -> bool:
    content = str(params.get("content"))
    return "import sys" in content and "print" in content


def _single() -> list[EvalCase]:
    return [
        EvalCase("add_numbers", "single", "Use the add gadget to compute 1234 + 5678. Then tell me the result.",
                 [g.add], answer=("6912",), calls=(_E("add", {"a": 1234, "b": 5678}),),
                 solution=((Call("add", {"a": 1234, "b": 5678}),), "1234 + 5678 = 6912")),
        EvalCase("weather_paris", "single", "What is the weather in Paris right now? Use get_weather.",
                 [g.get_weather], answer=("18",), calls=(_E("get_weather", {"city": "Paris"}),),
                 solution=((Call("get_weather", {"city": "Paris"}),), "In Paris it is 18°C and sunny.")),
        EvalCase("capital_canada", "single", "Use capital_of to find the capital of Canada, then answer.",
                 [g.capital_of], answer=("Ottawa",), calls=(_E("capital_of", {"country": "Canada"}),),
                 solution=((Call("capital_of", {"country": "Canada"}),), "The capital of Canada is Ottawa.")),
        EvalCase("reverse_word", "single", "Reverse the text 'llmist' with reverse_text and tell me the result.",
                 [g.reverse_text], answer=("tsimll",), calls=(_E("reverse_text", {"text": "llmist"}),),
                 solution=((Call("reverse_text", {"text": "llmist"}),), "Reversed: tsimll")),
    ]  # fmt: skip


def _coercion() -> list[EvalCase]:
    return [
        EvalCase("multiply_decimal", "coercion", "Multiply 2.5 by 4 with the multiply gadget and give the result.",
                 [g.multiply], answer=("10",), calls=(_E("multiply", {"a": 2.5, "b": 4}),),
                 solution=((Call("multiply", {"a": 2.5, "b": 4}),), "2.5 × 4 = 10")),
        EvalCase("flag_on", "coercion", "Turn the feature flag dark_mode on with set_flag, then confirm.",
                 [g.set_flag], answer=("on",), calls=(_E("set_flag", {"name": "dark_mode", "enabled": True}),),
                 solution=((Call("set_flag", {"name": "dark_mode", "enabled": True}),), "dark_mode is now ON.")),
        EvalCase("order_leading_zero", "coercion", "Look up order 007 with lookup_order. What does it contain?",
                 [g.lookup_order], answer=("blue widgets",), calls=(_E("lookup_order", {"order_id": "007"}),),
                 solution=((Call("lookup_order", {"order_id": "007"}),), "Order 007 holds 3 blue widgets.")),
        EvalCase("repeat_ha", "coercion", "Use repeat_word to repeat the word 'ha' 3 times and show the result.",
                 [g.repeat_word], answer=("hahaha",), calls=(_E("repeat_word", {"word": "ha", "times": 3}),),
                 solution=((Call("repeat_word", {"word": "ha", "times": 3}),), "hahaha")),
    ]  # fmt: skip


def _multiline() -> list[EvalCase]:
    return [
        EvalCase("count_poem_lines", "multiline",
                 f"Count the lines of this poem with count_lines (pass the whole poem):\n\n{_POEM}",
                 [g.count_lines], answer=("4",),
                 calls=(_E("count_lines", check=lambda p: "Sugar is sweet" in str(p.get("text"))),),
                 solution=((Call("count_lines", {"text": _POEM}),), "The poem has 4 lines.")),
        EvalCase("count_code_functions", "multiline",
                 f"How many functions does this code define? Pass the code to count_functions.\n\n{_CODE}",
                 [g.count_functions], answer=("3",),
                 calls=(_E("count_functions", check=lambda p: "def mul" in str(p.get("code"))),),
                 solution=((Call("count_functions", {"code": _CODE}),), "It defines 3 functions.")),
        EvalCase("save_script", "multiline",
                 "Create the folder 'scripts', then save a file hello.py in it containing exactly two lines: "
                 "import sys, then print('hello'). Use make_folder first, then save_file.",
                 g.folder_gadgets, answer=("hello.py",),
                 calls=(_E("save_file", {"folder": "scripts", "filename": "hello.py"}, check=_hello_script),),
                 solution=((Call("make_folder", {"name": "scripts"}),),
                           (Call("save_file", {"folder": "scripts", "filename": "hello.py",
                                               "content": "import sys\nprint('hello')"}),),
                           "Saved scripts/hello.py.")),
    ]  # fmt: skip


def _nested() -> list[EvalCase]:
    return [
        EvalCase("sum_list", "nested", "Sum the numbers 3, 5, 8 and 13 with sum_numbers.",
                 [g.sum_numbers], answer=("29",), calls=(_E("sum_numbers", {"numbers": [3, 5, 8, 13]}),),
                 solution=((Call("sum_numbers", {"numbers": [3, 5, 8, 13]}),), "The sum is 29.")),
        EvalCase("max_list", "nested", "Which is the largest of 42, 7, 99 and 15? Use max_of.",
                 [g.max_of], answer=("99",), calls=(_E("max_of", {"numbers": [42, 7, 99, 15]}),),
                 solution=((Call("max_of", {"numbers": [42, 7, 99, 15]}),), "The largest is 99.")),
        EvalCase("register_ada", "nested", "Register the user Ada Lovelace, aged 36, with register_user. "
                 "What is her user number?",
                 [g.register_user], answer=("136",),
                 calls=(_E("register_user", {"user": {"name": "Ada Lovelace", "age": 36}}),),
                 solution=((Call("register_user", {"user": {"name": "Ada Lovelace", "age": 36}}),),
                           "Ada Lovelace is user #136.")),
    ]  # fmt: skip


def _parallel() -> list[EvalCase]:
    return [
        EvalCase("weather_two_cities", "parallel",
                 "Get the weather in Tokyo and in Oslo. Call get_weather for both cities in the same answer.",
                 [g.get_weather], answer=("24", "-3"), same_response=True,
                 calls=(_E("get_weather", {"city": "Tokyo"}), _E("get_weather", {"city": "Oslo"})),
                 solution=((Call("get_weather", {"city": "Tokyo"}), Call("get_weather", {"city": "Oslo"})),
                           "Tokyo: 24°C, cloudy. Oslo: -3°C, snow.")),
        EvalCase("add_and_multiply", "parallel",
                 "In one answer, compute 17 + 25 with add and 6 × 7 with multiply.",
                 [g.add, g.multiply], answer=("42",), same_response=True,
                 calls=(_E("add", {"a": 17, "b": 25}), _E("multiply", {"a": 6, "b": 7})),
                 solution=((Call("add", {"a": 17, "b": 25}), Call("multiply", {"a": 6, "b": 7})),
                           "Both give 42.")),
        EvalCase("two_capitals", "parallel",
                 "Find the capitals of France and Japan with capital_of, both calls in the same answer.",
                 [g.capital_of], answer=("Paris", "Tokyo"), same_response=True,
                 calls=(_E("capital_of", {"country": "France"}), _E("capital_of", {"country": "Japan"})),
                 solution=((Call("capital_of", {"country": "France"}), Call("capital_of", {"country": "Japan"})),
                           "Paris and Tokyo.")),
    ]  # fmt: skip


def _dependency() -> list[EvalCase]:
    return [
        EvalCase("note_roundtrip", "dependency",
                 "In one answer: save the note 'buy milk' under the key todo (give that call the id save), and "
                 "read it back with read_note in a call that depends on save. Then tell me the note.",
                 g.note_gadgets, answer=("buy milk",), syntaxes=_BLOCK,
                 calls=(_E("save_note", {"key": "todo"}), _E("read_note", {"key": "todo"}, with_dependency=True)),
                 solution=((Call("save_note", {"key": "todo", "text": "buy milk"}, id="save"),
                            Call("read_note", {"key": "todo"}, id="read", deps=("save",))), "The note: buy milk")),
        EvalCase("folder_then_file", "dependency",
                 "In one answer: create the folder docs (id mk) and save the file notes.txt with the text 'draft' "
                 "into it, the save waiting for mk.",
                 g.folder_gadgets, answer=("notes.txt",), syntaxes=_BLOCK,
                 calls=(_E("save_file", {"folder": "docs", "filename": "notes.txt"}, with_dependency=True),),
                 solution=((Call("make_folder", {"name": "docs"}, id="mk"),
                            Call("save_file", {"folder": "docs", "filename": "notes.txt", "content": "draft"},
                                 id="sv", deps=("mk",))), "Saved docs/notes.txt.")),
        EvalCase("counter_chain", "dependency",
                 "In one answer: start the counter laps (id start), then count it to 5 in a call waiting for start.",
                 g.counter_gadgets, answer=("5",), syntaxes=_BLOCK,
                 calls=(_E("count_to", {"name": "laps", "n": 5}, with_dependency=True),),
                 solution=((Call("start_counter", {"name": "laps"}, id="start"),
                            Call("count_to", {"name": "laps", "n": 5}, id="go", deps=("start",))),
                           "The counter laps is at 5.")),
    ]  # fmt: skip


def _validation() -> list[EvalCase]:
    return [
        EvalCase("meeting_iso_date", "validation", "Book a meeting on 5 March 2025 at 3 pm with book_meeting.",
                 [g.BookMeeting], answer=("2025-03-05",),
                 calls=(_E("book_meeting", {"date": "2025-03-05", "hour": 15}),),
                 solution=((Call("book_meeting", {"date": "5 March 2025", "hour": 15}),),
                           (Call("book_meeting", {"date": "2025-03-05", "hour": 15}),),
                           "Booked on 2025-03-05 at 15:00.")),
        EvalCase("boiling_fahrenheit", "validation",
                 "Convert 100 degrees Celsius to Fahrenheit with convert_temperature.",
                 [g.convert_temperature], answer=("212",),
                 calls=(_E("convert_temperature", {"celsius": 100, "unit": "F"}),),
                 solution=((Call("convert_temperature", {"celsius": 100, "unit": "Fahrenheit"}),),
                           (Call("convert_temperature", {"celsius": 100, "unit": "F"}),), "100 °C is 212 °F.")),
        EvalCase("ticket_id_format", "validation", "What is ticket 31 about? Use get_ticket.",
                 [g.get_ticket], answer=("printer",), calls=(_E("get_ticket", {"ticket_id": "TCK-31"}),),
                 solution=((Call("get_ticket", {"ticket_id": "31"}),), (Call("get_ticket", {"ticket_id": "TCK-31"}),),
                           "Ticket TCK-31: the printer on floor 3 is jammed.")),
    ]  # fmt: skip


def _fails_once() -> list[EvalCase]:
    stock = partial(g.flaky_gadgets, "stock_price", "Current price of a stock symbol.", "{key}: 101.5 USD")
    word = partial(g.flaky_gadgets, "translate_to_french", "Translate an English word to French.", "bonjour")
    return [
        EvalCase("stock_retry", "fails_once", "What is the price of the stock ACME? Use stock_price.",
                 stock, answer=("101.5",), calls=(_E("stock_price", {"key": "ACME"}),),
                 solution=((Call("stock_price", {"key": "ACME"}),), (Call("stock_price", {"key": "ACME"}),),
                           "ACME trades at 101.5 USD.")),
        EvalCase("translate_retry", "fails_once", "Translate the word 'hello' to French with translate_to_french.",
                 word, answer=("bonjour",), calls=(_E("translate_to_french", {"key": "hello"}),),
                 solution=((Call("translate_to_french", {"key": "hello"}),),
                           (Call("translate_to_french", {"key": "hello"}),), "In French: bonjour")),
        EvalCase("seat_retry", "fails_once", "Reserve seat 12A with reserve_seat and give me the confirmation code.",
                 g.retry_gadgets, answer=("R-377",), calls=(_E("reserve_seat", {"seat": "12A"}),),
                 solution=((Call("reserve_seat", {"seat": "12A"}),), (Call("reserve_seat", {"seat": "12A"}),),
                           "Seat 12A is reserved: confirmation R-377.")),
    ]  # fmt: skip


def _output_viewer() -> list[EvalCase]:
    return [
        EvalCase("log_error", "output_viewer",
                 "Read the server log with read_server_log and tell me what the ERROR line says.",
                 [g.read_server_log], answer=("disk full",), syntaxes=_NO_EMOJI, agent_options=_SMALL_CONTEXT,
                 calls=(_E("GadgetOutputViewer"),),
                 solution=((Call("read_server_log"),), partial(_view, "ERROR"), "The error: disk full on /var/data.")),
        EvalCase("find_admin", "output_viewer",
                 "List the users with list_users and tell me the name of the user whose role is admin.",
                 [g.list_users], answer=("Grace Hopper",), syntaxes=_NO_EMOJI, agent_options=_SMALL_CONTEXT,
                 calls=(_E("GadgetOutputViewer"),),
                 solution=((Call("list_users"),), partial(_view, "admin"), "The admin is Grace Hopper.")),
    ]  # fmt: skip


def _completion() -> list[EvalCase]:
    done = "task_complete"
    return [
        EvalCase("finish_product", "completion",
                 "Compute 6 × 7 with multiply, then end the task by calling finish with the result.",
                 [g.multiply, g.finish], answer=("42",), stop_reason=done,
                 calls=(_E("multiply", {"a": 6, "b": 7}), _E("finish")),
                 solution=((Call("multiply", {"a": 6, "b": 7}),), (Call("finish", {"answer": "42"}),))),
        EvalCase("finish_capital", "completion",
                 "Find the capital of Italy with capital_of, then call finish with it.",
                 [g.capital_of, g.finish], answer=("Rome",), stop_reason=done,
                 calls=(_E("capital_of", {"country": "Italy"}), _E("finish")),
                 solution=((Call("capital_of", {"country": "Italy"}),), (Call("finish", {"answer": "Rome"}),))),
        EvalCase("finish_direct", "completion", "Call finish with the answer to: what is 2 + 2?",
                 [g.finish], answer=("4",), stop_reason=done, calls=(_E("finish"),),
                 solution=((Call("finish", {"answer": "4"}),),)),
    ]  # fmt: skip


def builtin_suite() -> EvalSuite:
    """The built-in suite (see the module docstring)."""
    groups = (_single, _coercion, _multiline, _nested, _parallel, _dependency, _validation, _fails_once,
              _output_viewer, _completion)  # fmt: skip
    return EvalSuite("builtin", tuple(case for group in groups for case in group()))


BUILTIN_SUITE = builtin_suite()
"""The built-in suite, made once."""
