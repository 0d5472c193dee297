"""Loop-level repairs of what models (small ones most of all) really write, each one visible.

- ``gadget_name``: a call names a gadget in another case or spelling (``Get-Weather`` for
  ``get_weather``, ``us_economy_gdp_by_state_year`` for ``us_economy.gdp_by_state_year`` or the
  other way round) that matches exactly one gadget: the call runs as that gadget. (A native
  call of the name llmist sent for a gadget with dots, which native tools cannot hold, is that
  gadget's call, not a repair: :func:`~llmist.execution.names.native_name`.)
- ``unknown_gadget``: a call names no gadget: the model is answered with the closest names.
- ``parameter_name``: a block call names a parameter its gadget lacks, which misspells exactly one
  parameter the call leaves unset: in another case or with other separators (``startLevel``), or
  one slip from it, a character left out, added, changed or two swapped (``startin_level`` for
  ``starting_level``; names of at least 4 characters). It is read as that parameter, if the call
  then validates. Qwen2.5-Coder-1.5B wrote ``startin_level`` and ``startin_balance`` on two fresh
  BFCL sets: a JSON-schema gadget (a BFCL function's, an MCP tool's) drops a name its schema
  lacks, so the call ran with the parameter's default.
- ``repeated_call``: a call identical to an earlier one of the same response, or to a successful
  one of the last response that had any: not run again. The model gets the earlier result with a
  note (a call of the same response: a note that names the call whose result it shares, as that
  one may still be running). Both rules go by what the model wrote, never by which call finished
  first: that is timing, and must not decide whether a call runs. (Qwen2.5-Coder-0.5B wrote one
  call twice in an answer that wanted it once; it ran once or twice as the first happened to
  finish before the second was read.)
- ``invented_result``: after its calls the model wrote a result itself: that text is dropped
  from the conversation and the model is told that results come from the system.
- ``body_as_prose``: an emoji call without its end marker (``🛠️[add 1 2]`` and then prose)
  whose gadget has no parameter left for a body: the text after it is prose, not its body.
- ``ignored_parameters``: a gadget that takes no parameters was called with some: it runs
  without them (nothing they could mean; Qwen2.5-Coder sent ``!!!ARG:file/path/to/log.txt`` to
  a log reader six times, whatever the error said).
- ``name_as_argument``: an emoji call with a parameter's name where its value goes and the value
  in the body (``🛠️[translate key]`` then ``hello``): the body is that parameter's value.
- ``extra_body``: an emoji call whose header fills every parameter and that has a body too
  (``🛠️[get_weather city="Tokyo"]`` then ``Tokyo``, or the result it expects, ``🛠️[capital_of
  country="France"]`` then ``Paris``): the body is dropped, as it has no parameter to go to.
- ``first_word_name``: a block call names no gadget, but its name is the first word of exactly
  one gadget's name that takes the call's parameters (``!!!GADGET_START:save`` for
  ``save_note``; told "give that call the id save", Qwen2.5-Coder wrote the id where the name
  goes): it runs as that gadget, and the name it was written with is an id later calls of the
  response may wait for.
- ``id_as_dependency``: a block call whose own id is an earlier call's of the same response and
  that waits for none (``!!!GADGET_START:read_note:save`` after the call ``save``): ids are
  unique, so that id is the call it waits for (a duplicate id gets an id of its own).
- ``dependency_by_name``: a block call waits for a gadget's name instead of a call's id
  (``!!!GADGET_START:count_to:c2:start_counter``): it waits for the one call of that gadget
  earlier in the same response.
- ``body_as_parameter``: a block call without ``!!!ARG:`` lines to a gadget with one required
  parameter (``!!!GADGET_START:get_weather`` then ``Los Angeles``): its body is that parameter.
- ``values_in_order``: a block body of values alone, one a line, as many as the gadget's required
  parameters (or all its parameters): bound in declared order (``3``, ``4``, ``2`` for ``a``,
  ``b``, ``c``); or such values under a call's only ``!!!ARG:`` line, one for that parameter and
  each declared after it (``!!!ARG:initial_speed`` then ``0``, ``5``, ``-9.81``); or two or more
  such values before a body's first ``!!!ARG:`` line, as many as the required parameters it leaves unset (or
  all it leaves unset: ``john doe``, ``new york``, then ``!!!ARG:optional_param``); or values in
  a block header's slots and then alone in its body, one sequence in the order written
  (``!!!GADGET_START:population_history:Bangladesh`` then ``tiger``, ``5``), but never an id
  the instructions teach or a model goes on with (``first``, ``third``: :data:`ID_WORDS`); or a
  call's only ``!!!ARG:`` line holding the value where the name goes, to a gadget with one
  required parameter (``!!!ARG:Brazil`` then ``Brazil``, or ``!!!ARG:45`` over nothing).
- ``bare_parameter_names``: a block body whose first line is a parameter's name alone, its value
  on the lines after it (``I``, ``10``, ``r``, ``0.01``), or with its value on its line
  (``city: Paris``, ``a=3``): read as ``!!!ARG:`` lines, each name a parameter of the gadget;
  also such lines before a body's first ``!!!ARG:`` line (``area=2000`` then ``!!!ARG:rooms``). A
  name given empty quotes (``venue=""``) is left out. A ``name=value`` line right under another
  written the same way is a name of its own even when no parameter has it (``result_limit=5``),
  handled as an ``!!!ARG:`` line of that name would be; a body so read that does not validate
  fails on what it named.
- ``header_arguments``: values in a block header's id and dependency slots where a required
  parameter is left unset and no earlier call of the response has that id
  (``!!!GADGET_START:get_president_and_vp:1980``, ``!!!GADGET_START:artwork_find:museum:Metropolitan``):
  read as arguments (by name when the first slot is a parameter's name or the header holds
  ``name=value`` pairs, ``!!!GADGET_START:artwork_find:type=installation;location=new york``,
  else in declared order into the missing required parameters, or into all the parameters left
  unset, when no slot is an id word such as ``third``); the call gets an id of its own
  and waits for none. A header's last slot that names a parameter the body leaves unset, over
  text before the body's first ``!!!ARG:`` line, is that text's argument line
  (``!!!GADGET_START:geo_distance_calculate:start_location`` then ``New York``, then
  ``!!!ARG:end_location``); a slot that was the id leaves the call an id of its own.
  These four run only on a block call that leaves a required parameter unset, and each reading
  is kept only if the call then validates. ``header_arguments`` also covers a call that sets
  every parameter its header names, when the header only repeats them (two or more of the
  gadget's parameter names, the first in the id slot:
  ``!!!GADGET_START:get_recipe:dish_name:Lasagne:serving_size:4``): the argument lines' values
  are kept, and the call gets an id of its own and waits for none.
- ``numbered_parameters``: a block call names parameters the gadget lacks, each a
  parameter's name with a number after it (``city1``, ``city2``; ``base_1``, ``height_1``): one
  call for each number, with the parameters under their own names, plus the parameters written
  without a number in every one (``!!!ARG:city1`` ``Tokyo``, ``!!!ARG:city2`` ``Oslo`` for
  ``get_weather``: ``city="Tokyo"`` and ``city="Oslo"``). Kept only if every call validates; the
  first keeps the call's id, the others get ids of their own.
- ``value_as_list``: a block call gives a list parameter a value that is no list
  (``!!!ARG:avoid`` then ``highways,tolls``, ``!!!ARG:cuisine`` then ``Seafood``): its lines, or
  else its comma-separated pieces (the emoji syntax's list form), are the items
  (``["highways", "tolls"]``, ``["Seafood"]``). Kept only if the call then validates. Also on
  the values another reading gave as text (``!!!GADGET_START:t_test:dataset_A:12, 24, 36:...``,
  or a body of moves one a line as the one required parameter).
- ``quoted_value``: a block call gives a string, number, integer or boolean parameter one line in
  matching quotes (``!!!ARG:unit`` then ``"m"``, ``'1 week'``; no quote of that kind inside): the
  quotes go. Small models write values as JSON literals; Qwen2.5-Coder did so for 7 BFCL values,
  each meant without them.
- ``null_value``: a block call gives an optional parameter the value ``None`` or ``null`` (how
  Python and JSON say "no value"), where binding would keep the word or fail on it: the parameter
  is left out, and takes its default. Kept only if the call then validates.
- ``missing_dependency``: a block call waits for an id that no call of the response (or of
  earlier ones) has, once the response has ended: it runs without waiting, and its result says
  so. It waited for nothing that exists, so nothing it could need is skipped; a call that waits
  for one of several calls of a gadget it names still fails (which one is meant is unknown).
  Reported when the response has ended (``agent._run.calls``).
- ``joined_words``: an emoji call with more unquoted words than parameters, to a gadget with one
  string parameter those words can all go to (``🛠️[search Los Angeles]``): that parameter
  takes them all (:func:`~llmist.gadgets.binding.bind_call` refuses every other such split).
- ``copied_prompt``: after its calls the model went on writing the system prompt's own lines (a
  gadget's usage note, its parameters, its example call): the response ends before the copy,
  which stays out of the conversation, and a call in it is not run (the stream shows what came).
- ``degenerate_response``: the model went on repeating itself instead of stopping (the same call a
  third time, the same lines over and over): the response ends there, the stream is closed, what
  came before the repeats is kept, and the repeated call is not run (``agent._run.degeneration``).
- ``json_call``: the model wrote a native tool call as text (``{"name": "add", "arguments":
  {...}}``, bare, fenced or in ``<tool_call>`` tags) naming one of the gadgets: it runs. So does
  each call of an object keyed by gadget names (``{"add": {"a": 1}, "add": {"a": 2}}``) whose
  every member names a gadget and holds only that gadget's parameters, and an object of one
  gadget's arguments alone (``{"a": 1, "b": 2}``) when that gadget is the only one whose
  parameters hold them all and include its required ones.

And what the parser tolerated to read a call (``ParsedCall.repairs``), counted the same way:

- ``marker_spelling``: a marker with a wrong count of ``!`` at a line start (``!!ARG:``);
- ``fused_argument``: a value on its argument's line (``!!!ARG:a 5``);
- ``code_fence``: a markdown fence around a block's arguments;
- ``missing_end``: a block without its end marker (ended by the next block or the response's end).

Every repair adds to ``AgentResult.repairs`` and calls the ``on_repair`` observer with a
:class:`RepairEvent`. ``Agent(strict=True)`` turns each into a :class:`RepairRefused` error.

:class:`CallRepairs` applies the repairs of calls as each call arrives; the loop counts and
reports what it noted, and repairs a response's text (``invented_result``) itself.
"""

from __future__ import annotations

import dataclasses
import json
import re
import shlex
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Final

from llmist.agent.ending import when_done
from llmist.agent.errors import RepairRefused
from llmist.agent.records import RepairEvent, RepairKind
from llmist.execution import GadgetExecutionResult
from llmist.execution.names import closest_names, gadget_names, same_name, unknown_gadget_text
from llmist.execution.results import call_result
from llmist.gadgets import Gadget, InvalidParametersError, bind_call, validate_params
from llmist.gadgets._schema import is_plain_string
from llmist.gadgets.binding import is_null_word, joined_words, shown_block_call, written_fields
from llmist.syntax import BlockParseError, ParsedCall, is_auto_id, native_call, next_auto_id
from llmist.syntax._tolerance import unquoted
from llmist.syntax.pointers import arguments_span, parse_block_body
from llmist.syntax.schema import json_schema
from llmist.syntax.writing import write_block_call

# RepairEvent and RepairKind are re-exported from here, their old home. They live with the run's
# records (llmist.agent.records), below the hooks that pass them on; not here also because this module
# is compiled: mypyc takes a frozen dataclass's class-level `type` tag for a field.
__all__ = [
    "INVENTED_RESULT_NOTE",
    "NEXT_STEPS_NOTE",
    "NEXT_STEP_NOTE",
    "NEXT_STEP_NOTES",
    "PARSER_REPAIRS",
    "STORED_OUTPUT_NOTE",
    "CallRepairs",
    "RepairEvent",
    "RepairKind",
    "RepairRefused",
    "call_signature",
    "closest_names",
    "drop_invented_results",
    "first_word_names",
    "json_calls",
    "next_step_note",
    "opens_like_result",
    "parameter_names",
    "same_name",
    "unknown_gadget_text",
    "without_json_calls",
    "without_stray_body",
]


PARSER_REPAIRS: dict[str, tuple[RepairKind, str]] = {
    "marker_spelling": ("marker_spelling", "a marker with a wrong count of marks read as the marker"),
    "fused_argument": ("fused_argument", "a value written on its argument's line read as that argument's value"),
    "code_fence": ("code_fence", "the code fence around the arguments dropped"),
    "missing_end": ("missing_end", "a call without its end marker ended at the next call or the response's end"),
    "json_call": ("json_call", "a native tool call written as JSON text run as a call"),
}
"""Each name the parser puts in ``ParsedCall.repairs``: the repair kind counted, and what it did."""

INVENTED_RESULT_NOTE = (
    "(The text you wrote after your call was removed: results come only from the system, like the "
    "one above. Go on with the task from this result.)"
)
"""Added to the last result of a response whose invented result was dropped. As a message of its
own after the results, it left Qwen2.5-Coder's last turn a reproach: it answered "I'm sorry, but I
can't assist with that request", or repeated the result and stopped (benchmarks/RESULTS.md)."""

# What an invented result starts with: "Result: 3", "Output of add:", "The result is 6912",
# "This will output ...", "Observation:", a chat template's result tag, an output fence.
_INVENTED = re.compile(
    r"\A\s*(?:\*\*)?(?:"
    r"(?:the\s+)?(?:tool\s+|gadget\s+)?(?:result|results|output|observation|response)s?\b[^\n]{0,60}?(?::|=|\bis\b)"
    r"|this\s+will\s+(?:output|return|print)"
    r"|<tool_response>|<result>|```(?:output|result)"
    r'|(?:```(?:json)?\s*)?\{\s*"(?:result|output|response)"\s*:'  # after a call written as JSON
    r")",
    re.IGNORECASE,
)


NEXT_STEP_NOTE = (
    "(If these results complete the task, answer now in plain text, saying what they show word for word. "
    "If not, make the next call.)"
)
"""Added to the last result of a response whose one call succeeded (text syntaxes). Without
it, Qwen2.5-Coder-1.5B often called again right after the result it needed (the same call, or
the gadget with the result's id as a parameter), and ended chains with "The task is done."
instead of the value (benchmarks/RESULTS.md, issue 23). "Word for word": told only to say what
they show, it answered "The ticket TCK-31 is jammed on floor 3." to "TCK-31: printer on floor 3
is jammed" in half of the runs."""

NEXT_STEPS_NOTE = (
    "(If these results complete the task, answer now in plain text, saying what they show. If not, make the next call.)"
)
""":data:`NEXT_STEP_NOTE` after a response of several calls, without "word for word": told to
repeat several results word for word, Qwen2.5-Coder gave one of them ("Paris" for the capitals
of France and Japan, the folder made and not the file saved into it)."""

_ENDING_NOTE = "(If these results complete the task, end it now by calling {}. If not, make the next call.)"

_ENDING_NOTES = re.escape(_ENDING_NOTE).replace(r"\{\}", r"[^\n]+")
NEXT_STEP_NOTES = re.compile("|".join((re.escape(NEXT_STEP_NOTE), re.escape(NEXT_STEPS_NOTE), _ENDING_NOTES)))
"""Every note :func:`next_step_note` gives."""


def next_step_note(enders: str, calls: int = 1) -> str:
    """What the last result of a response whose ``calls`` calls all succeeded ends with:
    :data:`NEXT_STEP_NOTE` (:data:`NEXT_STEPS_NOTE` after several calls), or, when gadgets end
    the run (``enders``: their names, as :func:`~llmist.agent.ending.ending_names` gives them),
    the note that says to end the task by calling them: told to answer in plain text,
    Qwen2.5-Coder-0.5B did, and never called ``finish`` as its task asked."""
    if enders:
        return _ENDING_NOTE.format(enders)
    return NEXT_STEPS_NOTE if calls > 1 else NEXT_STEP_NOTE


STORED_OUTPUT_NOTE = (
    "(An output above was too long to show: read what the task needs from it with "
    "GadgetOutputViewer and its id before you answer.)"
)
""":data:`NEXT_STEP_NOTE` in place when an output was stored instead of shown: told to say what
the results show, Qwen2.5-Coder answered from the viewer's example ("High-priority TODOs")."""


def call_signature(call: ParsedCall) -> tuple[str, str, str]:
    """What makes two calls identical: the gadget and the parameters as written (ids aside)."""
    if call.syntax == "emoji":
        return call.gadget_name, " ".join((call.raw_args or "").split()), (call.body or "").strip()
    if call.syntax == "native" and call.parameters is not None:
        return call.gadget_name, json.dumps(call.parameters, sort_keys=True, default=str), ""
    return call.gadget_name, "\n".join([line.strip() for line in call.parameters_raw.strip().splitlines()]), ""


def opens_like_result(text: str) -> bool:
    """Whether ``text``, written right after a call, opens like a result the model wrote itself
    ("Result: 3", "The output is ...", ``<tool_response>``): the ``invented_result`` repair's test."""
    return _INVENTED.match(text) is not None and bool(text.strip())


def drop_invented_results(text: str, start: str, end: str) -> tuple[str, list[str]]:
    """``text`` without the invented results that follow its calls, and those results.

    After each end marker ``end``, the text up to the next start marker ``start`` (or the end)
    is an invented result when it opens like one ("Result: ...", "The output is ...").
    """
    kept: list[str] = []
    dropped: list[str] = []
    pos = 0
    while (found := text.find(end, pos)) != -1:
        after = found + len(end)
        nxt = text.find(start, after)
        stop = len(text) if nxt == -1 else nxt
        kept.append(text[pos:after])
        stretch = text[after:stop]
        if stretch.strip() and _INVENTED.match(stretch):
            dropped.append(stretch.strip())
            kept.append("\n" if nxt != -1 else "")
        else:
            kept.append(stretch)
        pos = stop
    kept.append(text[pos:])
    return "".join(kept), dropped


# Where a tool call written as JSON may begin: {"name": ...} (OpenAI, Hermes and Qwen templates,
# bare, in a ```json fence or in <tool_call> tags), {"type": "function", "function": {...}}, an
# object of calls keyed by gadget names, {"get_weather": {"city": "Paris"}, ...}, or a gadget's
# arguments alone, {"city": "Paris"}: any object with a first member.
_JSON_CALL = re.compile(r'\{\s*"[^"\\\n]+"\s*:')


class _Members:
    """A decoded JSON object's members in their order, a name written twice kept twice: an
    object keyed by gadget names may call one gadget twice (``{"add": {...}, "add": {...}}``)."""

    __slots__ = ("pairs",)

    def __init__(self, pairs: list[tuple[str, object]]) -> None:
        self.pairs = pairs


_DECODER = json.JSONDecoder(object_pairs_hook=_Members)


def _plain(value: object) -> object:
    """A value :data:`_DECODER` decoded, as ``json.loads`` gives it (a name written twice in an
    object: the last one)."""
    if isinstance(value, _Members):
        return {name: _plain(member) for name, member in value.pairs}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value


def parameter_names(gadgets: Iterable[Gadget]) -> dict[str, dict[str, bool]]:
    """Each gadget's parameters, by the gadget's name: each parameter's name and whether it is
    required. What :func:`json_calls` and :func:`without_json_calls` take as ``parameters``."""
    return {
        gadget.name: {name: field.is_required() for name, field in written_fields(gadget.Params).items()}
        for gadget in gadgets
    }


def json_calls(
    text: str,
    names: Sequence[str],
    *,
    ids: Callable[[], str] = next_auto_id,
    parameters: Mapping[str, Collection[str]] | None = None,
) -> list[ParsedCall]:
    """The native tool calls written as JSON text in ``text`` that name one of the gadgets
    ``names`` (in any spelling :func:`same_name` accepts), as calls whose ``repairs`` say
    ``json_call``, each given its id by ``ids`` (a run's: :class:`~llmist.syntax.CallIds`). A
    JSON object naming no gadget is prose, and is left alone.

    Given ``parameters`` (each gadget's parameter names), two more forms are read (the second
    only with :func:`parameter_names`'s mapping of each name to whether it is required):

    - an object made of calls keyed by gadget names, one call a member in order:
      ``{"get_weather": {"city": "Paris"}, "get_weather": {"city": "Oslo"}}``. Each member must
      name a gadget, with an object of that gadget's parameters as its value; an id after the
      name (``"get_weather:first"``) is dropped;
    - a gadget's arguments without its name, ``{"city": "Paris", "days": 3}``: a call of the one
      gadget whose parameters hold every member and whose required ones are all there (two
      gadgets that fit: prose, since the call could be read two ways).

    Any other object (a result the model reports, ``{"get_weather": {"temp": 18}}``,
    ``{"temp": 18}``) is prose."""
    return [call for _, _, call in _json_call_spans(text, names, ids, parameters)]


# A fence or a chat template's tag right around a tool call written as JSON (Qwen2.5-Coder, served
# by llama.cpp, also wrapped its calls in the <tools> tags its template puts around the tool list).
_WRAP_BEFORE = re.compile(r"(?:```(?:json)?|<tool_call>|<tools>)\s*$")
_WRAP_AFTER = re.compile(r"\s*(?:```|</tool_call>|</tools>)")  # matched at the call's end


def without_json_calls(
    text: str, names: Sequence[str], *, parameters: Mapping[str, Collection[str]] | None = None
) -> tuple[str, list[str]]:
    """``text`` without the tool calls :func:`json_calls` reads in it (and the fence or
    ``<tool_call>`` tags around each), and without a result the model wrote after a call (as
    :func:`drop_invented_results` drops them: ``{"result": ...}`` too); and those results. The
    prose that is left once the calls are real tool calls."""
    kept: list[str] = []
    dropped: list[str] = []

    def after_call(stretch: str) -> str:
        """What follows a call, or a line break in place of a result the model wrote there."""
        if stretch.strip() and _INVENTED.match(stretch):
            dropped.append(stretch.strip())
            return "\n"
        return stretch

    pos = 0
    for start, end, _ in _json_call_spans(text, names, parameters=parameters):
        before = text[pos:start]
        wrap = _WRAP_BEFORE.search(before)
        before = before[: wrap.start()] if wrap else before
        kept.append(after_call(before) if pos else before)  # the text before the first call is prose
        after = _WRAP_AFTER.match(text, end)
        pos = after.end() if after else end
    kept.append(after_call(text[pos:]) if pos else text[pos:])
    return "".join(kept).strip(), dropped


def _json_call_spans(
    text: str,
    names: Sequence[str],
    ids: Callable[[], str] = next_auto_id,
    parameters: Mapping[str, Collection[str]] | None = None,
) -> list[tuple[int, int, ParsedCall]]:
    """Where each JSON object holding tool calls starts and ends in ``text``, and each call in it
    (an object keyed by gadget names holds several: each is found with the object's span).

    An object read whole is skipped past. One that does not decode (cut short, or not JSON) costs
    a read to where it fails, and each object opened inside it, read again, costs as much: the
    work grows with how deep the broken objects nest (Python's decoder stops at about a thousand
    levels), and a complete call inside a broken object is still found."""
    found: list[tuple[int, int, ParsedCall]] = []
    pos = 0
    while (m := _JSON_CALL.search(text, pos)) is not None:
        try:
            value, end = _DECODER.raw_decode(text, m.start())
            written = _written_calls(value, names, parameters)
        except (ValueError, RecursionError):  # not JSON, or nested deeper than Python reads: prose
            pos = m.end()
            continue
        pos = end
        for name, arguments in written:
            call = native_call(name, arguments, ids=ids)
            found.append((m.start(), pos, dataclasses.replace(call, repairs=("json_call",))))
    return found


def _written_calls(
    value: object, names: Sequence[str], parameters: Mapping[str, Collection[str]] | None
) -> list[tuple[str, str]]:
    """The gadget name and JSON arguments of each call a decoded JSON object writes (see
    :func:`json_calls`); none when it is not a call, or names no gadget."""
    named = _name_and_arguments(_plain(value))
    if named is not None:
        return [named] if named[0] in names or same_name(named[0], names) is not None else []
    if parameters is None or not isinstance(value, _Members):
        return []
    return _keyed_by_names(value, parameters) or _arguments_alone(value, parameters)


def _keyed_by_names(value: _Members, parameters: Mapping[str, Collection[str]]) -> list[tuple[str, str]]:
    """The calls of an object keyed by gadget names (:func:`json_calls`); none when a member is
    no such call."""
    calls: list[tuple[str, str]] = []
    for key, arguments in value.pairs:
        name = key.split(":", 1)[0].strip()
        gadget = name if name in parameters else same_name(name, parameters)
        if gadget is None or not isinstance(arguments, _Members):
            return []
        if not all(member in parameters[gadget] for member, _ in arguments.pairs):
            return []
        calls.append((name, json.dumps(_plain(arguments))))
    return calls


def _arguments_alone(value: _Members, parameters: Mapping[str, Collection[str]]) -> list[tuple[str, str]]:
    """The call an object of one gadget's arguments without its name stands for (Qwen2.5-Coder-0.5B
    answered BFCL's tasks with ``{"location": "Miami", "days": 7, "min_humidity": 50}`` in a
    fence): the one gadget whose parameters hold every member and whose required parameters are
    all members. None when no gadget or two fit, or a member is written twice; and none when
    ``parameters`` are names alone, not :func:`parameter_names`'s mapping of each name to whether
    it is required (what a gadget requires is then unknown)."""
    members = {name for name, _ in value.pairs}
    if not members or len(members) < len(value.pairs):
        return []
    fits: list[str] = []
    for gadget, params in parameters.items():
        if not isinstance(params, Mapping):
            return []
        if members <= params.keys() and all(name in members for name, required in params.items() if required):
            fits.append(gadget)
    return [(fits[0], json.dumps(_plain(value)))] if len(fits) == 1 else []


def _name_and_arguments(value: object) -> tuple[str, str] | None:
    """The gadget name and JSON arguments of a decoded tool call, or ``None`` if it is not one."""
    if isinstance(value, dict) and isinstance(value.get("function"), dict):
        value = value["function"]
    if not isinstance(value, dict) or not isinstance(value.get("name"), str):
        return None
    arguments = value.get("arguments", value.get("parameters", {}))
    if isinstance(arguments, str):
        return value["name"], arguments
    return (value["name"], json.dumps(arguments)) if isinstance(arguments, dict) else None


def emoji_header_repair(gadget: Gadget, call: ParsedCall) -> tuple[RepairKind, ParsedCall] | None:
    """An emoji call with a body that does not bind as written, read as small models mean it:

    - header arguments that are parameter names (``🛠️[translate key]`` then ``hello``): the
      names are dropped from the header, so the body fills the parameter (``name_as_argument``);
    - a body where the header already filled every parameter (``🛠️[get_weather city="Tokyo"]``
      then ``Tokyo``): the body is dropped (``extra_body``).

    ``None`` when the call binds as written, or neither reading binds. (A body after a call never
    closed is prose, not a body: :func:`without_stray_body`.)"""
    if len(call.raw_args or "") + len(call.body or "") > gadget.max_parameter_chars:
        return None  # too long to read: the limit's error, never a shorter call
    try:
        bind_call(gadget, call)
        return None
    except InvalidParametersError:
        pass
    try:
        tokens = shlex.split(call.raw_args or "")
    except ValueError:
        return None
    names = set(written_fields(gadget.Params))
    kept = [t for t in tokens if t not in names]
    if len(kept) < len(tokens):
        fixed = dataclasses.replace(call, raw_args=shlex.join(kept))
        if _binds(gadget, fixed):
            return "name_as_argument", fixed
    if "missing_end" in call.repairs:  # prose after a call never closed: ``body_as_prose``'s
        return None
    fixed = dataclasses.replace(call, body="")
    return ("extra_body", fixed) if _binds(gadget, fixed) else None


# A header token with a letter in it and no "=": a bare word (not a number, not name=value).
_BARE_WORD = re.compile(r"(?<!\S)[^\s=]*[^\W\d_][^\s=]*(?!\S)")


def body_arguments(gadget: Gadget, body: str, required: Sequence[str]) -> list[tuple[RepairKind, str, dict[str, str]]]:
    """The arguments of a block body written without ``!!!ARG:`` lines, read the ways small
    models write them: each reading that fits, with its repair kind and what was read, in the
    order to try them (the caller keeps the first with which the call validates).

    - ``bare_parameter_names``: each parameter's name on a line of its own, its value on the
      lines after it (``a``, ``3``, ``b``, ``4``), when the first line is a parameter's name (then
      the only reading);
    - ``body_as_parameter``: the gadget has one required parameter: the whole body is its value;
    - ``values_in_order``: one value a line, as many lines as required parameters (or as all
      parameters), bound in declared order (``3``, ``4``, ``2`` for ``a``, ``b``, ``c``). With one
      required parameter, tried after the whole body: ``[3, 4, 5]`` then ``true`` is no list of
      numbers, and is ``data`` and the optional ``population`` (Qwen2.5-Coder-1.5B). Tried first
      when the lines give values to parameters that are not text (:func:`_typed_values`).

    Values are text: binding coerces them by the schema."""
    fields = list(written_fields(gadget.Params))
    lines = body.strip("\r\n").splitlines()
    named = _bare_names(lines, set(fields))
    if named is not None:
        return [("bare_parameter_names", f"the lines {', '.join(named)} read as parameter names", named)]
    readings: list[tuple[RepairKind, str, dict[str, str]]] = []
    if len(required) == 1:
        readings.append(("body_as_parameter", f"the body read as {required[0]}", {required[0]: body.strip("\r\n")}))
    read = _in_declared_order(_values_alone(lines), required, fields)
    if read is not None and not (readings and len(read) == 1):  # one value: the whole body already
        in_order: tuple[RepairKind, str, dict[str, str]] = (
            "values_in_order",
            f"the lines read as {', '.join(read)}, in order",
            read,
        )
        readings.insert(0 if _typed_values(gadget, read) else len(readings), in_order)
    return readings


_NOT_TEXT: Final = frozenset({"integer", "number", "boolean"})
"""The JSON types whose values a line says as no text would: the sign that lines are values in order."""


def _typed_values(gadget: Gadget, read: Mapping[str, str]) -> bool:
    """Whether ``read`` gives a value to a parameter that is no text (a number, a boolean). The
    lines ``galapagos``, ``2015``, ``true`` are then a location, a year and a flag, not one
    three-line location (Qwen2.5-Coder-1.5B); the reading is kept only if each value binds to
    its parameter's type. Lines that are all text stay one value: a two-line message for a
    gadget with an optional string is still the message."""
    schema = json_schema(gadget.Params)
    return any(schema.kind(schema.properties.get(name)) in _NOT_TEXT for name in read)


def _values_alone(lines: Iterable[str]) -> list[str]:
    """The values of ``lines`` written one a line without names: each non-blank line, stripped,
    and without the quotes around it (``"AA"``), as a ``name="value"`` line's value and a one-line
    value under ``!!!ARG:`` are read (``quoted_value``): a value alone in quotes is a JSON habit
    (Qwen2.5-Coder-1.5B wrote ``0.6`` then ``"AA"`` for an enum of ``AA``, ``Aa``, ``aa``)."""
    return [unquoted(line.strip()) for line in lines if line.strip()]


def _in_declared_order(values: Sequence[str], required: Sequence[str], unset: Sequence[str]) -> dict[str, str] | None:
    """``values`` bound in declared order to the ``required`` parameters left unset when there are
    as many, else to all the parameters left unset (``unset``, in declared order) when there are as
    many; ``None`` otherwise. The one rule of values written without names, wherever they are:
    a body, the lines before its first ``!!!ARG:`` line, a header's slots."""
    for order in (required, unset):
        if len(values) == len(order):
            return dict(zip(order, values, strict=True))
    return None


def body_values(
    gadget: Gadget, slots: Sequence[str], body: str, required: Sequence[str], has_slots: bool
) -> list[tuple[RepairKind, str, dict[str, str], bool]]:
    """The readings of a block body without ``!!!ARG:`` lines (:func:`body_arguments`), each with
    its repair kind, what was read, and whether the header's ``slots`` were read too, in the order
    to try them. When the header holds values (``has_slots``) and the body values alone, both are
    one sequence in the order written (:func:`values_across`), tried first: read apart, the
    body's took the first parameters and the header's the rest (``get_stock_price:Microsoft``
    over ``2022-01-01`` and ``NASDAQ`` gave the company the date)."""
    readings = body_arguments(gadget, body, required)
    across = values_across(gadget, slots, body, required) if has_slots else None
    if across is not None and (
        not readings
        or (
            readings[0][0] != "bare_parameter_names"
            and header_arguments(gadget, slots, required, readings[0][2]) is not None
        )
    ):
        what = f"the header's slots and the lines under it read as {', '.join(across)}, in order"
        return [("values_in_order", what, across, True), *((*read, False) for read in readings)]
    return [(*read, False) for read in readings]


def values_across(gadget: Gadget, slots: Sequence[str], body: str, required: Sequence[str]) -> dict[str, str] | None:
    """Values alone in a block header's slots and then in its body, one a line, in the order
    written, bound in declared order as :func:`_in_declared_order` binds them
    (``!!!GADGET_START:animal_population_get_history:Bangladesh`` over ``tiger`` and ``5`` for
    ``country``, ``species``, ``years``); ``None`` when a slot is a parameter's name or a
    ``name=value`` pair (:func:`header_arguments` reads those), or an id the instructions teach
    (``first``: Qwen2.5-Coder-0.5B wrote ``genetics_calculate_similarity:first`` over one line of
    prose), or the count fits neither."""
    fields = list(written_fields(gadget.Params))
    if any(slot in written_fields(gadget.Params) or "=" in slot or is_id_word(slot) for slot in slots):
        return None
    lines = _values_alone(body.splitlines())
    return _in_declared_order([*slots, *lines], required, fields) if lines else None


ID_WORDS: Final = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")
"""Ids a model writes after the instructions' example: the two it shows (:data:`TAUGHT_IDS`) and
the ordinals a model goes on with for its third call and after (Qwen2.5-Coder wrote
``save_file:third`` and ``:fourth`` where it had more calls than the example). They are ids,
never values, so :func:`values_across` and :func:`header_arguments` leave them be."""

TAUGHT_IDS: Final = ID_WORDS[:2]
"""The ids the block syntax's instructions show a model in their dependency example (the system
prompt writes them from here)."""


def is_id_word(slot: str) -> bool:
    """Whether a header's slot is one of :data:`ID_WORDS`, in any case: an id, never a value."""
    return slot.strip().lower() in ID_WORDS


_NAME_VALUE = re.compile(r"(?P<name>[A-Za-z_][\w.-]*)(?P<sep>\s*[:=]\s*)(?P<value>\S.*)?")
"""A parameter's name and its value on one line: ``city: Paris``, ``a=3``; or nothing after the
``:`` or ``=`` (``genre=``)."""


def _bare_names(lines: list[str], fields: set[str]) -> dict[str, str] | None:
    """``lines`` read as parameter names on lines of their own, each followed by its value's
    lines, or with its value after ``:`` or ``=`` on its line (``city: Paris``); ``None`` unless
    the first non-blank line is a parameter's name. A name already read is a value the second
    time (a value may be a word that is also a parameter's name). A name given empty quotes
    (``venue=""``), or nothing after its ``=`` or ``:`` and no lines under it (``genre=``), is
    left out: the model said it has no value.

    A ``name=value`` line right under another written the same way (the same ``=`` or ``:``, the
    same spaces around it) is a name of its own even when no parameter has it (``result_limit=5``
    under ``keyword=Ji Sung Park``): read into the value above, it ran as part of the keyword
    without a word (Qwen2.5-Coder-1.5B); read as a name, the call fails naming it, or runs without
    it as an ``!!!ARG:`` line of that name would. Written another way, it is the value's next line
    (``code=x = 1`` then ``y = 2``)."""
    read: dict[str, list[str]] = {}
    emptied: set[str] = set()
    current: list[str] | None = None
    # How the line that began the value being read set it (`=`, ` = `, `: `), while that value
    # is still the one line; None once a line is under it, or when it began under its name.
    written_as: str | None = None
    for line in lines:
        word = line.strip()
        pair = _NAME_VALUE.fullmatch(word)
        if word in fields and word not in read:
            current = read[word] = []
            written_as = None
        elif (
            pair is not None
            and pair["name"] not in read
            and (pair["name"] in fields or (pair["value"] and pair["sep"] == written_as))
        ):
            value = pair["value"] or ""
            current = read[pair["name"]] = [unquoted(value)] if value else []
            written_as = pair["sep"] if value else None
            if value in ("", '""', "''"):
                emptied.add(pair["name"])
        elif current is not None:
            written_as = None
            current.append(line)
        elif word:
            return None
    values = {name: "\n".join(value).strip("\r\n") for name, value in read.items()}
    values = {name: value for name, value in values.items() if not (name in emptied and not value.strip())}
    return values if values and all(v.strip() for v in values.values()) else None


def header_arguments(
    gadget: Gadget, slots: Sequence[str], required: Sequence[str], params: Mapping[str, object]
) -> dict[str, str] | None:
    """Arguments written in a block header's id and dependency slots, or ``None``.

    ``!!!GADGET_START:artwork_find:type=installation;location=new york``: ``name=value`` pairs
    (:func:`_header_pairs`).
    ``!!!GADGET_START:artwork_find:museum:Metropolitan``: the first slot is a parameter's name,
    so the slots are names each followed by its value (a value's commas split it into slots: they
    are joined again). ``!!!GADGET_START:get_president_and_vp:1980``: as many slots as required
    parameters left unset by ``params`` (or as all parameters left unset:
    ``!!!GADGET_START:music_generate:D Minor:120:4/4``), bound to them in declared order, as
    :func:`body_arguments` binds values alone, unless a slot is an id word (``save_file:third``:
    :data:`ID_WORDS`)."""
    fields = written_fields(gadget.Params)
    # The parser split the header at ":" and the dependencies at ",": joined again, as written.
    header = ":".join([*slots[:1], ",".join(slots[1:])]) if len(slots) > 1 else "".join(slots)
    pairs = _header_pairs(header, fields, params)
    if pairs is not None:
        return pairs
    if slots and slots[0] in fields:
        read: dict[str, list[str]] = {}
        current: list[str] = []
        for slot in slots:
            if slot in fields and slot not in read and slot not in params:
                current = read[slot] = []
            else:
                current.append(slot)
        if read and all(read.values()):
            return {name: ", ".join(value) for name, value in read.items()}
        return None
    if any(is_id_word(slot) for slot in slots):
        return None  # ``save_file:third``: an id, the content still missing
    unset = [f for f in fields if f not in params]
    return _in_declared_order(slots, [r for r in required if r not in params], unset)


_PAIR_SEPARATOR = re.compile(r"\s*[;,&:]\s*|\s+")


def _header_pairs(header: str, fields: Mapping[str, object], params: Mapping[str, object]) -> dict[str, str] | None:
    """``type=installation;location=new york`` (a header's slots joined again): each parameter's
    name, ``=`` and its value, separated by ``;``, ``,``, ``&``, ``:`` or spaces; ``None`` unless the
    text is such pairs from its start, each name a parameter ``params`` left unset. A value runs
    to the next separator followed by another parameter's name and ``=``, so it may hold commas
    and spaces (``facilities=['playground', 'picnic area']``)."""
    names = [n for n in fields if n not in params]
    if "=" not in header or not names:
        return None
    name = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    starts = list(re.finditer(rf"(?:^|{_PAIR_SEPARATOR.pattern})({name})\s*=\s*", header))
    if not starts or starts[0].start() != 0:
        return None
    read: dict[str, str] = {}
    for match, after in zip(starts, [*starts[1:], None], strict=True):
        value = header[match.end() : after.start() if after is not None else len(header)].strip()
        if not value or match[1] in read:
            return None
        read[match[1]] = unquoted(value)
    return read


_NUMBERED = re.compile(r"(.+?)_?([0-9]+)")
"""A parameter's name with a number after it (``city1``, ``base_2``)."""


def numbered_calls(gadget: Gadget, params: Mapping[str, object]) -> list[dict[str, object]] | None:
    """``params`` of one call read as several calls when they name parameters ``gadget`` lacks,
    each a parameter's name and a number (``city1``, ``city2``): the parameters of each number
    under their own names, in the numbers' order, each with the parameters written without a
    number; ``None`` when a name is neither, a number sets a parameter twice, or none is numbered.
    A gadget that takes parameters it does not declare is never read so (``city1`` may be one)."""
    fields = written_fields(gadget.Params)
    if gadget.Params.model_config.get("extra") == "allow" or params.keys() <= fields.keys():
        return None
    shared: dict[str, object] = {}
    by_number: dict[int, dict[str, object]] = {}
    for name, value in params.items():
        if name in fields:
            shared[name] = value
            continue
        numbered = _NUMBERED.fullmatch(name)
        if numbered is None or numbered[1] not in fields:
            return None
        group = by_number.setdefault(int(numbered[2]), {})
        if numbered[1] in group:
            return None
        group[numbered[1]] = value
    return [{**shared, **by_number[n]} for n in sorted(by_number)]


def repeated_bodies(gadget: Gadget, raw: str, arg: str) -> list[str] | None:
    """The body of one block call read as the bodies of several when its argument lines name
    parameters more than once, each as many times (``!!!ARG:location`` ``Boston``, then
    ``!!!ARG:location`` ``San Francisco``): the k-th body holds the k-th line of each repeated
    name, and every body holds the lines written once (``unit``). ``None`` when no name repeats,
    repeated names differ in count, a name is no parameter's (or a path: ``items/0``), a repeated
    one is a list (its lines may be items), or text stands before the first argument line."""
    start, end, _ = arguments_span(raw, 0, len(raw), arg)
    lead, *pieces = raw[start:end].split(arg)
    names = [piece.split("\n", 1)[0].strip() for piece in pieces]
    fields = written_fields(gadget.Params)
    if lead.strip() or not all(name in fields for name in names):
        return None
    counts = Counter(names)
    repeats = {count for count in counts.values() if count > 1}
    if len(repeats) != 1:
        return None
    schema = json_schema(gadget.Params)
    if any(count > 1 and schema.kind(schema.properties.get(name)) == "array" for name, count in counts.items()):
        return None
    bodies: list[list[str]] = [[] for _ in range(repeats.pop())]
    taken = dict.fromkeys(counts, 0)
    for name, piece in zip(names, pieces, strict=True):
        line = arg + (piece if piece.endswith("\n") else piece + "\n")
        if counts[name] == 1:
            for body in bodies:
                body.append(line)
        else:
            bodies[taken[name]].append(line)
            taken[name] += 1
    return ["".join(body) for body in bodies]


def lead_arguments(
    gadget: Gadget, raw: str, arg: str, params: Mapping[str, object]
) -> tuple[RepairKind, str, dict[str, object], str] | None:
    """Arguments written before a block body's first ``!!!ARG:`` line, or ``None``: as bare names
    or ``name=value`` lines (``area=2000``, ``rooms=4``, then ``!!!ARG:round_to``), each name a
    parameter the argument lines left unset; else as two or more values alone, one a line, as many
    as the required parameters left unset (or all those left unset), in declared order (``john
    doe``, ``new york``, then ``!!!ARG:optional_param``), as :func:`body_arguments` reads a body of
    values (one line there may be prose: "Here is the call:").
    Also the body with them as argument lines (binding reads the body's argument lines again)."""
    start = 0 if raw.startswith(arg) else raw.find("\n" + arg) + 1
    if start <= 0 or not raw[:start].strip():
        return None
    fields = [f for f in written_fields(gadget.Params) if f not in params]
    named = _bare_names(raw[:start].splitlines(), set(fields))
    if named is not None:
        detail = f"the lines {', '.join(named)} before the first {arg.strip()} line read as parameter names"
        return "bare_parameter_names", detail, {**named, **params}, _argument_lines(arg, named) + raw[start:]
    values = _values_alone(raw[:start].splitlines())
    if len(values) < 2:  # one line before the arguments may be prose ("Here it is:"), never read as a value
        return None
    required = [f for f in fields if written_fields(gadget.Params)[f].is_required()]
    read = _in_declared_order(values, required, fields)
    if read is None:
        return None
    detail = f"the lines before the first {arg.strip()} line read as {', '.join(read)}, in order"
    return "values_in_order", detail, {**read, **params}, _argument_lines(arg, read) + raw[start:]


def spread_values(
    gadget: Gadget, raw: str, arg: str, params: Mapping[str, object]
) -> tuple[RepairKind, str, dict[str, object], str] | None:
    """Values written one a line under a block call's only ``!!!ARG:`` line, one for that
    parameter and each parameter declared after it (``!!!ARG:initial_speed`` then ``0``, ``5``,
    ``-9.81`` for ``initial_speed``, ``time``, ``gravity``), or ``None``: the parameters so read,
    and the body with them as argument lines."""
    if len(params) != 1 or raw.count(arg) != 1:
        return None
    [(name, value)] = params.items()
    fields = list(written_fields(gadget.Params))
    if not isinstance(value, str) or name not in fields:
        return None
    values = _values_alone(value.splitlines())
    order = fields[fields.index(name) : fields.index(name) + len(values)]
    if len(values) < 2 or len(order) != len(values):
        return None
    read = dict(zip(order, values, strict=True))
    detail = f"the lines under {name} read as {', '.join(order)}, in order"
    return "values_in_order", detail, dict(read), _argument_lines(arg, read)


def value_as_name(
    gadget: Gadget, raw: str, arg: str, params: Mapping[str, object]
) -> tuple[RepairKind, str, dict[str, object], str] | None:
    """A block call's only ``!!!ARG:`` line holding the value where a parameter's name goes, to a
    gadget with one required parameter, or ``None``: the name written again under it
    (``!!!ARG:Brazil`` then ``Brazil``), or nothing under it and a name unlike a parameter's
    (``!!!ARG:45``, ``!!!ARG:Brazil``: anything but lower-case letters, digits and underscores
    with no digit first). Qwen2.5-Coder-1.5B wrote both, on two fresh sets of BFCL cases. A name
    such as ``note`` over nothing is rather a parameter named wrong: its call fails, and the error
    lists the parameters. The parameter so read, and the body with it as an argument line."""
    if len(params) != 1 or raw.count(arg) != 1:
        return None
    [(name, value)] = params.items()
    fields = written_fields(gadget.Params)
    required = [field for field, info in fields.items() if info.is_required()]
    text = name.strip()
    if name in fields or len(required) != 1 or not text:
        return None
    written = "" if value is None else str(value).strip()
    if written != text and (written or _IDENTIFIER.fullmatch(name)):
        return None
    read = {required[0]: text}
    detail = f"the {arg.strip()} line's {text!r} read as the value of {required[0]}"
    return "values_in_order", detail, dict(read), _argument_lines(arg, read)


_IDENTIFIER = re.compile(r"[a-z_][a-z0-9_]*")
"""A name a parameter may have (``note``, ``max_results``), as written after ``!!!ARG:``."""


def misspelt_parameters(written: Collection[str], fields: Collection[str]) -> dict[str, str]:
    """The names of a call's parameters that ``fields`` (the gadget's) lack, each mapped to the
    one parameter it misspells: a parameter the call leaves unset that it matches ignoring case,
    ``_``, ``-`` and spaces (``startLevel`` for ``start_level``), or that it is one slip from
    (:func:`_one_slip`: ``startin_level`` for ``starting_level``). A name close to two unset
    parameters, or two names close to one, are left as written: which was meant is unknown; so
    are all when more names are unknown than parameters unset (no slip makes that many, and the
    look then costs at most the gadget's parameters squared, whatever a body holds)."""
    unknown = [name for name in written if name not in fields]
    unset = [field for field in fields if field not in written]
    if len(unknown) > len(unset):
        return {}
    meant: dict[str, str] = {}
    for name in unknown:
        close = same_name(name, unset)
        found = [close] if close is not None else [field for field in unset if _one_slip(name, field)]
        if len(found) == 1:
            meant[name] = found[0]
    targets = list(meant.values())
    return {name: field for name, field in meant.items() if targets.count(field) == 1}


def _renamed_arguments(raw: str, arg: str, meant: Mapping[str, str]) -> str:
    """The block body ``raw`` with each argument line that names a key of ``meant`` naming its
    value instead (``!!!ARG:startin_level``, and ``!!!ARG:startin_level/0`` for a list's item).
    Every value stays as written: binding reads the body again by the schema, and a value written
    back from what the parser made of it would lose its form (``00125648`` for a string is the
    number ``125648`` to a parser without the schema)."""
    for name, field in meant.items():
        line = re.compile(re.escape(arg) + r"([ \t]*)" + re.escape(name) + r"(?=[ \t]*(?:/|\r?\n|\Z))")
        template = arg.replace("\\", "\\\\") + r"\g<1>" + field.replace("\\", "\\\\")  # only "\" is special
        raw = line.sub(template, raw)
    return raw


def _one_slip(written: str, name: str) -> bool:
    """Whether ``written`` is ``name`` (case aside) with one character left out, added, changed,
    or two neighbours swapped; both at least 4 characters long, as one slip turns a shorter name
    into another (``a`` and ``b``, ``lat`` and ``lon``)."""
    a, b = written.lower(), name.lower()
    if min(len(a), len(b)) < 4 or abs(len(a) - len(b)) > 1 or a == b:
        return False
    i = 0
    while i < min(len(a), len(b)) and a[i] == b[i]:
        i += 1
    if len(a) != len(b):  # one left out or added: the rest after it is the same
        return a[i + 1 :] == b[i:] if len(a) > len(b) else a[i:] == b[i + 1 :]
    return a[i + 1 :] == b[i + 1 :] or (a[i + 2 :] == b[i + 2 :] and a[i : i + 2] == b[i : i + 2][::-1])


def list_items(text: str) -> list[str]:
    """The items of a list written as text without brackets: one a line when it has several
    lines, else its comma-separated pieces (``highways,tolls``, the emoji syntax's list form);
    each stripped, empty ones dropped, and without the quotes of ``"a", "b"``. ``[]`` for blank
    text. (The emoji binding splits at commas only and keeps every piece: its form is the
    syntax's own, this one a repair's reading.)"""
    lines = _values_alone(text.splitlines())
    pieces = lines if len(lines) > 1 else [p.strip() for p in text.split(",") if p.strip()]
    return [unquoted(piece) for piece in pieces]


def values_as_lists(
    params: Mapping[str, object], texts: Mapping[str, object], lists: Sequence[str]
) -> dict[str, object] | None:
    """``params`` with each list parameter (one of ``lists``) that holds no list but was written as
    text (its text in ``texts``) that is not a list either (no ``[`` or ``{`` first: binding reads
    those as JSON or Python) read as its items (:func:`list_items`); ``None`` when there is none."""
    read = {
        name: list_items(text)
        for name in lists
        if name in params
        and not isinstance(params[name], (list, dict))
        and isinstance(text := texts.get(name), str)
        and not _bracketed(text)
    }
    return {**params, **read} if read else None


def _may_need_reading(params: Mapping[str, object]) -> bool:
    """Whether a value of ``params`` is text that opens with a quote or says "no value" (``None``):
    the one look a well-formed call's values cost before :meth:`CallRepairs._quoted_values` and
    :meth:`CallRepairs._nulls_left_out` read them."""
    for value in params.values():  # noqa: SIM110 (every block call: a loop costs less than any() of a generator)
        if isinstance(value, str) and (value[:1] in ('"', "'") or is_null_word(value)):
            return True
    return False


def _quoted_line(value: object) -> bool:
    """Whether ``value`` is one line of text in matching quotes (``"m"``, ``'1 week'``)."""
    return isinstance(value, str) and "\n" not in value and unquoted(value) != value


def _bracketed(text: str) -> bool:
    """Whether ``text`` opens like a list or object literal, which binding decodes itself."""
    return text.lstrip().startswith(("[", "{"))


def _written_as_list(value: object) -> bool:
    """Whether a parsed value is a list or object already, or text that binding decodes as one."""
    return isinstance(value, (list, dict)) or (isinstance(value, str) and _bracketed(value))


def _read_as_text(call: ParsedCall, arg: str, names: Iterable[str]) -> dict[str, object]:
    """A block call's body parsed again with the top-level parameters ``names`` read as text, as
    written: the parser, which no schema tells their types, reads ``0`` as a number and ``1.50``
    as 1.5. Raises :class:`BlockParseError` as the parser does."""
    as_text = {"type": "object", "properties": {name: {"type": "string"} for name in names}}
    return parse_block_body(call.parameters_raw, arg_prefix=arg, schema=as_text)


def _as_written(call: ParsedCall, arg: str) -> dict[str, object]:
    """A block call's parameters with each top-level one the parser made a number or a boolean
    as its text was written (``00125648``, ``1.50``, ``True``), for a body a repair writes anew:
    binding reads that body again by the gadget's schema, and a string written back from the
    number would have lost its form (``125648``)."""
    params = call.parameters or {}
    coerced = [name for name, value in params.items() if isinstance(value, int | float)]  # bool is an int
    if not coerced:
        return dict(params)
    try:
        texts = _read_as_text(call, arg, coerced)
    except BlockParseError:
        return dict(params)
    return {name: texts.get(name, value) if name in coerced else value for name, value in params.items()}


def _written_arguments(name: str, params: Mapping[str, object], arg: str) -> str | None:
    """``params`` of a call to ``name`` written as a block body's argument lines (lists and
    objects as pointers), as binding reads them back; ``None`` when a value holds a marker, which
    no argument line can hold."""
    try:
        lines = write_block_call(name, params, arg_prefix=arg).split("\n")[1:-1]
    except ValueError:
        return None
    return "\n".join(lines) + "\n"


def _argument_lines(arg: str, values: Mapping[str, str]) -> str:
    """``values`` written as a block body's argument lines."""
    return "".join(f"{arg}{name}\n{value}\n" for name, value in values.items())


def _with_lines(body: str, arg: str, values: Mapping[str, str]) -> str:
    """The block body ``body`` with ``values`` added after it as argument lines."""
    return body + ("" if body.endswith("\n") or not body else "\n") + _argument_lines(arg, values)


def _listed(values: Mapping[str, object]) -> str:
    """``a='3', b='4'``: what a repair read, for its detail."""
    return ", ".join(f"{k}={v!r}" for k, v in values.items())


_FITTING_CALL_CHARS = 4000
"""The longest call an unknown gadget's answer writes again for the gadget its arguments fit
(about a thousand tokens): a longer one (a whole file's content) would double what the context
holds of it, and the model has it already."""


def _binds(gadget: Gadget, call: ParsedCall) -> bool:
    """Whether ``call`` binds and validates for ``gadget``."""
    try:
        return _validates(gadget, bind_call(gadget, call))
    except InvalidParametersError:
        return False


def _validates(gadget: Gadget, params: Mapping[str, object]) -> bool:
    """Whether ``params`` (bound) validate for ``gadget``."""
    try:
        validate_params(gadget, params)
    except InvalidParametersError:
        return False
    return True


def _takes_no_parameters(gadget: Gadget) -> bool:
    """Whether ``gadget`` takes no parameters and allows no extra ones."""
    params = gadget.Params
    return not params.model_fields and params.model_config.get("extra") is None


def _waits_for(call: ParsedCall, own: str) -> str:
    """The ``id_as_dependency`` repair's detail."""
    return f"{call.gadget_name}: its id {own!r} read as the call it waits for"


def _first_word(name: str) -> str:
    """The first word of a name, lower case: ``save`` of ``save_note``, ``SaveNote`` and ``save``."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name)
    return re.split(r"[_\-\s.]+", spaced.lower().strip("_-. "))[0]


def first_word_names(names: Iterable[str]) -> dict[str, str]:
    """The first word the ``first_word_name`` reading takes as a gadget's name whatever the call's
    parameters, by gadget name: a first word of that name alone, which matches no gadget's name
    itself (``save`` for ``save_note`` beside ``read_note``; none for ``get_weather`` beside
    ``get_time``, nor for ``add``)."""
    words = {name: _first_word(name) for name in names}
    counts = Counter(words.values())
    return {name: word for name, word in words.items() if word and counts[word] == 1 and same_name(word, words) is None}


def _takes(gadget: Gadget, call: ParsedCall, written: set[str]) -> bool:
    """Whether ``gadget`` has a parameter for each one ``call`` wrote and the call binds to it."""
    if not written <= set(written_fields(gadget.Params)):
        return False
    try:
        validate_params(gadget, bind_call(gadget, call))
    except InvalidParametersError:
        return False
    return True


def _has_parameters(call: ParsedCall) -> bool:
    """Whether ``call`` was written with any parameter (or anything where they go)."""
    if call.syntax == "emoji":
        return bool((call.raw_args or "").strip() or (call.body or "").strip())
    if call.syntax == "native":
        return bool(call.parameters) or call.parse_error is not None
    return bool(call.parameters_raw.strip())


def without_stray_body(gadget: Gadget, call: ParsedCall) -> ParsedCall | None:
    """``call`` without its body when that body is prose the model wrote after a call it never
    closed: an emoji call with no end marker, whose gadget binds the header alone but has no
    parameter left for the body. ``None`` when the call is not such a call."""
    if call.syntax != "emoji" or "missing_end" not in call.repairs or not (call.body or "").strip():
        return None
    try:
        bind_call(gadget, call)
        return None  # the body fits the gadget: it is the call's
    except InvalidParametersError:
        pass
    bare = dataclasses.replace(call, body="", parameters_raw="")
    try:
        bind_call(gadget, bare)
    except InvalidParametersError:
        return None  # the header is wrong too: the model is told what was wrong with the call
    return bare


class CallRepairs:
    """The repairs of one run's calls, made as each call arrives (see the module docstring).

    :meth:`admit` returns the call to run (repaired, or as it was) or the answer it gets without
    running; each repair made is left in :attr:`noted` for the loop to count and report (and,
    in strict mode, to refuse) before the call goes on. Synchronous, so a call that needs no
    repair costs no coroutine.
    """

    def __init__(
        self,
        gadgets: Mapping[str, Gadget],
        hidden: Iterable[str] = (),
        arg_prefix: str = "!!!ARG:",
        *,
        ids: Callable[[], str] = next_auto_id,
    ) -> None:
        self._gadgets = gadgets
        """The run's gadgets by name."""
        self._ids = ids
        """Where a call given an id of its own gets it: the run's (:class:`~llmist.syntax.CallIds`)."""
        self._arg = arg_prefix
        """The block syntax's argument marker in use."""
        self._no_parameters = frozenset(name for name, gadget in gadgets.items() if _takes_no_parameters(gadget))
        """The gadgets that take no parameters and allow no extra ones (the ``ignored_parameters``
        repair's gadgets)."""
        self.hidden = set(hidden)
        """Gadgets the model has not been offered yet (the output viewer, until an output is
        stored): they run when called, but an unknown gadget's answer does not list them.
        Offered in that list, Qwen2.5-Coder called the viewer with made-up ids."""
        self._response = 0
        """Which response of the run the calls now admitted belong to."""
        self._signatures: dict[str, tuple[tuple[str, str, str], int]] = {}
        """Invocation id -> what the call wrote and its response, for calls that may be repeated."""
        self._written: dict[tuple[str, str, str], str] = {}
        """What each call of the current response wrote -> its invocation id."""
        self._done: dict[tuple[str, str, str], GadgetExecutionResult] = {}
        """The successful calls of the last response that had any, by what they wrote."""
        self._done_in = 0
        """That response."""
        self.noted: list[tuple[RepairKind, str, str | None]] = []
        """Repairs made and not yet taken: ``(kind, detail, invocation id)``."""
        self._response_ids: dict[str, str] = {}
        """Invocation id -> gadget, for the calls of the current response admitted so far."""
        self._aliases: dict[str, str] = {}
        """Name a call was written with (``first_word_name``), or the id of a copy of it that was
        not run (``repeated_call`` in one response) -> the call's invocation id: a call that
        waits for that name waits for that call."""
        self._texts_by: dict[str, int] = {}
        """Gadget -> how many text parameters it has (worked out at its first emoji call)."""
        self._native = gadget_names(gadgets)
        """Native tool name -> gadget, for the gadgets whose names native tools cannot hold."""
        self._required_by: dict[str, frozenset[str]] = {}
        """Gadget -> its required parameters (worked out at its first block call)."""
        self._fields_by: dict[str, frozenset[str]] = {}
        """Gadget -> its parameters' names (worked out at its first block call)."""
        self._lists_by: dict[str, tuple[str, ...]] = {}
        """Gadget -> its list parameters (worked out at its first block call)."""
        self._scalars_by: dict[str, frozenset[str]] = {}
        """Gadget -> its string, number, integer and boolean parameters (worked out at its first
        block call with a quoted value)."""

    def start_response(self) -> None:
        """The calls that follow belong to a new response (ids and dependencies are read
        within one response)."""
        self._response += 1
        self._written = {}
        self._response_ids = {}
        self._aliases = {}

    def admit(self, call: ParsedCall) -> ParsedCall | GadgetExecutionResult:
        """``call`` after the repairs: what the parser tolerated noted, a misspelt gadget name
        fixed, prose taken for an unclosed call's body given back; or the answer of an unknown
        gadget (the closest names) or of a repeated call (its earlier result)."""
        if call.repairs:
            self._note_parser_repairs(call)
        if call.gadget_name not in self._gadgets:
            named = self._named(call)
            if not isinstance(named, ParsedCall):
                return named
            call = named
        if call.syntax == "block":
            call = self._block(call)
        self._response_ids[call.invocation_id] = call.gadget_name
        if call.syntax == "emoji":
            call = self._emoji(call)
        if call.repairs and call.syntax == "emoji":
            call = self._unclosed(call)
        if call.gadget_name in self._no_parameters and _has_parameters(call):
            call = self._without_parameters(call)
        signature = call_signature(call)
        twin = self._written.get(signature)
        if twin is not None:
            return self._same_as(call, twin)
        self._written[signature] = call.invocation_id
        # A call of this response that ``_done`` holds was written above, and is the twin.
        earlier = self._done.get(signature)
        if earlier is not None and not earlier.breaks_loop:
            detail = f"{call.gadget_name} call identical to {earlier.invocation_id} answered with its result"
            self._note("repeated_call", detail, call.invocation_id)
            done = when_done(self._gadgets.values(), "answer in plain text now, without any call")
            note = (
                # Told only "use it instead", Qwen2.5-Coder-1.5B sent the same call until
                # max_iterations; told that the task may be done and how to end it, it answered
                # (benchmarks/RESULTS.md, issue 23).
                f"\n(You already made this exact call ({earlier.invocation_id}) and this is its result again: "
                f"calling {call.gadget_name} again with these values only repeats it. Use this result. "
                f"If the task is done, {done}.)"
            )
            return call_result(call, f"{earlier.result or ''}{note}", None, "success")
        self._signatures[call.invocation_id] = (signature, self._response)
        return call

    def _same_as(self, call: ParsedCall, twin: str) -> GadgetExecutionResult:
        """The answer of ``call``, identical to the call ``twin`` of the same response: not run.
        A later call that waits for ``call`` waits for ``twin``, whose result it would have had."""
        self._aliases[call.invocation_id] = twin
        self._note(
            "repeated_call",
            f"{call.gadget_name} call identical to {twin} of the same response, not run",
            call.invocation_id,
        )
        note = (
            f"(This call is identical to {twin} in the same answer, so it was not run twice: the result of "
            f"{twin} is its result. To run a gadget twice, make the calls differ.)"
        )
        return call_result(call, note, None, "success")

    def remember(self, r: GadgetExecutionResult) -> None:
        """A call of the run finished: a successful one answers the same call made in a later
        response, until a call of another response succeeds. That one may have changed what the
        first would return now (a command run, the file it reads written, the command run again),
        so from then on a repeat runs. The calls of one response ran side by side, in no order
        the model could count on, so each of them answers its repeats."""
        written = self._signatures.pop(r.invocation_id, None)
        if written is None or not r.ok or r.skip is not None:
            return
        signature, response = written
        if response != self._done_in:
            self._done, self._done_in = {}, response
        self._done.setdefault(signature, r)

    def text_calls(self, prose: str) -> list[ParsedCall]:
        """Native tool calls the model wrote as JSON text in a response's ``prose`` (outside any
        call) that name a gadget: run as calls, each counted as a ``json_call`` repair."""
        if '"' not in prose:
            return []
        parameters = parameter_names(self._gadgets.values())
        return json_calls(prose, list(self._gadgets), ids=self._ids, parameters=parameters)

    def take_noted(self) -> list[tuple[RepairKind, str, str | None]]:
        """The repairs noted since the last take, oldest first."""
        noted, self.noted = self.noted, []
        return noted

    def _note(self, kind: RepairKind, detail: str, invocation_id: str | None) -> None:
        self.noted.append((kind, detail, invocation_id))

    def _note_parser_repairs(self, call: ParsedCall) -> None:
        """Each tolerance the parser needed to read ``call``, as a repair."""
        for name in call.repairs:
            kind, what = PARSER_REPAIRS.get(name, (None, name))
            if kind is not None:
                self._note(kind, f"{call.gadget_name}: {what}", call.invocation_id)

    def _first_word_name(self, call: ParsedCall) -> ParsedCall | None:
        """``call`` (a block call of an unknown gadget, with no id) as the one gadget whose name's
        first word its name is and that takes its parameters; ``None`` when no such gadget, or
        several. The call keeps its invocation id (the stream has shown it); the name
        it was written with becomes another id for it."""
        written = call.gadget_name
        if call.syntax != "block" or not is_auto_id(call.invocation_id) or self._known_id(written):
            return None
        word = written.lower()
        params = set(call.parameters or ())
        found = [
            gadget
            for name, gadget in self._gadgets.items()
            if name not in self.hidden and _first_word(name) == word and _takes(gadget, call, params)
        ]
        if len(found) != 1:
            return None
        gadget = found[0].name
        self._note("first_word_name", f"call {written!r} read as {gadget}, {written!r} as its id", call.invocation_id)
        self._aliases[written] = call.invocation_id
        return dataclasses.replace(call, gadget_name=gadget)

    def _named(self, call: ParsedCall) -> ParsedCall | GadgetExecutionResult:
        """``call``, which names no gadget as written, naming the gadget it means (a native tool
        name, sent without the gadget's dots; ``gadget_name``; ``first_word_name``), or the
        answer of an unknown gadget."""
        name = call.gadget_name
        if call.syntax == "native" and name in self._native:  # the name llmist sent: no repair
            return dataclasses.replace(call, gadget_name=self._native[name])
        names = list(self._gadgets)
        fixed = same_name(name, names)
        if fixed is not None:
            self._note("gadget_name", f"gadget {name!r} read as {fixed!r}", call.invocation_id)
            return dataclasses.replace(call, gadget_name=fixed)
        named = self._first_word_name(call)
        if named is None:
            offered = [n for n in names if n not in self.hidden]
            text = unknown_gadget_text(name, offered) + self._fitting_gadget(call, offered)
            self._note("unknown_gadget", text, call.invocation_id)
            if call.syntax == "block" and is_auto_id(call.invocation_id) and not self._known_id(name):
                # A later call that waits for this name waits for this call, as for a gadget's
                # name (dependency_by_name), and is skipped with it: it ran without waiting, its
                # precondition unmet (count_to of a counter start_laps never started).
                self._aliases[name] = call.invocation_id
            return call_result(call, None, text, "error")
        return named

    def split(self, call: ParsedCall) -> list[ParsedCall] | None:
        """``call`` as the calls it writes when it names parameters its gadget lacks, or ``None``
        when it names none, or no reading of them validates: with numbered parameters
        (``numbered_parameters``: ``city1``, ``city2`` for ``get_weather``'s ``city``), a call a
        number; else, with a parameter's name misspelt (``parameter_name``:
        :meth:`_parameter_names`), the one call with that name read as meant. Of several calls the
        first keeps the call's id; the others get ids of their own, and each waits for what the
        call waited for. Called before :meth:`admit`, which then takes each; Qwen2.5-Coder-0.5B
        asked for two cities' weather six times over so."""
        gadget = self._gadgets.get(call.gadget_name)
        params = call.parameters
        # Block calls only: a native call's result must answer the one tool call id the provider
        # gave (a second result would name an id the API never issued), and an emoji call's
        # arguments are positional. The common case costs one look at the parameters' names.
        if call.syntax != "block" or gadget is None:
            return None
        if not params:
            return self._repeated_parameters(call, gadget) if call.parse_error is not None else None
        if params.keys() <= self._fields(call.gadget_name):
            return None
        read = numbered_calls(gadget, params)
        if read is None:
            renamed = self._parameter_names(call)
            return None if renamed is call else [renamed]
        texts = numbered_calls(gadget, _as_written(call, self._arg))  # the same calls, values as written
        if texts is None:
            return None
        parts: list[tuple[Mapping[str, object], str]] = []
        for one, text in zip(read, texts, strict=True):
            written = _written_arguments(call.gadget_name, text, self._arg)
            if written is None:
                return None
            parts.append((one, written))
        detail = f"the parameters {', '.join(params)} read as {len(parts)} call(s), one a number"
        return self._several(call, gadget, parts, "numbered_parameters", detail)

    def _repeated_parameters(self, call: ParsedCall, gadget: Gadget) -> list[ParsedCall] | None:
        """``call`` (a block call the parser refused: a parameter's argument line written twice)
        as the calls its bodies write (``repeated_parameters``, :func:`repeated_bodies`), or
        ``None``. Qwen2.5-Coder wrote one call with two ``location`` lines for two cities' weather,
        and three of each value for three stocks."""
        bodies = repeated_bodies(gadget, call.parameters_raw, self._arg)
        if bodies is None:
            return None
        try:
            parts = [(parse_block_body(body, arg_prefix=self._arg), body) for body in bodies]
        except BlockParseError:
            return None
        detail = f"the argument lines written more than once read as {len(parts)} calls, one a line"
        return self._several(dataclasses.replace(call, parse_error=None), gadget, parts, "repeated_parameters", detail)

    def _several(
        self,
        call: ParsedCall,
        gadget: Gadget,
        parts: Sequence[tuple[Mapping[str, object], str]],
        kind: RepairKind,
        detail: str,
    ) -> list[ParsedCall] | None:
        """``call`` as one call for each of ``parts`` (parameters and the body that writes them),
        if each binds and validates, the reading ``kind`` noted; else ``None``."""
        calls: list[ParsedCall] = []
        for params, written in parts:
            # The parser's tolerances are the first call's alone: admit notes them once.
            tolerated = () if calls else call.repairs
            part = dataclasses.replace(call, parameters=dict(params), parameters_raw=written, repairs=tolerated)
            if not _binds(gadget, part):
                return None
            calls.append(part)
        # Ids only once every call validates: a reading that is dropped takes none of the run's.
        calls[1:] = [dataclasses.replace(part, invocation_id=self._ids()) for part in calls[1:]]
        self._note(kind, f"{call.gadget_name}: {detail}", call.invocation_id)
        return calls

    def _fitting_gadget(self, call: ParsedCall, offered: Sequence[str]) -> str:
        """What an unknown gadget's answer adds when the one gadget of ``offered`` that takes the
        call's arguments exists: its name, and in the block syntax the call written for it. Never
        run in its place (``read_file`` written where only ``delete_file`` takes a path): the model
        decides. Qwen2.5-Coder-1.5B, told only the gadgets' names, sent its ``start_laps`` (for
        ``start_counter``) six times over. An emoji call's arguments are positional: no name says
        which gadget they fit, so it gets no such hint."""
        written = set(call.parameters or ())
        if call.syntax == "emoji" or not written:
            return ""
        fits = [name for name in offered if _takes(self._gadgets[name], call, written)]
        if len(fits) != 1:
            return ""
        gadget = fits[0]
        hint = f" Its arguments fit {gadget}: if that gadget does what you meant, call it"
        if call.syntax != "block" or call.parameters is None:
            return hint + "."
        own = None if is_auto_id(call.invocation_id) else call.invocation_id
        try:
            block = shown_block_call(gadget, call.parameters, self._arg, invocation_id=own, deps=call.dependencies)
        except ValueError:  # a value holding a marker: no block can carry it
            return hint + "."
        if len(block) > _FITTING_CALL_CHARS:  # the model has its call: only the name is news
            return hint + "."
        return f"{hint}:\n{block}"

    def _block(self, call: ParsedCall) -> ParsedCall:
        """A block call with its arguments and ids read as meant."""
        # Only a call that leaves a required parameter unset is read again: a well-formed call
        # costs one look at its parameters here.
        required = self._required_by.get(call.gadget_name)
        if required is None:
            required = self._required(call.gadget_name)
        params = call.parameters
        if required and params is not None and not params.keys() >= required and call.parse_error is None:
            call = self._block_arguments(
                call, tuple(f for f in written_fields(self._gadgets[call.gadget_name].Params) if f in required)
            )
        elif not required and params == {} and call.parse_error is None and call.parameters_raw.strip():
            call = self._named_arguments(call)
        lists = self._lists_by.get(call.gadget_name)
        if lists is None:
            lists = self._lists(call.gadget_name)
        if lists and call.parameters and call.parse_error is None:
            call = self._values_as_lists(call, lists)
        if call.parameters and _may_need_reading(call.parameters):
            call = self._nulls_left_out(self._quoted_values(call), required)
        if call.dependencies and call.parameters and call.invocation_id in call.parameters:
            call = self._header_repeating_arguments(call)
        return self._ids_as_meant(call) if self._response_ids or self._aliases else call

    def _header_repeating_arguments(self, call: ParsedCall) -> ParsedCall:
        """``call`` with no id or dependencies of its own when its header only repeats its
        arguments (``!!!GADGET_START:get_recipe:dish_name:Lasagne:serving_size:4`` over argument
        lines that set both): the header names two or more of the gadget's parameters, the
        first in the id slot, and the argument lines set each of them. Read as an id and
        dependencies, two such calls had one id and the second was refused as a duplicate."""
        fields = written_fields(self._gadgets[call.gadget_name].Params)
        params = call.parameters or {}
        names = [slot for slot in (call.invocation_id, *call.dependencies) if slot in fields]
        if len(names) < 2 or not all(name in params for name in names):
            return call
        fresh = self._ids()
        repeated = ", ".join(names)
        detail = f"{call.gadget_name}: the header repeats its {repeated} (the argument lines' values kept), not an id"
        self._note("header_arguments", detail, fresh)
        return dataclasses.replace(call, invocation_id=fresh, dependencies=())

    def _emoji(self, call: ParsedCall) -> ParsedCall:
        """An emoji call with its header and body read as meant."""
        args = call.raw_args
        if args and " " in args and self._overflows(call.gadget_name, args):
            call = self._joined_words(call)
        return self._emoji_header(call) if (call.body or "").strip() else call

    def _overflows(self, name: str, args: str) -> bool:
        """Whether an emoji header's bare words (``args``; numbers and ``name=value`` aside) are
        more than the gadget ``name`` has text parameters: the one look a well-formed call costs."""
        texts = self._texts_by.get(name)
        if texts is not None and args.count(" ") < texts:
            return False  # fewer tokens than text parameters: no word can overflow
        if texts is None:
            gadget = self._gadgets[name]
            schema = json_schema(gadget.Params)
            texts = self._texts_by[name] = sum(1 for f in schema.properties if is_plain_string(schema, f))
        return len(_BARE_WORD.findall(args)) > texts

    def _joined_words(self, call: ParsedCall) -> ParsedCall:
        """``call`` with the bare words that overflow its parameters joined into its one text
        parameter (:func:`~llmist.gadgets.binding.joined_words`), when it does not bind as written
        and that reading does."""
        gadget = self._gadgets[call.gadget_name]
        if _binds(gadget, call):
            return call
        for fixed in joined_words(gadget, call):
            if _binds(gadget, fixed):
                detail = f"{call.gadget_name}: the words {call.raw_args!r} read as {fixed.raw_args!r}"
                self._note("joined_words", detail, call.invocation_id)
                return fixed
        return call

    def _fields(self, name: str) -> frozenset[str]:
        """The parameters' names of the gadget ``name``, worked out once."""
        found = self._fields_by.get(name)
        if found is None:
            gadget = self._gadgets.get(name)
            found = self._fields_by[name] = frozenset(written_fields(gadget.Params) if gadget is not None else ())
        return found

    def _parameter_names(self, call: ParsedCall) -> ParsedCall:
        """``call`` (a block call naming parameters its gadget lacks) with each name that misspells
        one it leaves unset written as that one (:func:`misspelt_parameters`), if the call then
        binds and validates; else as it was, for its error. A gadget that takes names it does not
        declare (``extra="allow"``) takes them as written."""
        gadget = self._gadgets[call.gadget_name]
        params = call.parameters or {}
        if gadget.Params.model_config.get("extra") == "allow":
            return call
        meant = misspelt_parameters(params, self._fields(call.gadget_name))
        if not meant:
            return call
        renamed = {meant.get(name, name): value for name, value in params.items()}
        written = _renamed_arguments(call.parameters_raw, self._arg, meant)
        fixed = dataclasses.replace(call, parameters=renamed, parameters_raw=written)
        if not _binds(gadget, fixed):
            return call
        detail = ", ".join(f"{name!r} read as {field!r}" for name, field in meant.items())
        self._note("parameter_name", f"{call.gadget_name}: {detail}", call.invocation_id)
        return fixed

    def _required(self, name: str) -> frozenset[str]:
        """The required parameters of the gadget ``name``, worked out once."""
        gadget = self._gadgets.get(name)
        fields = written_fields(gadget.Params) if gadget is not None else {}
        found = self._required_by[name] = frozenset(f for f, info in fields.items() if info.is_required())
        return found

    def _lists(self, name: str) -> tuple[str, ...]:
        """The list parameters of the gadget ``name``, worked out once."""
        gadget = self._gadgets.get(name)
        schema = json_schema(gadget.Params) if gadget is not None else None
        found = self._lists_by[name] = (
            tuple(f for f, node in schema.properties.items() if schema.kind(node) == "array") if schema else ()
        )
        return found

    def _values_as_lists(self, call: ParsedCall, lists: tuple[str, ...]) -> ParsedCall:
        """``call`` with the text values of its list parameters read as lists (``value_as_list``,
        :func:`values_as_lists`), when it does not validate as written and does so read."""
        params = call.parameters or {}
        if all(name not in params or _written_as_list(params[name]) for name in lists):
            return call  # every list written as one, or left out: the one look a well-formed call costs
        gadget = self._gadgets[call.gadget_name]
        try:
            bound = bind_call(gadget, call, arg_prefix=self._arg)
            if _validates(gadget, bound):
                return call
            texts = _read_as_text(call, self._arg, lists)  # the lists' values as written
        except (InvalidParametersError, BlockParseError):
            return call
        read = values_as_lists(bound, texts, lists)
        if read is None:
            return call
        written = _written_arguments(call.gadget_name, read, self._arg)
        if written is None:
            return call
        fixed = dataclasses.replace(call, parameters=read, parameters_raw=written)
        if not _binds(gadget, fixed):
            return call
        changed = [f"{name}={bound[name]!r} as {read[name]!r}" for name in lists if read.get(name) != bound.get(name)]
        self._note("value_as_list", f"{call.gadget_name}: {', '.join(changed)}", call.invocation_id)
        return fixed

    def _quoted_values(self, call: ParsedCall) -> ParsedCall:
        """``call`` with the one-line values of its string, number, integer and boolean parameters
        written in matching quotes (``!!!ARG:unit`` then ``"m"``) read without them
        (``quoted_value``, :func:`~llmist.syntax._tolerance.unquoted`)."""
        scalars = self._scalars_by.get(call.gadget_name)
        if scalars is None:
            schema = json_schema(self._gadgets[call.gadget_name].Params)
            kinds = ("string", "number", "integer", "boolean")
            scalars = frozenset(f for f, node in schema.properties.items() if schema.kind(node) in kinds)
            self._scalars_by[call.gadget_name] = scalars
        params = call.parameters or {}
        read = {name: unquoted(value) for name, value in params.items() if name in scalars and _quoted_line(value)}
        written = (
            _written_arguments(call.gadget_name, {**_as_written(call, self._arg), **read}, self._arg) if read else None
        )
        if written is None:
            return call
        self._note("quoted_value", f"{call.gadget_name}: {_listed(read)} without their quotes", call.invocation_id)
        return dataclasses.replace(call, parameters={**params, **read}, parameters_raw=written)

    def _nulls_left_out(self, call: ParsedCall, required: frozenset[str]) -> ParsedCall:
        """``call`` without the optional parameters it gives a null word (``!!!ARG:mission`` then
        ``None``; ``null``) that binding keeps as that word, or cannot bind: the model said the
        parameter has no value, so it takes its default (``null_value``). Kept only if the call
        then validates. Where the field takes ``None`` and is no string, binding reads the word as
        ``None`` already, which may differ from the default, so that parameter stays."""
        params = call.parameters or {}
        words = [name for name, value in params.items() if name not in required and is_null_word(value)]
        if not words:
            return call
        gadget = self._gadgets[call.gadget_name]
        try:
            bound = bind_call(gadget, call, arg_prefix=self._arg)
        except InvalidParametersError:
            bound = {}
        words = [name for name in words if bound.get(name, params[name]) is not None]
        kept = {name: value for name, value in params.items() if name not in words}
        as_written = {name: value for name, value in _as_written(call, self._arg).items() if name not in words}
        written = _written_arguments(call.gadget_name, as_written, self._arg) if words else None
        if written is None:
            return call
        fixed = dataclasses.replace(call, parameters=kept, parameters_raw=written)
        if not _binds(gadget, fixed):
            return call
        left_out = _listed({name: params[name] for name in words})
        self._note("null_value", f"{call.gadget_name}: {left_out} left out (no value)", call.invocation_id)
        return fixed

    def _block_arguments(self, call: ParsedCall, required: tuple[str, ...]) -> ParsedCall:
        """``call`` (a block call that leaves a required parameter unset) with the arguments the
        model wrote without ``!!!ARG:`` lines: in the body (:func:`body_arguments`), in the
        header's id and dependency slots (:func:`header_arguments`), or under a header slot that
        names a parameter (:meth:`_slot_as_argument`). Each reading is taken only if the call then
        binds and validates; else the call stays as written, for its error."""
        named = self._slot_as_argument(call)
        if named is not None:
            fixed = self._arguments_read(named[0], required, [named[1]])
            if fixed is not None:
                return fixed
        fixed = self._arguments_read(call, required, [])
        if fixed is not None:
            return fixed
        if call.parameters:
            return call
        fields = set(self._fields(call.gadget_name))
        return self._names_for_error(call, _bare_names(call.parameters_raw.strip("\r\n").splitlines(), fields))

    def _named_arguments(self, call: ParsedCall) -> ParsedCall:
        """``call`` (a block call to a gadget whose parameters are all optional, with a body and
        no argument lines) with the parameters its body names (``bare_parameter_names``:
        ``artist="Pitbull"``, ``genre=dontcare``), noted if it then binds and validates, else for
        the error its values get. Such a body was dropped and the call ran with no arguments,
        without a word (Qwen2.5-Coder-1.5B, BFCL's live cases). Values alone and the header's slots
        are not read here: with nothing required, a line of prose or an id would pass for a value."""
        fields = set(self._fields(call.gadget_name))
        named = _bare_names(call.parameters_raw.strip("\r\n").splitlines(), fields)
        if named is None:
            return call
        what = f"the lines {', '.join(named)} read as parameter names"
        fixed = self._with_reading(call, (), [("bare_parameter_names", what)], named, call.parameters_raw, False)
        return fixed or self._names_for_error(call, named)

    def _names_for_error(self, call: ParsedCall, named: Mapping[str, str] | None) -> ParsedCall:
        """``call`` with the parameters its body names (``named``) as its argument lines, when that
        reading does not validate: the call fails on what the model wrote under each name (an
        unknown name, ``year="dontcare"`` for an integer) rather than run with no arguments, or
        with an error that puts its lines under the parameters in declared order."""
        if named is None:
            return call
        written = _written_arguments(call.gadget_name, named, self._arg)
        return call if written is None else dataclasses.replace(call, parameters=dict(named), parameters_raw=written)

    def _slot_as_argument(self, call: ParsedCall) -> tuple[ParsedCall, tuple[RepairKind, str]] | None:
        """``call`` read with its header's last slot as the argument line of the text before its
        body's first ``!!!ARG:`` line, when that slot names a parameter the body leaves unset
        (``!!!GADGET_START:geo_distance_calculate:start_location`` then ``New York``, then
        ``!!!ARG:end_location``); ``None`` otherwise. The slot was no id: when it is the id slot,
        the call gets an id of its own; a dependency slot is no longer waited for."""
        slots = [call.invocation_id, *call.dependencies]
        slot = slots[-1]
        if is_auto_id(slot) or self._known_id(slot):  # no slot written, or an earlier call's id
            return None
        params = call.parameters or {}
        raw = call.parameters_raw
        lead = raw if self._arg not in raw else raw[: raw.find(self._arg)]
        if slot not in written_fields(self._gadgets[call.gadget_name].Params) or slot in params or not lead.strip():
            return None
        body = f"{self._arg}{slot}\n{raw.lstrip(chr(13) + chr(10))}"
        try:
            read = parse_block_body(body, arg_prefix=self._arg)
        except BlockParseError:
            return None
        own = self._ids() if len(slots) == 1 else call.invocation_id
        fixed = dataclasses.replace(
            call, parameters=read, parameters_raw=body, invocation_id=own, dependencies=tuple(slots[1:-1])
        )
        return fixed, ("header_arguments", f"the header's {slot} read as the argument line of the lines under it")

    def _arguments_read(
        self, call: ParsedCall, required: tuple[str, ...], kinds: list[tuple[RepairKind, str]]
    ) -> ParsedCall | None:
        """``call`` with the arguments :meth:`_block_arguments` reads, the repairs ``kinds`` already
        made to it noted too; ``None`` when the call then does not bind and validate."""
        gadget = self._gadgets[call.gadget_name]
        params = dict(call.parameters or {})
        raw = call.parameters_raw
        has_slots = self._has_slots(call)
        if not params and raw.strip():
            slots = [call.invocation_id, *call.dependencies]
            readings = body_values(gadget, slots, raw, required, has_slots)
            for kind, what, read, across in readings:
                fixed = self._with_reading(call, required, [*kinds, (kind, what)], read, raw, across)
                if fixed is not None:
                    return fixed
            return None if readings else self._with_reading(call, required, kinds, params, raw, False)
        if params:
            read_too = (
                lead_arguments(gadget, raw, self._arg, params)
                or spread_values(gadget, raw, self._arg, params)
                or value_as_name(gadget, raw, self._arg, params)
            )
            if read_too is not None:
                kind, what, params, raw = read_too
                kinds = [*kinds, (kind, what)]
        return self._with_reading(call, required, kinds, params, raw, False)

    def _has_slots(self, call: ParsedCall) -> bool:
        """Whether ``call``'s header holds slots a model wrote that may be values: an id of its
        own that is no earlier call's."""
        return not is_auto_id(call.invocation_id) and not self._known_id(call.invocation_id)

    def _with_reading(
        self,
        call: ParsedCall,
        required: tuple[str, ...],
        kinds: list[tuple[RepairKind, str]],
        params: Mapping[str, object],
        raw: str,
        read_across: bool,
    ) -> ParsedCall | None:
        """``call`` with the arguments ``params`` (its body ``raw``) that the readings ``kinds``
        gave, and those its header's slots hold unless the body's reading took them
        (``read_across``) or the gadget requires nothing (its id may be any word), noted; ``None``
        when nothing was read or the call then does not bind and validate. When the slots' values
        make the call invalid, they are its id after all, as written: ``get_current_weather:boston``
        over ``Boston, MA`` is the location, not a unit ``boston`` (Qwen2.5-Coder-1.5B)."""
        if not read_across and required and self._has_slots(call):
            slots = [call.invocation_id, *call.dependencies]
            header = header_arguments(self._gadgets[call.gadget_name], slots, required, params)
            if header is not None:
                read: tuple[RepairKind, str] = ("header_arguments", f"the header's {_listed(header)} read as arguments")
                fixed = self._bound_reading(call, [*kinds, read], {**params, **header}, raw, header, read_across)
                if fixed is not None:
                    return fixed
        return self._bound_reading(call, kinds, params, raw, None, read_across)

    def _bound_reading(
        self,
        call: ParsedCall,
        kinds: list[tuple[RepairKind, str]],
        params: Mapping[str, object],
        raw: str,
        header: Mapping[str, str] | None,
        read_across: bool,
    ) -> ParsedCall | None:
        """``call`` with the arguments ``params`` (``header`` among them: those its header's slots
        held) written into its body, and the readings ``kinds`` noted, if it then binds and
        validates; ``None`` otherwise, or when nothing was read."""
        if not kinds:
            return None
        # What was read goes into the body as argument lines: binding reads the body again, and a
        # call identical to an earlier one is told by it (call_signature); two calls with their
        # values in the header alone had the same empty body, and the second was answered as a
        # repeat of the first. Argument lines already there stay as written, so that each value
        # keeps its form: written back from what the parser made of it without the schema, a
        # string account 00125648 became 125648. A body of values alone is written anew.
        if self._arg in raw:
            start, end, _ = arguments_span(raw, 0, len(raw), self._arg)  # any fence around them goes
            kept = raw[start:end]
            written: str | None = kept if header is None else _with_lines(kept, self._arg, header)
        else:
            written = _written_arguments(call.gadget_name, params, self._arg)
        fixed = dataclasses.replace(call, parameters=dict(params), parameters_raw=raw if written is None else written)
        if header is not None or read_across:
            # The id slot held a value: the call gets an id of its own, and waits for none.
            fixed = dataclasses.replace(fixed, invocation_id=self._ids(), dependencies=())
        bound = self._binding(fixed)
        if bound is None:
            return None
        for kind, what in kinds:
            self._note(kind, f"{call.gadget_name}: {what}", bound.invocation_id)
        return bound

    def _binding(self, call: ParsedCall) -> ParsedCall | None:
        """``call`` if it binds and validates, else with its lists read as text read as their items
        (``value_as_list``: ``dataset_A:12, 24, 36`` in a header, or a body of moves one a line
        read as the one required parameter) if it then does; ``None`` otherwise."""
        if _binds(self._gadgets[call.gadget_name], call):
            return call
        lists = self._lists_by.get(call.gadget_name)
        as_lists = self._values_as_lists(call, lists if lists is not None else self._lists(call.gadget_name))
        return None if as_lists is call else as_lists

    def _ids_as_meant(self, call: ParsedCall) -> ParsedCall:
        """``call`` waiting for what its header names: its own id when that is an earlier call's
        (``id_as_dependency``), a gadget's name in place of a call's id (``dependency_by_name``)."""
        own = call.invocation_id
        deps = call.dependencies
        if not deps:
            if own in self._aliases:  # "save" named the call save_note: this one waits for it
                self._note("id_as_dependency", _waits_for(call, own), own)
                return dataclasses.replace(call, dependencies=(self._aliases[own],))
            if own in self._response_ids:  # a duplicate id: the call gets one of its own
                fresh = self._ids()
                self._note("id_as_dependency", _waits_for(call, own), fresh)
                return dataclasses.replace(call, invocation_id=fresh, dependencies=(own,))
            return call
        meant = tuple(self._dependency(d) for d in deps)
        if meant == deps:
            return call
        for dep, read in zip(deps, meant, strict=True):
            if dep != read and dep not in self._aliases:
                detail = f"{call.gadget_name}: waits for {dep!r}, a gadget, read as its call {read!r}"
                self._note("dependency_by_name", detail, own)
        return dataclasses.replace(call, dependencies=tuple(dict.fromkeys(meant)))

    def _known_id(self, name: str) -> bool:
        """Whether a call of this response has the id ``name`` (or was given it as a name)."""
        return name in self._response_ids or name in self._aliases

    def _dependency(self, dep: str) -> str:
        """The call id a dependency means: an id written as a gadget's name, its call's; an id of
        this response's calls as written; a gadget's name, its one call's so far. The first
        is checked first: a call that waits for ``save`` in its own id's place took that id too."""
        if dep in self._aliases:
            return self._aliases[dep]
        if dep in self._response_ids:
            return dep
        gadget = dep if dep in self._gadgets else same_name(dep, list(self._gadgets))
        if gadget is None:
            return dep
        found = [i for i, g in self._response_ids.items() if g == gadget]
        return found[0] if len(found) == 1 else dep

    def _emoji_header(self, call: ParsedCall) -> ParsedCall:
        """``call`` with its header and body read as the model meant them, when they do not bind
        as written (:func:`emoji_header_repair`)."""
        repaired = emoji_header_repair(self._gadgets[call.gadget_name], call)
        if repaired is None:
            return call
        kind, fixed = repaired
        what = (
            "a parameter's name in the header, its value in the body"
            if kind == "name_as_argument"
            else "the header fills every parameter: the body dropped"
        )
        self._note(kind, f"{call.gadget_name}: {what}", call.invocation_id)
        return fixed

    def _without_parameters(self, call: ParsedCall) -> ParsedCall:
        """``call`` without its parameters (its gadget takes none)."""
        detail = f"{call.gadget_name} takes no parameters: run without those written"
        self._note("ignored_parameters", detail, call.invocation_id)
        emoji = call.syntax == "emoji"
        return dataclasses.replace(
            call,
            parameters_raw="",
            parameters={},
            parse_error=None,
            raw_args="" if emoji else call.raw_args,
            body="" if emoji else call.body,
        )

    def _unclosed(self, call: ParsedCall) -> ParsedCall:
        """``call`` without the prose the model wrote after it, when the call was never closed and
        its gadget takes no body (:func:`without_stray_body`)."""
        gadget = self._gadgets.get(call.gadget_name)
        bare = None if gadget is None else without_stray_body(gadget, call)
        if bare is None:
            return call
        detail = f"{call.gadget_name} takes no body: the text after the unclosed call read as prose"
        self._note("body_as_prose", detail, call.invocation_id)
        return bare
