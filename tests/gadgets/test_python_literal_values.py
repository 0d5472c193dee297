"""A list or dict written as a Python literal where the schema wants one is read as that value
(Qwen2.5-Coder writes ``['bottles of water', 'apples']``); anything else stays text."""

from __future__ import annotations

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
