"""Block calls whose arguments came without ``!!!ARG:`` lines (issue 39): each reading is a
counted repair, reported to ``on_repair`` and refused in strict mode; a call that does not bind
after a reading keeps its error."""

from __future__ import annotations

from typing import Literal

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from llmist import Agent, gadget
from llmist.agent import AgentResult
from llmist.agent.repairs import RepairEvent, RepairRefused
from llmist.testing import MockModel
from tests.agent.repair_runs import run_with_repairs


@gadget(description="Add three integers.")
def add3(a: int, b: int, c: int) -> str:
    return str(a + b + c)


@gadget(description="Current weather of a city.")
def get_weather(city: str) -> str:
    return f"{city}: sunny"


@gadget(description="The president and vice president of a year.")
def get_president_and_vp(year: int) -> str:
    return f"president of {year}"


@gadget(description="Simple interest.")
def interest(I: float, r: float, years: int = 1) -> str:  # noqa: E741 (BFCL's name)
    return f"{I * r * years:.2f}"


@gadget(description="Find artworks in a museum.")
def artwork_find(museum: str, type: str = "painting") -> str:
    return f"{type}s of {museum}"


@gadget(description="Write a note.")
def write_note(text: str) -> str:
    return repr(text)


@gadget(description="Save a note.")
def save_note(key: str, text: str) -> str:
    return f"saved {key}: {text}"


GADGETS = [add3, get_weather, get_president_and_vp, interest, artwork_find, save_note, write_note]


async def _run(*responses: str, strict: bool = False) -> tuple[AgentResult, list[RepairEvent]]:
    return await run_with_repairs(GADGETS, *responses, strict=strict)


async def _run_with(
    gadgets: list[object], *responses: str, strict: bool = False
) -> tuple[AgentResult, list[RepairEvent]]:
    return await run_with_repairs(gadgets, *responses, strict=strict)


def _call(header: str, body: str = "") -> str:
    return f"!!!GADGET_START:{header}\n{body}!!!GADGET_END\n"


async def test_a_body_without_arg_lines_is_the_one_required_parameter() -> None:
    result, events = await _run(_call("get_weather", "Los Angeles\n"), "done")
    [r] = result.gadget_results
    assert r.result == "Los Angeles: sunny"
    assert result.repairs == {"body_as_parameter": 1}
    assert [(e.kind, e.detail) for e in events] == [("body_as_parameter", "get_weather: the body read as city")]


async def test_a_one_parameter_body_is_coerced_by_the_schema() -> None:
    result, _ = await _run(_call("get_president_and_vp", "1980\n"), "done")
    assert result.gadget_results[0].result == "president of 1980"


async def test_values_alone_bind_in_declared_order() -> None:
    result, events = await _run(_call("add3", "3\n4\n2\n"), "done")
    assert result.gadget_results[0].result == "9"
    assert result.repairs == {"values_in_order": 1}
    assert events[0].detail == "add3: the lines read as a, b, c, in order"


async def test_values_that_do_not_match_the_parameters_in_count_are_not_bound() -> None:
    result, _ = await _run(_call("add3", "3\n4\n"), "done")
    [r] = result.gadget_results
    assert r.error is not None and "no `!!!ARG:` lines" in r.error
    assert result.repairs == {}


async def test_bare_parameter_names_are_read_as_arg_lines() -> None:
    result, events = await _run(_call("interest", "I\n10\nr\n0.01\n"), "done")
    assert result.gadget_results[0].result == "0.10"
    assert result.repairs == {"bare_parameter_names": 1}
    assert events[0].detail == "interest: the lines I, r read as parameter names"


async def test_a_bare_name_reading_needs_every_name_to_be_a_parameter() -> None:
    # "rate" is not a parameter of interest: the lines are neither names nor two values in order.
    result, _ = await _run(_call("interest", "I\n10\nrate\n0.01\n"), "done")
    assert result.gadget_results[0].error is not None
    assert result.repairs == {}


async def test_a_value_in_the_id_slot_fills_the_missing_parameter() -> None:
    result, events = await _run(_call("get_president_and_vp:1980"), "done")
    [r] = result.gadget_results
    assert r.result == "president of 1980"
    assert r.invocation_id != "1980"  # a value, not an id
    assert result.repairs == {"header_arguments": 1}
    assert events[0].kind == "header_arguments"


async def test_values_in_the_header_fill_every_parameter_in_declared_order() -> None:
    # Qwen2.5-Coder-1.5B: !!!GADGET_START:music_generate:D Minor:120:4/4, three values for two
    # required parameters and an optional one; and as many values as the required parameters.
    @gadget(description="Compose a piece.")
    def music_generate(key: str, tempo: int, time_signature: str = "4/4") -> str:
        return f"{key} at {tempo} in {time_signature}"

    response = _call("music_generate:E Major:90:3/4") + _call("music_generate:D Minor:120")
    result, _ = await _run_with([music_generate], response, "done")
    assert sorted(r.result for r in result.gadget_results) == ["D Minor at 120 in 4/4", "E Major at 90 in 3/4"]
    assert result.repairs == {"header_arguments": 2}


async def test_arguments_in_the_header_are_read_as_arguments_in_each_call() -> None:
    response = _call("artwork_find:museum:Metropolitan") + _call("artwork_find:museum:Louvre:type:sculpture")
    result, _ = await _run(response, "done")
    # Side by side: the results come in the order the calls finish.
    assert sorted(r.result for r in result.gadget_results) == [
        "paintings of Metropolitan",
        "sculptures of Louvre",
    ]
    assert result.repairs == {"header_arguments": 2}


async def test_a_header_that_repeats_the_argument_lines_is_no_id() -> None:
    # Constrained to identifiers, Qwen2.5-Coder-1.5B wrote its arguments in the header and in
    # argument lines too: read as an id and dependencies, the second call was a duplicate id.
    body = "!!!ARG:museum\n{m}\n!!!ARG:type\n{t}\n"
    response = _call("artwork_find:museum:Louvre:type:For_sculptures", body.format(m="Louvre", t="sculpture")) + _call(
        "artwork_find:museum:Orsay:type:painting", body.format(m="Orsay", t="painting")
    )
    result, events = await _run(response, "done")
    assert sorted(r.result for r in result.gadget_results) == ["paintings of Orsay", "sculptures of Louvre"]
    assert result.repairs == {"header_arguments": 2}
    assert "repeats its museum, type" in events[0].detail


async def test_an_id_that_is_one_parameter_name_stays_an_id() -> None:
    body = "!!!ARG:key\nk\n!!!ARG:text\nv\n"
    response = _call("save_note:key", body) + _call("save_note:later:key", "!!!ARG:key\nj\n!!!ARG:text\nw\n")
    result, _ = await _run(response, "done")
    assert result.repairs == {}
    assert sorted(r.invocation_id for r in result.gadget_results) == ["key", "later"]


async def test_an_id_of_an_earlier_call_is_not_read_as_an_argument() -> None:
    response = _call("save_note:s1", "!!!ARG:key\nk\n!!!ARG:text\nv\n") + _call("get_weather:s1")
    result, _ = await _run(response, "done")
    assert "header_arguments" not in result.repairs


@gadget(description="Distance between two places.")
def geo_distance(start_location: str, end_location: str, units: str = "km") -> str:
    return f"{start_location} to {end_location} in {units}"


@gadget(description="Exhibitions of a museum.")
def exhibition_info(museum_name: str, month: int | None = None) -> str:
    return f"{museum_name} in month {month}"


async def test_a_header_slot_naming_a_parameter_is_the_argument_line_of_the_lines_under_it() -> None:
    # Qwen2.5-Coder-1.5B on BFCL: the parameter's name in the id slot (and, in later calls, in
    # the dependency slot after an id), its value on the body's first line.
    response = _call("geo_distance:start_location", "New York\n!!!ARG:end_location\nLos Angeles\n") + _call(
        "geo_distance:second:start_location", "Los Angeles\n!!!ARG:end_location\nMiami\n!!!ARG:units\nmi\n"
    )
    result, events = await _run_with([geo_distance], response, "done")
    # The two calls run side by side and results come in completion order: sort them.
    assert sorted((r.invocation_id, r.result) for r in result.gadget_results) == [
        ("gadget_1", "New York to Los Angeles in km"),
        ("second", "Los Angeles to Miami in mi"),
    ]
    assert result.repairs == {"header_arguments": 2}
    assert events[0].detail == (
        "geo_distance: the header's start_location read as the argument line of the lines under it"
    )


async def test_values_under_a_header_slot_naming_a_parameter_spread_to_the_parameters_after_it() -> None:
    response = _call("exhibition_info:museum_name", "Museum of Modern Art, New York\n1\n")
    result, _ = await _run_with([exhibition_info], response, "done")
    assert result.gadget_results[0].result == "Museum of Modern Art, New York in month 1"
    assert result.repairs == {"header_arguments": 1, "values_in_order": 1}


@pytest.mark.parametrize(
    "response",
    [
        # The slot is an earlier call's id: a dependency, not a parameter.
        _call("geo_distance:start_location", "!!!ARG:start_location\nA\n!!!ARG:end_location\nB\n")
        + _call("geo_distance:c2:start_location", "!!!ARG:start_location\nB\n!!!ARG:end_location\nC\n"),
        # The body sets that parameter already.
        _call("geo_distance:start_location", "!!!ARG:start_location\nA\n!!!ARG:end_location\nB\n"),
    ],
)
async def test_a_header_slot_is_no_argument_line_when_it_is_an_id_or_its_parameter_is_set(response: str) -> None:
    result, _ = await _run_with([geo_distance], response, "done")
    assert all(r.error is None for r in result.gadget_results)
    assert "header_arguments" not in result.repairs


async def test_a_header_slot_reading_that_does_not_validate_leaves_the_call_as_written() -> None:
    response = _call("exhibition_info:museum_name", "MoMA\nJanuary\n")  # month is no integer
    result, _ = await _run_with([exhibition_info], response, "done")
    [r] = result.gadget_results
    assert r.result == "MoMA\nJanuary in month None"  # the body as the one required parameter, as before
    assert result.repairs == {"body_as_parameter": 1}


async def test_a_well_formed_call_is_not_repaired() -> None:
    result, _ = await _run(_call("add3:x", "!!!ARG:a\n1\n!!!ARG:b\n2\n!!!ARG:c\n3\n"), "done")
    assert result.gadget_results[0].result == "6"
    assert result.repairs == {}


@pytest.mark.parametrize(
    ("response", "kind"),
    [
        (_call("get_weather", "Oslo\n"), "body_as_parameter"),
        (_call("add3", "1\n2\n3\n"), "values_in_order"),
        (_call("interest", "I\n1\nr\n2\n"), "bare_parameter_names"),
        (_call("get_president_and_vp:1980"), "header_arguments"),
        (_call("artwork_find:museum", "Louvre\n"), "header_arguments"),
    ],
)
async def test_argument_repairs_are_refused_in_strict_mode(response: str, kind: str) -> None:
    with pytest.raises(RepairRefused, match=kind):
        await _run(response, "done", strict=True)


_INTS = st.integers(min_value=-(10**6), max_value=10**6)


@settings(max_examples=40, deadline=None)
@given(a=_INTS, b=_INTS, c=_INTS, named=st.booleans(), blank=st.booleans())
async def test_values_bind_in_order_and_names_bind_by_name(a: int, b: int, c: int, named: bool, blank: bool) -> None:
    sep = "\n\n" if blank else "\n"
    body = sep.join(f"{n}\n{v}" for n, v in (("c", c), ("a", a), ("b", b))) if named else sep.join(map(str, (a, b, c)))
    result, _ = await _run(_call("add3", body + "\n"), "done")
    assert result.gadget_results[0].result == str(a + b + c)


_TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="!\r"), min_size=1, max_size=40)


@settings(max_examples=40, deadline=None)
@given(
    city=_TEXT.filter(
        lambda t: (
            t.strip("\n") != ""
            and "\n" not in t.strip("\n")
            and not t.strip().startswith("city")
            and t.strip()[:1] not in ("'", '"')
        )  # a quoted value loses its quotes (quoted_value)
    )
)
async def test_a_one_line_body_is_the_value_as_written(city: str) -> None:
    result, _ = await _run(_call("get_weather", city.strip("\n") + "\n"), "done")
    assert result.gadget_results[0].result == f"{city.strip(chr(10))}: sunny"


@gadget(description="Add three or four integers.")
def add4(a: int, b: int, c: int, d: int = 0) -> str:
    return str(a + b + c + d)


async def test_a_call_without_arg_lines_that_no_reading_fits_is_shown_rewritten_with_its_values() -> None:
    call = _call("add4", "3\n4\n")
    agent = Agent(model=MockModel([call, call, "done"]), gadgets=[add4])
    result = await agent.run("task")
    first, second = (m.text for m in result.messages if m.text.startswith("Error in add4"))
    rewritten = "!!!GADGET_START:add4\n!!!ARG:a\n3\n!!!ARG:b\n4\n!!!ARG:c\n<c>\n!!!GADGET_END"
    assert "has no `!!!ARG:` lines" in first and rewritten in first
    # said again: the note, never an empty block "read as" the call
    assert "This call already failed" in second and "llmist read your call as" not in second
    assert result.repairs == {}


async def test_a_call_waiting_for_an_id_no_call_has_runs_without_waiting_and_is_told() -> None:
    response = _call("save_note:s1:nothing", "!!!ARG:key\nk\n!!!ARG:text\nv\n")
    result, events = await _run(response, "done")
    [r] = result.gadget_results
    assert r.result.startswith("(This call waited for 'nothing', but no call has that id: it ran without waiting.)")
    assert r.result.endswith("saved k: v")
    assert result.repairs == {"missing_dependency": 1}
    assert [(e.kind, e.invocation_id) for e in events] == [("missing_dependency", "s1")]


async def test_a_call_waiting_for_a_later_call_waits_for_it() -> None:
    response = _call("get_weather:w:s1", "!!!ARG:city\nOslo\n") + _call(
        "save_note:s1", "!!!ARG:key\nk\n!!!ARG:text\nv\n"
    )
    result, _ = await _run(response, "done")
    assert [r.result for r in result.gadget_results] == ["saved k: v", "Oslo: sunny"]
    assert result.repairs == {}


async def test_missing_dependency_is_refused_in_strict_mode() -> None:
    with pytest.raises(RepairRefused, match="missing_dependency"):
        await _run(_call("save_note:s1:nothing", "!!!ARG:key\nk\n!!!ARG:text\nv\n"), "done", strict=True)


@settings(max_examples=40, deadline=None)
@given(
    # distinct: the header's slots after the id are dependencies, read once each
    values=st.lists(_INTS, min_size=3, max_size=3, unique=True),
    order=st.permutations(["a", "b", "c"]),
    split=st.integers(min_value=0, max_value=3),
)
async def test_header_arguments_by_name_fill_what_the_body_left_out(
    values: list[int], order: list[str], split: int
) -> None:
    # Some arguments on !!!ARG: lines, the rest as name:value slots in the header, any order.
    given_values = dict(zip(order, values, strict=True))
    in_body, in_header = order[:split], order[split:]
    body = "".join(f"!!!ARG:{n}\n{given_values[n]}\n" for n in in_body)
    header = "add3" + "".join(f":{n}:{given_values[n]}" for n in in_header)
    result, _ = await _run(_call(header, body), "done")
    [r] = result.gadget_results
    assert r.result == str(sum(values))
    assert result.repairs == ({"header_arguments": 1} if in_header else {})


async def test_names_with_their_values_on_their_lines_are_read_as_arg_lines() -> None:
    result, _ = await _run(_call("save_note", "key: todo\ntext = buy milk: two\n"), "done")
    assert result.gadget_results[0].result == "saved todo: buy milk: two"
    assert result.repairs == {"bare_parameter_names": 1}
    result, _ = await _run(_call("get_weather", "city: Paris\n"), "done")
    assert result.gadget_results[0].result == "Paris: sunny"


async def test_a_name_value_line_with_a_name_no_parameter_has_is_no_part_of_the_value_above() -> None:
    # Read into `key`'s value, `label=urgent` ran as part of the key without a word
    # (Qwen2.5-Coder-1.5B, BFCL's live cases); read as a name, the call fails naming it.
    result, _ = await _run(_call("save_note", "key=todo\nlabel=urgent\ntext=buy milk\n"), "done")
    [r] = result.gadget_results
    assert r.error is not None and "- label: unknown parameter" in r.error
    assert "has no `!!!ARG:` lines" not in r.error


_WORDS = st.text(st.characters(whitelist_categories=("L", "Nd")) | st.just(" "), min_size=1, max_size=20)


@settings(max_examples=40, deadline=None)
@given(
    key=_WORDS,
    text=_WORDS,
    name=st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,12}", fullmatch=True),
    value=_WORDS,
    sep=st.sampled_from(["=", ": ", " = "]),
)
async def test_an_unknown_name_value_line_among_others_never_runs_inside_a_value(
    key: str, text: str, name: str, value: str, sep: str
) -> None:
    assume(name not in ("key", "text") and key.strip() and text.strip() and value.strip())
    body = f"key{sep}{key.strip()}\n{name}{sep}{value.strip()}\ntext{sep}{text.strip()}\n"
    result, _ = await _run(_call("save_note", body), "done")
    [r] = result.gadget_results
    assert r.error is not None and f"- {name}: unknown parameter" in r.error


@pytest.mark.parametrize(
    "body",
    [
        "key: todo\ntext:\nNote: buy milk\n",  # the value starts under its name
        "key: todo\ntext: buy milk\nand eggs\nPS: bring bags\n",  # a value of several lines
        "key: todo\ntext=x = 1\ny = 2\n",  # a line written another way than the names'
    ],
)
async def test_a_name_value_line_inside_a_value_of_several_lines_stays_in_the_value(body: str) -> None:
    result, _ = await _run(_call("save_note", body), "done")
    [r] = result.gadget_results
    assert r.ok and r.result is not None and r.result.endswith(body.splitlines()[-1])
    assert result.repairs == {"bare_parameter_names": 1}


async def test_a_reading_by_names_that_does_not_validate_fails_on_the_value_it_named() -> None:
    result, _ = await _run(_call("add3", "a=3\nb=three\nc=4\n"), "done")
    [r] = result.gadget_results
    assert r.error is not None and "- b: Input should be a valid integer" in r.error
    assert "has no `!!!ARG:` lines" not in r.error  # not the lines put under a, b, c in order
    assert result.repairs == {}


@gadget(description="Final speed of a falling object.")
def final_speed(initial_speed: int, time: int, gravity: float = -9.81) -> str:
    return f"{initial_speed + gravity * time:.2f}"


@gadget(description="Predict a house price.")
def predict_price(area: int, rooms: int, location: str, round_to: int = 0) -> str:
    return f"{location}: {area * rooms} rounded to {round_to}"


async def test_name_value_lines_before_the_first_arg_line_are_read_as_arguments() -> None:
    body = "area=2000\nrooms: 4\n!!!ARG:location\nSan Francisco\n!!!ARG:round_to\n3\n"
    result, events = await _run_with([predict_price], _call("predict_price", body), "done")
    assert result.gadget_results[0].result == "San Francisco: 8000 rounded to 3"
    assert result.repairs == {"bare_parameter_names": 1}
    assert events[0].detail == (
        "predict_price: the lines area, rooms before the first !!!ARG: line read as parameter names"
    )


async def test_lines_before_the_first_arg_line_that_are_not_parameters_are_not_read() -> None:
    body = "area=2000\nbedrooms=4\n!!!ARG:location\nParis\n!!!ARG:rooms\n2\n"
    result, _ = await _run_with([predict_price], _call("predict_price", body), "done")
    assert result.gadget_results[0].error is not None
    assert result.repairs == {}


async def test_values_under_the_only_arg_line_bind_to_it_and_the_parameters_after_it() -> None:
    result, events = await _run_with([final_speed], _call("final_speed", "!!!ARG:initial_speed\n0\n5\n-9.81\n"), "done")
    assert result.gadget_results[0].result == "-49.05"
    assert result.repairs == {"values_in_order": 1}
    assert (
        events[0].detail == "final_speed: the lines under initial_speed read as initial_speed, time, gravity, in order"
    )


async def test_more_values_under_one_arg_line_than_parameters_after_it_are_not_spread() -> None:
    result, _ = await _run_with([final_speed], _call("final_speed", "!!!ARG:time\n5\n-9.81\n3\n"), "done")
    assert result.gadget_results[0].error is not None
    assert result.repairs == {}


@pytest.mark.parametrize("separator", [";", "; ", ",", "&", " "])
async def test_name_value_pairs_in_the_header_are_read_as_arguments(separator: str) -> None:
    header = f"predict_price:area=2000{separator}rooms=4{separator}location=new york"
    result, events = await _run_with([predict_price], _call(header, "!!!ARG:round_to\n2\n"), "done")
    [r] = result.gadget_results
    assert r.result == "new york: 8000 rounded to 2"
    assert result.repairs == {"header_arguments": 1}
    assert events[0].detail == (
        "predict_price: the header's area='2000', rooms='4', location='new york' read as arguments"
    )


@gadget(description="Find parks.")
def park_find(facilities: list[str], location: str) -> str:
    return f"{location}: {' + '.join(facilities)}"


async def test_a_list_in_a_header_pair_keeps_its_commas() -> None:
    header = "park_find:facilities=['playground', 'picnic area'];location=new york"
    result, _ = await _run_with([park_find], _call(header), "done")
    assert result.gadget_results[0].result == "new york: playground + picnic area"


@pytest.mark.parametrize(
    "header",
    [
        "predict_price:area=2000;area=3000;rooms=4;location=x",  # a name twice
        "predict_price:size=2000;rooms=4;location=x",  # not a parameter
        "predict_price:area=;rooms=4;location=x",  # a name without a value
    ],
)
async def test_header_pairs_that_do_not_name_each_parameter_once_are_not_read(header: str) -> None:
    result, _ = await _run_with([predict_price], _call(header), "done")
    assert result.gadget_results[0].error is not None
    assert "header_arguments" not in result.repairs


@pytest.mark.parametrize(
    "response",
    [
        _call("predict_price", "area=2000\nrooms=4\n!!!ARG:location\nx\n"),
        _call("final_speed", "!!!ARG:initial_speed\n0\n5\n"),
        _call("predict_price:area=2000;rooms=4;location=x"),
    ],
)
async def test_the_new_readings_are_refused_in_strict_mode(response: str) -> None:
    with pytest.raises(RepairRefused):
        await _run_with([predict_price, final_speed], response, "done", strict=True)


@settings(max_examples=40, deadline=None)
@given(
    values=st.lists(_INTS, min_size=3, max_size=3),
    lead=st.integers(min_value=1, max_value=3),
    sep=st.sampled_from(["=", ": ", " = "]),
)
async def test_any_split_of_lead_lines_and_arg_lines_binds_by_name(values: list[int], lead: int, sep: str) -> None:
    named = dict(zip("abc", values, strict=True))
    names = list(named)
    body = "".join(f"{n}{sep}{named[n]}\n" for n in names[:lead]) + "".join(
        f"!!!ARG:{n}\n{named[n]}\n" for n in names[lead:]
    )
    result, _ = await _run(_call("add3", body), "done")
    assert result.gadget_results[0].result == str(sum(values))


@pytest.mark.parametrize(
    ("body", "header"),
    [
        ('location="San Francisco"\narea=2000\nrooms=4\n', "predict_price"),
        ("location: 'San Francisco'\narea=2000\nrooms=4\n", "predict_price"),
        ("", 'predict_price:area=2000;rooms=4;location="San Francisco"'),
    ],
)
async def test_the_quotes_of_a_name_value_pair_are_the_pairs_not_the_values(body: str, header: str) -> None:
    result, _ = await _run_with([predict_price], _call(header, body), "done")
    assert result.gadget_results[0].result == "San Francisco: 8000 rounded to 0"


@pytest.mark.parametrize(
    ("body", "result"),
    [
        ('!!!ARG:city\n"Paris"\n', "Paris: sunny"),
        ("!!!ARG:city\n'Paris'\n", "Paris: sunny"),
        ('!!!ARG:city "Paris"\n', "Paris: sunny"),  # fused after a space: the parser keeps them
        ('"Paris"\n', "Paris: sunny"),  # the body as the one parameter
    ],
)
async def test_a_one_line_value_in_quotes_loses_them(body: str, result: str) -> None:
    # Qwen2.5-Coder wrote BFCL's string values as JSON literals (`"m"`, `"1 week"`,
    # `"2021-01-28"`): 7 of 7 such values in the recorded runs were meant without their quotes.
    response, events = await _run(_call("get_weather", body), "done")
    assert response.gadget_results[0].result == result
    assert response.repairs.get("quoted_value") == 1
    assert [e.detail for e in events if e.kind == "quoted_value"] == ["get_weather: city='Paris' without their quotes"]


async def test_quoted_numbers_lose_their_quotes_and_validate() -> None:
    result, events = await _run(_call("add3", "!!!ARG:a\n\"1\"\n!!!ARG:b\n2\n!!!ARG:c\n'3'\n"), "done")
    assert result.gadget_results[0].result == "6"
    assert result.repairs == {"quoted_value": 1}
    assert events[0].detail == "add3: a='1', c='3' without their quotes"


@pytest.mark.parametrize(
    ("body", "city"),
    [
        ('!!!ARG:city\n"Paris" and "Rome"\n', '"Paris" and "Rome"'),  # quotes inside: not the value's wrapping
        ('!!!ARG:city\n"Paris\n', '"Paris'),  # not closed
        ('!!!ARG:city\n"Paris\nRome"\n', '"Paris\nRome"'),  # more than one line
        ("!!!ARG:city\n\"Paris'\n", "\"Paris'"),  # quotes that do not match
        ("!!!ARG:city\nParis\n", "Paris"),
    ],
)
async def test_other_values_keep_their_quotes(body: str, city: str) -> None:
    result, _ = await _run(_call("get_weather", body), "done")
    assert result.gadget_results[0].result == f"{city}: sunny"
    assert "quoted_value" not in result.repairs


async def test_blank_lines_after_a_one_line_value_are_its_own() -> None:
    # A file's one line and its newline (`WriteFile` of "hello\n", as llmist's writer writes it)
    # looks like `kilometers` and a blank line before the end marker: the value keeps them.
    result, _ = await _run(_call("write_note", "!!!ARG:text\nfirst\n\n"), "done")
    assert result.gadget_results[0].result == "'first\\n'" and result.repairs == {}


async def test_a_quoted_item_of_a_list_is_the_lists_own() -> None:
    result, _ = await _run_with([tag], _call("tag", '!!!ARG:note\nn\n!!!ARG:tags\n["a", "b"]\n'), "done")
    assert result.repairs == {}


async def test_a_quoted_value_is_refused_in_strict_mode() -> None:
    with pytest.raises(RepairRefused, match="quoted_value"):
        await _run(_call("get_weather", '!!!ARG:city\n"Paris"\n'), "done", strict=True)


@settings(max_examples=40, deadline=None)
@given(city=st.text(st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), min_size=1, max_size=30))
async def test_any_one_line_text_in_quotes_is_read_as_that_text(city: str) -> None:
    assume(city.strip() == city and '"' not in city and "!" not in city)
    result, _ = await _run(_call("get_weather", f'!!!ARG:city\n"{city}"\n'), "done")
    assert result.gadget_results[0].result == f"{city}: sunny"


# --- value_as_list: a list parameter's value written as text -----------------------------------


@gadget(description="Directions between two places.")
def directions(start: str, end: str, avoid: list[Literal["tolls", "highways", "ferries"]] | None = None) -> str:
    return f"{start} to {end} avoiding {avoid}"


@gadget(description="The weather at coordinates on a date.")
def weather_at(coordinates: list[float], date: str) -> str:
    return f"{coordinates} on {date}"


@gadget(description="Tag a note.")
def tag(note: str, tags: list[str]) -> str:
    return f"{note}: {tags}"


@pytest.mark.parametrize(
    ("response", "result"),
    [
        (_call("directions", "!!!ARG:start\nA\n!!!ARG:end\nB\n!!!ARG:avoid\nhighways,tolls\n"),
         "A to B avoiding ['highways', 'tolls']"),
        (_call("directions", "!!!ARG:start\nA\n!!!ARG:end\nB\n!!!ARG:avoid\nferries\n"),
         "A to B avoiding ['ferries']"),
        (_call("directions", "!!!ARG:start\nA\n!!!ARG:avoid\n\"tolls\", \"ferries\"\n!!!ARG:end\nB\n"),
         "A to B avoiding ['tolls', 'ferries']"),
        (_call("weather_at", "!!!ARG:coordinates\n46.603354,1.8883340\n!!!ARG:date\n2019-12-13\n"),
         "[46.603354, 1.888334] on 2019-12-13"),
        (_call("tag", "!!!ARG:note\nn\n!!!ARG:tags\nred, and green\nblue\n"), "n: ['red, and green', 'blue']"),
        (_call("tag", "!!!ARG:note\nn\n!!!ARG:tags\n1.50\n"), "n: ['1.50']"),
        (_call("tag", "!!!ARG:note\nn\n!!!ARG:tags\ntrue, 007\n"), "n: ['true', '007']"),
    ],
)  # fmt: skip
async def test_a_list_written_as_text_is_read_as_its_items(response: str, result: str) -> None:
    run, events = await _run_with([directions, weather_at, tag], response, "done")
    assert [r.result for r in run.gadget_results] == [result]
    assert run.repairs == {"value_as_list": 1}
    assert events[0].kind == "value_as_list"


async def test_a_list_written_as_a_list_is_not_repaired() -> None:
    for value in ('["tolls"]', "['tolls', 'ferries']"):
        run, _ = await _run_with(
            [directions], _call("directions", f"!!!ARG:start\nA\n!!!ARG:end\nB\n!!!ARG:avoid\n{value}\n"), "done"
        )
        assert run.gadget_results[0].ok and run.repairs == {}
    run, _ = await _run_with([tag], _call("tag", "!!!ARG:note\nn\n!!!ARG:tags/0\nred\n"), "done")
    assert run.gadget_results[0].result == "n: ['red']" and run.repairs == {}


async def test_items_that_do_not_validate_keep_the_calls_error() -> None:
    run, events = await _run_with(
        [directions], _call("directions", "!!!ARG:start\nA\n!!!ARG:end\nB\n!!!ARG:avoid\nhills,tolls\n"), "done"
    )
    [r] = run.gadget_results
    assert not r.ok and "avoid" in (r.error or "") and "valid list" in (r.error or "")
    assert run.repairs == {} and events == []


async def test_a_list_written_as_text_is_refused_in_strict_mode() -> None:
    with pytest.raises(RepairRefused, match="value_as_list"):
        await _run_with([tag], _call("tag", "!!!ARG:note\nn\n!!!ARG:tags\nred,blue\n"), "done", strict=True)


_ITEM = st.text(
    st.characters(blacklist_categories=("Cs", "Zl", "Zp", "Cc"), blacklist_characters=",\"'!"), min_size=1
).filter(lambda t: t.strip() and not t.strip().startswith(("[", "{")))


@settings(max_examples=60, deadline=None)
@given(items=st.lists(_ITEM, min_size=1, max_size=6), lines=st.booleans())
async def test_any_items_written_one_a_line_or_with_commas_are_read_back(items: list[str], lines: bool) -> None:
    if lines and len(items) == 1:
        items = [*items, "x"]
    written = ("\n" if lines else ",").join(items)
    run, _ = await _run_with([tag], _call("tag", f"!!!ARG:note\nn\n!!!ARG:tags\n{written}\n"), "done")
    assert run.gadget_results[0].result == f"n: {[i.strip() for i in items]}"


async def test_calls_with_their_values_in_the_header_alone_are_not_repeats_of_each_other() -> None:
    # The first call runs before the second arrives, as from a real model: the second was answered
    # as a repeat of the first (the same empty body), with the first year's result.
    first, second = _call("get_president_and_vp:1980"), _call("get_president_and_vp:1992")
    agent = Agent(model=MockModel([first + "\n" + second, "done"], chunk_size=4, delay_s=0.01), gadgets=GADGETS)
    result = await agent.run("task")
    assert [r.result for r in result.gadget_results] == ["president of 1980", "president of 1992"]
    assert result.repairs == {"header_arguments": 2}


# --- readings that compose: values before the first argument line, empty pairs, lists ----------


@gadget(description="The status of a criminal record.")
def record_status(criminal_name: str, region: str, optional_param: bool = False) -> str:
    return f"{criminal_name} in {region} ({optional_param})"


async def test_values_before_the_first_arg_line_bind_to_the_required_parameters_left_unset() -> None:
    # Qwen2.5-Coder-1.5B on BFCL (parallel_multiple_28, parallel_22).
    body = "john doe\nnew york\n!!!ARG:optional_param\ntrue\n"
    result, events = await _run_with([record_status], _call("record_status", body), "done")
    assert result.gadget_results[0].result == "john doe in new york (True)"
    assert result.repairs == {"values_in_order": 1}
    assert events[0].detail == (
        "record_status: the lines before the first !!!ARG: line read as criminal_name, region, in order"
    )


@pytest.mark.parametrize(
    "body",
    [
        "john doe\nnew york\nnow\n!!!ARG:optional_param\ntrue\n",  # three values for two parameters
        "Here is the call:\n!!!ARG:region\nnew york\n",  # one line: may be prose, never a value
    ],
)
async def test_lines_before_the_first_arg_line_that_are_not_values_in_order_are_not_read(body: str) -> None:
    result, _ = await _run_with([record_status], _call("record_status", body), "done")
    assert result.gadget_results[0].error is not None
    assert result.repairs == {}


async def test_a_name_given_empty_quotes_is_left_out() -> None:
    # Qwen2.5-Coder-1.5B: `venue=""` among name=value lines; the whole reading was refused.
    body = 'area=2000\nrooms=4\nlocation="x"\nround_to=""\n'
    result, _ = await _run_with([predict_price], _call("predict_price", body), "done")
    assert result.gadget_results[0].result == "x: 8000 rounded to 0"
    assert result.repairs == {"bare_parameter_names": 1}


async def test_a_required_parameter_given_empty_quotes_is_still_missing() -> None:
    result, _ = await _run_with([predict_price], _call("predict_price", 'area=2000\nrooms=4\nlocation=""\n'), "done")
    assert "location" in (result.gadget_results[0].error or "")


@gadget(description="A t-test of two samples.")
def t_test(dataset_A: list[int], dataset_B: list[int], alpha: float = 0.05) -> str:
    return f"{sum(dataset_A)} vs {sum(dataset_B)} at {alpha}"


@gadget(description="Play chess moves.")
def chess_play(moves: list[str]) -> str:
    return " ".join(moves)


@pytest.mark.parametrize(
    ("gadgets", "response", "result", "kinds"),
    [
        (
            [t_test],
            _call("t_test:dataset_A:12, 24, 36:dataset_B:15, 30, 45:alpha:0.01"),
            "72 vs 90 at 0.01",
            {"header_arguments", "value_as_list"},
        ),
        ([chess_play], _call("chess_play", "e4\ne5\n"), "e4 e5", {"body_as_parameter", "value_as_list"}),
    ],
)
async def test_a_list_read_as_text_by_another_reading_is_read_as_its_items(
    gadgets: list[object], response: str, result: str, kinds: set[str]
) -> None:
    got, _ = await _run_with(gadgets, response, "done")
    assert got.gadget_results[0].result == result
    assert set(got.repairs) == kinds


@gadget(description="Rewards of a game.")
def game_rewards(game: str, mission: str = "", level: int = 1, limit: int | None = 10) -> str:
    return f"{game} mission={mission!r} level={level} limit={limit}"


@pytest.mark.parametrize("word", ["None", "null", "None  "])
async def test_an_optional_parameter_written_as_a_null_word_takes_its_default(word: str) -> None:
    # Qwen2.5-Coder-1.5B wrote `!!!ARG:mission` then `None` for BFCL's optional strings: it meant
    # no mission, and the call ran with the mission "None".
    body = f"!!!ARG:game\nFortnite\n!!!ARG:mission\n{word}\n!!!ARG:level\nnull\n"
    result, events = await _run_with([game_rewards], _call("game_rewards", body), "done")
    assert result.gadget_results[0].result == "Fortnite mission='' level=1 limit=10"
    assert result.repairs == {"null_value": 1}
    assert events[0].detail == f"game_rewards: mission={word!r}, level='null' left out (no value)"


async def test_a_null_word_where_the_field_takes_none_is_none_not_the_default() -> None:
    # `limit: int | None = 10`: null says "no limit", which is not the default.
    result, _ = await _run_with(
        [game_rewards], _call("game_rewards", "!!!ARG:game\nFortnite\n!!!ARG:limit\nnull\n"), "done"
    )
    assert result.gadget_results[0].result == "Fortnite mission='' level=1 limit=None"
    assert result.repairs == {}


@pytest.mark.parametrize(
    ("body", "game"),
    [
        ("!!!ARG:game\nNone\n", "None"),  # required: the word is the value
        ("!!!ARG:game\nNone of them\n!!!ARG:mission\nNull Island\n", "None of them"),  # more than the word
    ],
)
async def test_a_null_word_of_a_required_parameter_or_within_a_value_stays(body: str, game: str) -> None:
    result, _ = await _run_with([game_rewards], _call("game_rewards", body), "done")
    assert result.gadget_results[0].result.startswith(f"{game} ")
    assert result.repairs == {}


async def test_a_null_word_is_refused_in_strict_mode() -> None:
    with pytest.raises(RepairRefused, match="null_value"):
        await _run_with(
            [game_rewards], _call("game_rewards", "!!!ARG:game\nx\n!!!ARG:mission\nNone\n"), "done", strict=True
        )


@gadget(description="Population history.")
def population_history(country: str, species: str, years: int) -> str:
    return f"{species} in {country} over {years} years"


@gadget(description="A stock's price.")
def stock_price(company: str, date: str, exchange: str = "NYSE") -> str:
    return f"{company} on {date} at {exchange}"


async def test_values_in_the_header_and_under_it_bind_in_the_order_written() -> None:
    # Qwen2.5-Coder-1.5B wrote four calls so (BFCL's parallel_multiple_14): read apart, neither
    # part fit, the call failed and the second, with the same body, was answered as its repeat.
    calls = _call("population_history:Bangladesh", "tiger\n5\n") + _call("population_history:India", "tiger\n5\n")
    result, events = await _run_with([population_history], calls, "done")
    # The two calls run side by side and results come in completion order: sort them.
    assert sorted(r.result for r in result.gadget_results) == [
        "tiger in Bangladesh over 5 years",
        "tiger in India over 5 years",
    ]
    assert result.repairs == {"values_in_order": 2}
    assert events[0].detail == (
        "population_history: the header's slots and the lines under it read as country, species, years, in order"
    )
    assert all(r.invocation_id not in ("Bangladesh", "India") for r in result.gadget_results)


async def test_a_header_value_comes_before_the_values_under_it() -> None:
    # Read apart, the body's two values took the two required parameters and the header's the
    # optional one: the company got the date (BFCL's parallel_178).
    result, _ = await _run_with([stock_price], _call("stock_price:Microsoft", "2022-01-01\nNASDAQ\n"), "done")
    assert result.gadget_results[0].result == "Microsoft on 2022-01-01 at NASDAQ"


async def test_an_id_the_instructions_teach_is_never_read_as_a_value() -> None:
    # `first` is the prompt's own example id; Qwen2.5-Coder-0.5B wrote it over a line of prose.
    result, _ = await _run_with([stock_price], _call("stock_price:first", "percentage\n"), "done")
    [r] = result.gadget_results
    assert r.error is not None and "company" in r.error
    assert result.repairs == {}


@gadget(description="Save a file into an existing folder.")
def save_file(folder: str, filename: str, content: str) -> str:
    return f"wrote {content!r} to {folder}/{filename}"


@pytest.mark.parametrize("header", ["save_file:third", "save_file:Fourth", "save_file:second:first"])
async def test_an_ordinal_in_the_header_is_an_id_never_the_missing_value(header: str) -> None:
    # Qwen2.5-Coder-0.5B went on from the taught `first` and `second` to `save_file:third`, with
    # no content under it: read in declared order, "third" was written as the file's content.
    result, _ = await _run_with(
        [save_file], _call(header, "!!!ARG:folder\nscripts\n!!!ARG:filename\nhello.py\n"), "done"
    )
    [r] = result.gadget_results
    assert r.error is not None and "content: missing" in r.error
    assert "header_arguments" not in result.repairs


async def test_a_value_in_the_header_that_is_no_ordinal_still_fills_the_missing_parameter() -> None:
    result, _ = await _run_with([save_file], _call("save_file:hello", "!!!ARG:folder\nd\n!!!ARG:filename\nf\n"), "done")
    assert result.gadget_results[0].result == "wrote 'hello' to d/f"
    assert result.repairs == {"header_arguments": 1}


_WORD = st.text(st.characters(whitelist_categories=("L", "N"), whitelist_characters=" -'"), min_size=1, max_size=20)


@settings(max_examples=40, deadline=None)
@given(
    country=_WORD.filter(lambda t: t.strip() not in ("first", "second", "country", "species", "years") and t.strip()),
    species=_WORD.filter(lambda t: bool(t.strip())),
    years=st.integers(min_value=0, max_value=10**6),
)
async def test_header_then_body_values_bind_in_the_order_written(country: str, species: str, years: int) -> None:
    assume(":" not in country and "," not in country and "=" not in country)
    result, _ = await _run_with(
        [population_history], _call(f"population_history:{country.strip()}", f"{species}\n{years}\n"), "done"
    )
    assert result.gadget_results[0].result == f"{species.strip()} in {country.strip()} over {years} years"


# --- the value where the parameter's name goes ------------------------------------------------


@pytest.mark.parametrize(
    ("response", "result"),
    [
        (_call("artwork_find", "!!!ARG:Louvre\nLouvre\n"), "paintings of Louvre"),  # the name written again
        (_call("artwork_find", "!!!ARG:Louvre\n"), "paintings of Louvre"),  # nothing under it
        (_call("get_president_and_vp", "!!!ARG:1980\n"), "president of 1980"),  # a number: coerced by the schema
    ],
)
async def test_a_value_where_the_only_arg_lines_name_goes_is_the_one_required_parameter(
    response: str, result: str
) -> None:
    # What Qwen2.5-Coder-1.5B wrote on two fresh sets of BFCL cases (`!!!ARG:Brazil` over `Brazil`, `!!!ARG:45`).
    done, events = await _run(response, "done")
    assert done.gadget_results[0].result == result
    assert done.repairs == {"values_in_order": 1}
    assert "line's" in events[0].detail and "read as the value of" in events[0].detail


@pytest.mark.parametrize(
    "response",
    [
        _call("artwork_find", "!!!ARG:place\n"),  # a parameter named wrong, nothing under it
        _call("artwork_find", "!!!ARG:Louvre\nPrado\n"),  # another value under it
        _call("artwork_find", "!!!ARG:Louvre\nLouvre\n!!!ARG:Prado\nPrado\n"),  # two such lines
        _call("save_note", "!!!ARG:Groceries\n"),  # two required parameters
    ],
)
async def test_a_name_that_is_no_value_is_not_read_as_one(response: str) -> None:
    done, _ = await _run(response, "done")
    assert done.gadget_results[0].error is not None
    assert done.repairs == {}


async def test_a_value_where_the_name_goes_is_refused_in_strict_mode() -> None:
    with pytest.raises(RepairRefused):
        await _run(_call("artwork_find", "!!!ARG:Louvre\nLouvre\n"), "done", strict=True)


@gadget(description="An account's transactions.")
def transactions(account: str, days: int, kind: str, memo: str = "") -> str:
    return f"{kind} of {account} over {days} days{memo}"


_ACCOUNT = "!!!ARG:account\n00125648\n"


@pytest.mark.parametrize(
    "response",
    [
        _call("transactions:7:credit", _ACCOUNT),  # header_arguments
        _call("transactions:7:credit", f"```\n{_ACCOUNT}```\n"),  # a fence around the body too
        _call("transactions", f"7\ncredit\n{_ACCOUNT}"),  # values_in_order before the first line
        _call("transactions", f'{_ACCOUNT}!!!ARG:days\n7\n!!!ARG:kind\n"credit"\n'),  # quoted_value
        _call("transactions", f"{_ACCOUNT}!!!ARG:days\n7\n!!!ARG:kind\ncredit\n!!!ARG:memo\nNone\n"),  # null_value
    ],
)
async def test_a_reading_keeps_the_other_values_as_written(response: str) -> None:
    # The parser reads 00125648 as the number 125648 (it has no schema); written back from that,
    # the account lost its zeros. Binding reads the value as written, by the schema: a string.
    result, events = await _run_with([transactions], response, "done")
    assert result.gadget_results[0].result == "credit of 00125648 over 7 days"
    assert events


async def test_calls_read_from_numbered_parameters_keep_their_values_as_written() -> None:
    body = "!!!ARG:account1\n00125648\n!!!ARG:account2\n0042\n!!!ARG:days\n7\n!!!ARG:kind\ncredit\n"
    result, _ = await _run_with([transactions], _call("transactions", body), "done")
    assert sorted(str(r.result) for r in result.gadget_results) == [
        "credit of 00125648 over 7 days",
        "credit of 0042 over 7 days",
    ]
    assert result.repairs == {"numbered_parameters": 1}


@gadget(description="The variance of a list of numbers.")
def statistics_variance(data: list[int], population: bool = True) -> str:
    return f"variance of {data}, population={population}"


async def test_values_alone_are_read_in_order_when_the_whole_body_is_no_value_of_the_one_required() -> None:
    # Qwen2.5-Coder-1.5B (BFCL's parallel_multiple_20): the list and the flag, one a line, for a
    # gadget with one required parameter. The whole body is no list of integers; the two lines
    # are the list and the optional flag, in declared order.
    result, events = await _run_with([statistics_variance], _call("statistics_variance", "[3, 4, 5]\nfalse\n"), "done")
    [r] = result.gadget_results
    assert r.result == "variance of [3, 4, 5], population=False"
    assert [(e.kind, e.detail) for e in events] == [
        ("values_in_order", "statistics_variance: the lines read as data, population, in order")
    ]
    # A body that is the one required parameter's value stays that, whatever its lines.
    result, events = await _run(_call("write_note", "milk\neggs\n"), "done")
    assert result.gadget_results[0].result == "'milk\\neggs'" and [e.kind for e in events] == ["body_as_parameter"]


@gadget(description="The number of turtles at a place in a year.")
def turtle_population(location: str, year: int = 2001, species: bool = False) -> str:
    return f"{location} in {year}, species={species}"


@gadget(description="Send a message.")
def send_message(text: str, signature: str = "") -> str:
    return f"{text!r} signed {signature!r}"


async def test_values_alone_that_give_numbers_or_flags_are_read_in_order_before_the_whole_body() -> None:
    # Qwen2.5-Coder-1.5B (BFCL's parallel_121): a place, a year and a flag, one a line, for a
    # gadget with one required string. The whole body would bind as one three-line location;
    # the year and the flag say the lines are the three parameters, in declared order.
    body = "galapagos\n2015\ntrue\n"
    result, events = await _run_with([turtle_population], _call("turtle_population", body), "done")
    assert result.gadget_results[0].result == "galapagos in 2015, species=True"
    assert [e.kind for e in events] == ["values_in_order"]
    # A line that is no year leaves the whole body as the location.
    body = "galapagos\nsoon\ntrue\n"
    result, events = await _run_with([turtle_population], _call("turtle_population", body), "done")
    assert result.gadget_results[0].result == "galapagos\nsoon\ntrue in 2001, species=False"
    assert [e.kind for e in events] == ["body_as_parameter"]
    # Lines that are all text stay one value: a two-line message keeps its second line.
    result, events = await _run_with([send_message], _call("send_message", "Hello\nAda\n"), "done")
    assert result.gadget_results[0].result == "'Hello\\nAda' signed ''"
    assert [e.kind for e in events] == ["body_as_parameter"]


@gadget(description="Look songs up; every filter optional.")
def lookup_music(artist: str = "dontcare", genre: str = "dontcare", year: int = 0) -> str:
    return f"{artist}/{genre}/{year}"


async def test_a_body_of_names_and_values_is_read_for_a_gadget_that_requires_nothing() -> None:
    # Qwen2.5-Coder-1.5B (BFCL's live cases): name=value lines for a gadget whose parameters are
    # all optional. No required parameter was missing, so the body was never read, and the call
    # ran with no arguments at all.
    body = 'artist="Pitbull"\ngenre=dontcare\nyear=2019\n'
    result, events = await _run_with([lookup_music], _call("lookup_music", body), "done")
    assert result.gadget_results[0].result == "Pitbull/dontcare/2019"
    assert [(e.kind, e.detail) for e in events] == [
        ("bare_parameter_names", "lookup_music: the lines artist, genre, year read as parameter names")
    ]
    # Its id stays an id: with nothing required, a header's slot is never read as a value.
    result, events = await _run_with([lookup_music], _call("lookup_music:pitbull", "genre=pop\n"), "done")
    assert result.gadget_results[0].result == "dontcare/pop/0"
    assert result.gadget_results[0].invocation_id == "pitbull"
    # Values alone or prose are not read: with nothing required they could be anything.
    for body in ("Pitbull\n", "Let me look that up.\n"):
        result, events = await _run_with([lookup_music], _call("lookup_music", body), "done")
        assert result.gadget_results[0].result == "dontcare/dontcare/0" and not events
    with pytest.raises(RepairRefused):
        await _run_with([lookup_music], _call("lookup_music", "artist=Sia\n"), "done", strict=True)
    # A value that does not fit fails the call on that value, instead of a run with no arguments.
    result, events = await _run_with([lookup_music], _call("lookup_music", "artist=Sia\nyear=dontcare\n"), "done")
    [r] = result.gadget_results
    assert r.result is None and r.error is not None and "year" in r.error and not events


@gadget(description="The current weather of a place.")
def current_weather(location: str, unit: Literal["celsius", "fahrenheit"] = "fahrenheit") -> str:
    return f"{location} in {unit}"


async def test_a_header_slot_that_makes_the_call_invalid_as_a_value_stays_its_id() -> None:
    # Qwen2.5-Coder-1.5B (BFCL's live_parallel_2): a city as each call's id, the place under it.
    # Read as a value, "boston" was the unit (no unit) and the call was refused whole; as the id
    # it was written as, the body is the location.
    response = _call("current_weather:boston", "Boston, MA\n") + _call("current_weather:sf", "San Francisco, CA\n")
    result, events = await _run_with([current_weather], response, "done")
    # Results arrive as each call finishes (in parallel), so by id.
    assert {r.invocation_id: r.result for r in result.gadget_results} == {
        "boston": "Boston, MA in fahrenheit",
        "sf": "San Francisco, CA in fahrenheit",
    }
    assert [e.kind for e in events] == ["body_as_parameter", "body_as_parameter"]
    # A slot that fits stays a value: the unit, read across the header and the body.
    result, events = await _run_with([current_weather], _call("current_weather:Oslo", "celsius\n"), "done")
    assert result.gadget_results[0].result == "Oslo in celsius"
    assert [e.kind for e in events] == ["values_in_order"]


@gadget(description="The frequency of a genotype.")
def genotype_frequency(allele_frequency: float, genotype: Literal["AA", "Aa", "aa"]) -> str:
    return f"{genotype} at {allele_frequency}"


async def test_values_alone_in_quotes_are_read_without_them() -> None:
    # Qwen2.5-Coder-1.5B (BFCL's parallel_multiple_143) wrote the enum's value as a JSON string.
    result, events = await _run_with([genotype_frequency], _call("genotype_frequency", '0.6\n"AA"\n'), "done")
    assert result.gadget_results[0].result == "AA at 0.6"
    assert [e.kind for e in events] == ["values_in_order"]


@gadget(description="Find a multiplayer game.")
def game_finder(platform: str, rating: float, genre: str = "any") -> str:
    return f"{genre} games on {platform} rated {rating}+"


async def test_a_name_with_nothing_after_its_equals_sign_is_left_out() -> None:
    # Qwen2.5-Coder-1.5B (BFCL's multiple_182): `genre=` with no value, the optional genre unset.
    body = "platform=Windows 10\nrating=4.5\ngenre=\n"
    result, events = await _run_with([game_finder], _call("game_finder", body), "done")
    assert result.gadget_results[0].result == "any games on Windows 10 rated 4.5+"
    assert [e.kind for e in events] == ["bare_parameter_names"]
    # With lines under it, the name is a name of its own line: they are its value.
    result, _ = await _run_with([game_finder], _call("game_finder", "platform:\nPS5\nrating: 4\n"), "done")
    assert result.gadget_results[0].result == "any games on PS5 rated 4.0+"
