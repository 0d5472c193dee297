"""The call grammar an agent sends accepts the forms its repairs read as one meaning, and each
such form it accepts runs as the calls meant; under ``strict=True``, which refuses those repairs,
the grammar refuses the forms too (issue 39: told "give that call the id save", Qwen2.5-Coder wrote
``!!!GADGET_START:save``, and a grammar that completed it to ``save_note`` lost the id)."""

from __future__ import annotations

from collections.abc import AsyncIterator

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from llmist import create_gadget, gadget
from llmist.providers.base import LLMChunk, LLMRequest
from llmist.testing import MockModel
from tests.agent.repair_runs import run_with_repairs
from tests.syntax.gbnf_match import Grammar

notes: dict[str, str] = {}
order: list[str] = []


@gadget(description="Save a note under a key.")
def save_note(key: str, text: str) -> str:
    order.append("save")
    notes[key] = text
    return f"saved note {key!r}"


@gadget(description="Read the note saved under a key.")
def read_note(key: str) -> str:
    order.append("read")
    return notes.get(key, "no such note")


weather_asked: list[str] = []


@gadget(description="The weather in a city.")
def get_weather(city: str, unit: str = "celsius") -> str:
    weather_asked.append(f"{city} {unit}")
    return f"{city}: 20 degrees"


@gadget(description="Add two integers.")
def add(a: int, b: int) -> str:
    return str(a + b)


@gadget(description="Sum a list.")
def total(values: list[int]) -> str:
    return str(sum(values))


class GrammarModel:
    """A model on a server that takes a grammar: it answers from a script and keeps each request."""

    name = "mock"
    offline = True
    grammar_field = "grammar"

    def __init__(self, answers: list[str]) -> None:
        self.model = MockModel(answers)
        self.requests: list[LLMRequest] = []

    async def stream(self, request: LLMRequest) -> AsyncIterator[LLMChunk]:
        self.requests.append(request)
        async for chunk in self.model.stream(request):
            yield chunk


async def _run(answer: str, gadgets: list[object], *, strict: bool = False) -> tuple[object, Grammar, list[str]]:
    notes.clear()
    order.clear()
    weather_asked.clear()
    model = GrammarModel([answer, "Done."])
    result, repairs = await run_with_repairs(gadgets, model=(model, "mock"), strict=strict, constrained=True)
    grammar = model.requests[0].grammar
    assert grammar is not None
    return result, Grammar(grammar), [r.kind for r in repairs]


SAVE_THEN_READ = (
    "!!!GADGET_START:save\n!!!ARG:key\ntodo\n!!!ARG:text\nbuy milk\n!!!GADGET_END\n"
    "!!!GADGET_START:read_note:save\n!!!ARG:key\ntodo\n!!!GADGET_END"
)


async def test_a_first_word_written_as_the_name_is_accepted_and_runs_with_its_id_kept() -> None:
    result, grammar, repairs = await _run(SAVE_THEN_READ, [save_note, read_note])
    assert grammar.accepts(SAVE_THEN_READ)
    assert order == ["save", "read"]  # read_note waited for the call written `save`
    assert [r.result for r in result.gadget_results] == ["saved note 'todo'", "buy milk"]  # type: ignore[attr-defined]
    assert "first_word_name" in repairs


async def test_strict_sends_a_grammar_without_the_readings_it_refuses() -> None:
    _, grammar, _ = await _run("Done.", [save_note, read_note], strict=True)
    assert not grammar.accepts(SAVE_THEN_READ)
    assert grammar.accepts(SAVE_THEN_READ.replace("START:save\n", "START:save_note:save\n"))


async def test_a_first_word_two_gadgets_share_is_no_name() -> None:
    # `get` alone names get_weather; beside get_time it names neither, and the reading takes neither.
    @gadget(description="The time in a city.")
    def get_time(city: str) -> str:
        return "noon"

    call = "!!!GADGET_START:get\n!!!ARG:city\nOslo\n!!!GADGET_END"
    _, shared, _ = await _run("Done.", [get_weather, get_time])
    assert not shared.accepts(call)
    _, alone, _ = await _run("Done.", [get_weather, add])
    assert alone.accepts(call)


async def test_the_output_viewers_first_word_is_no_name_of_anything() -> None:
    # The repairs read the viewer's name only once an output is stored for it; `gadget` is its
    # first word, and so no other gadget's either.
    @gadget(description="List the gadgets.")
    def gadget_list(prefix: str) -> str:
        return "none"

    _, grammar, _ = await _run("Done.", [read_note])
    assert grammar.accepts("!!!GADGET_START:read\n!!!ARG:key\nk\n!!!GADGET_END")
    assert grammar.accepts("!!!GADGET_START:GadgetOutputViewer\n!!!ARG:id\nx\n!!!GADGET_END")
    assert not grammar.accepts("!!!GADGET_START:gadget\n!!!ARG:id\nx\n!!!GADGET_END")
    _, grammar, _ = await _run("Done.", [gadget_list, read_note])
    assert not grammar.accepts("!!!GADGET_START:gadget\n!!!ARG:prefix\np\n!!!GADGET_END")


async def test_a_first_word_with_an_id_or_parameters_written_again_is_refused() -> None:
    # The reading takes a first word only on a header without an id, and as one call: an id, or
    # a second call's parameters, would leave it no gadget's.
    _, grammar, _ = await _run("Done.", [save_note, read_note])
    assert not grammar.accepts("!!!GADGET_START:save:s1\n!!!ARG:key\nk\n!!!ARG:text\nt\n!!!GADGET_END")
    again = "!!!ARG:key\nk\n!!!ARG:text\nt\n" * 2
    assert not grammar.accepts(f"!!!GADGET_START:save\n{again}!!!GADGET_END")
    assert grammar.accepts(f"!!!GADGET_START:save_note\n{again}!!!GADGET_END")


async def test_required_parameters_written_again_run_as_one_call_each() -> None:
    answer = (
        "!!!GADGET_START:get_weather\n!!!ARG:city\nTokyo\n!!!ARG:unit\nfahrenheit\n!!!ARG:city\nOslo\n!!!GADGET_END"
    )
    _, grammar, repairs = await _run(answer, [get_weather])
    assert grammar.accepts(answer)
    assert sorted(weather_asked) == ["Oslo fahrenheit", "Tokyo fahrenheit"]  # written once: in each call
    assert repairs == ["repeated_parameters"]


async def test_only_the_required_parameters_repeat_and_only_whole() -> None:
    _, grammar, _ = await _run("Done.", [add, get_weather, total])
    twice = "!!!GADGET_START:add\n!!!ARG:a\n1\n!!!ARG:b\n2\n!!!ARG:a\n3\n!!!ARG:b\n4\n!!!GADGET_END"
    assert grammar.accepts(twice)
    assert not grammar.accepts(twice.replace("!!!ARG:b\n4\n", ""))  # a call left without b
    optional_again = "!!!ARG:city\nA\n!!!ARG:unit\nx\n!!!ARG:city\nB\n!!!ARG:unit\ny\n"
    assert not grammar.accepts(f"!!!GADGET_START:get_weather\n{optional_again}!!!GADGET_END")
    # A list's lines could be its items: it never repeats.
    assert not grammar.accepts("!!!GADGET_START:total\n!!!ARG:values\n[1]\n!!!ARG:values\n[2]\n!!!GADGET_END")


async def test_numbered_parameters_run_as_one_call_a_number() -> None:
    answer = "!!!GADGET_START:get_weather\n!!!ARG:city1\nTokyo\n!!!ARG:city2\nOslo\n!!!GADGET_END"
    _, grammar, repairs = await _run(answer, [get_weather])
    assert grammar.accepts(answer)
    assert sorted(weather_asked) == ["Oslo celsius", "Tokyo celsius"]
    assert repairs == ["numbered_parameters"]
    assert not grammar.accepts(answer.replace("city2", "city3"))  # numbers in order from 1
    assert not grammar.accepts(answer.replace("city2", "city"))  # one form or the other


async def test_no_numbered_names_where_they_would_read_otherwise() -> None:
    @gadget(description="Two points.")
    def segment(x: int, x1: int) -> str:  # x1 is a parameter of its own
        return "ok"

    search = create_gadget(  # takes names it does not declare: q1 may be one
        name="search",
        description="Anything goes.",
        schema={
            "type": "object",
            "properties": {"q": {"type": "string"}},
            "required": ["q"],
            "additionalProperties": True,
        },
        execute=lambda params: "ok",
    )

    _, grammar, _ = await _run("Done.", [segment, search])
    assert not grammar.accepts("!!!GADGET_START:segment\n!!!ARG:x1\n1\n!!!ARG:x11\n2\n!!!GADGET_END")
    assert not grammar.accepts("!!!GADGET_START:search\n!!!ARG:q1\na\n!!!ARG:q2\nb\n!!!GADGET_END")


async def test_strict_refuses_parameters_written_again() -> None:
    _, grammar, _ = await _run("Done.", [add], strict=True)
    assert not grammar.accepts("!!!GADGET_START:add\n!!!ARG:a\n1\n!!!ARG:b\n2\n!!!ARG:a\n3\n!!!ARG:b\n4\n!!!GADGET_END")
    assert not grammar.accepts("!!!GADGET_START:add\n!!!ARG:a1\n1\n!!!ARG:b1\n2\n!!!GADGET_END")


OPEN_CALLS = (
    "!!!GADGET_START:get_weather:first\n!!!ARG:city\nNew York\n\n"
    "!!!GADGET_START:get_weather:second\n!!!ARG:city\nLos Angeles\n\n"
)


async def test_calls_closed_by_the_next_call_or_the_end_run_with_the_values_written() -> None:
    # Made to write the end marker where it meant the next call, a model has already written a
    # blank line, which the format keeps as the value's newline ("New York\n"); left open, the
    # call reads as `missing_end` does, without it.
    _, grammar, repairs = await _run(OPEN_CALLS, [get_weather])
    assert grammar.accepts(OPEN_CALLS)
    assert sorted(weather_asked) == ["Los Angeles celsius", "New York celsius"]
    assert repairs == ["missing_end", "missing_end"]


async def test_strict_sends_a_grammar_that_closes_every_call() -> None:
    _, grammar, _ = await _run("Done.", [get_weather], strict=True)
    assert not grammar.accepts(OPEN_CALLS)
    assert grammar.accepts(OPEN_CALLS.replace("\n\n", "\n!!!GADGET_END\n"))


_LINE = st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=12).filter(
    lambda s: s.strip() == s and not s.startswith("!") and "!!!" not in s
)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.integers(-999, 999), st.integers(-999, 999)), min_size=2, max_size=5, unique=True))
async def test_every_repetition_the_grammar_takes_runs_as_the_calls_written(pairs: list[tuple[int, int]]) -> None:
    body = "".join(f"!!!ARG:a\n{a}\n!!!ARG:b\n{b}\n" for a, b in pairs)
    answer = f"!!!GADGET_START:add\n{body}!!!GADGET_END"
    result, grammar, _ = await _run(answer, [add])
    assert grammar.accepts(answer)
    # The pairs are distinct: identical calls in one answer run once (a reading of its own). The
    # calls run in parallel, so their results come in the order they finish.
    results = sorted(r.result for r in result.gadget_results)  # type: ignore[attr-defined]
    assert results == sorted(str(a + b) for a, b in pairs)


@settings(max_examples=30, deadline=None)
@given(st.lists(_LINE, min_size=2, max_size=4, unique=True))
async def test_every_city_written_again_is_asked_once(cities: list[str]) -> None:
    body = "".join(f"!!!ARG:city\n{c}\n" for c in cities)
    answer = f"!!!GADGET_START:get_weather\n{body}!!!GADGET_END"
    _, grammar, _ = await _run(answer, [get_weather])
    assert grammar.accepts(answer)
    assert sorted(weather_asked) == sorted(f"{c} celsius" for c in cities)
