"""A list or dict written as a Python literal where the schema wants one is read as that value
(Qwen2.5-Coder writes ``['bottles of water', 'apples']``); anything else stays text."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from llmist import Agent, gadget
from llmist.testing import MockModel, block_call

seen: list[tuple[object, object]] = []


@gadget(description="Orders items.")
def order(items: list[str], options: dict[str, bool] | None = None, note: str = "") -> str:
    seen.append((items, options))
    return "ok"


def run(**params: str) -> tuple[str | None, str | None]:
    seen.clear()
    result = Agent(model=MockModel([block_call("order", **params), "done"]), gadgets=[order]).run_sync("go")
    r = result.gadget_results[0]
    return r.result, r.error


def test_a_python_list_and_dict_are_read_where_the_schema_wants_them() -> None:
    assert run(items="['bottles of water', \"apples\"]", options="{'fast': True}") == ("ok", None)
    assert seen == [(["bottles of water", "apples"], {"fast": True})]


def test_a_string_parameter_keeps_the_literal_as_text() -> None:
    assert run(items='["a"]', note="['x']") == ("ok", None)
    assert seen == [(["a"], None)]


def test_code_that_is_not_a_literal_is_never_run_and_is_refused_as_not_a_list() -> None:
    result, error = run(items="[__import__('os').getpid()]")
    assert result is None and error is not None and "items" in error
    assert seen == []


def test_items_in_single_quotes_that_hold_an_apostrophe_are_read_as_a_list() -> None:
    # Qwen2.5-Coder-1.5B (BFCL's live cases): sentences in single quotes, one with "I'm". No
    # Python literal can hold that, so the list was refused.
    text = "['I'm interested in a savings account.', 'Are banks open?',  'Can I sign up?']"
    assert run(items=text) == ("ok", None)
    assert seen == [(["I'm interested in a savings account.", "Are banks open?", "Can I sign up?"], None)]


def test_a_quote_beside_a_comma_elsewhere_is_no_such_list() -> None:
    result, error = run(items="['it's', 2, 'b']")
    assert result is None and error is not None and "items" in error


# An item may hold apostrophes and commas, but no quote beside a comma (where items break) and no
# quote at its ends or two with only spaces between: Python reads those as its own (three quotes
# open a string, two end one and start the next).
_ITEM = st.text(alphabet="ab '.,?", min_size=1, max_size=12).filter(
    lambda item: (
        "'," not in item.replace(" ", "")
        and ",'" not in item.replace(" ", "")
        and item.strip() != ""
        and not item.startswith("'")
        and not item.endswith("'")
        and re.search("'\\s*'", item) is None
    )
)


@settings(max_examples=200, deadline=None)
@given(items=st.lists(_ITEM, min_size=1, max_size=4))
def test_any_list_of_such_items_is_read_back_as_written(items: list[str]) -> None:
    result, error = run(items="[" + ", ".join(f"'{item}'" for item in items) + "]")
    assert (result, error) == ("ok", None)
    assert seen == [(items, None)]
