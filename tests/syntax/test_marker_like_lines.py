"""A value may hold lines that look like markers: llmist's writer escapes them and the parser
reads them back, so nothing is cut off. The rule (docs/syntax.md): a value line that starts with
backslashes and then the marker character (``!``) loses one backslash; the writer adds one to
every value line that starts that way or with the marker character itself.

Round trips in both directions, for any text: what the writer writes parses back to what it was
given, and a call parsed from any text, written again, parses to the same parameters."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from llmist import Agent
from llmist.gadgets.builtins import WriteFile
from llmist.syntax import GadgetCallParser, ParsedCall, parse_block_params
from llmist.syntax.writing import write_block_call
from llmist.testing import MockModel, block_call

from .helpers import calls, run, split_at

NOTES = "# Notes\nUse the syntax:\n!ARG:example\nthen…"


def _parse_one(text: str) -> ParsedCall:
    (call,) = calls(run(GadgetCallParser(), [text]))
    return call


def test_a_marker_like_line_in_a_written_value_survives_the_round_trip() -> None:
    call = _parse_one(write_block_call("WriteFile", {"path": "notes.md", "content": NOTES}))
    assert call.parse_error is None and call.parameters == {"path": "notes.md", "content": NOTES}
    assert call.repairs == ()


def test_write_file_writes_the_whole_content_of_a_scripted_call(tmp_path: object) -> None:
    model = MockModel([block_call("WriteFile", path="notes.md", content=NOTES), "done"])
    Agent(model=model, gadgets=[WriteFile(tmp_path)]).run_sync("write the notes")  # type: ignore[arg-type]
    assert (tmp_path / "notes.md").read_text(encoding="utf-8") == NOTES  # type: ignore[operator]


@pytest.mark.parametrize("line", ["!ARG:x", "!!GADGET_END", "!GADGET_START:y", "\\!ARG:x", "\\\\!!ARG:x", "!important"])
def test_each_marker_like_line_is_escaped_and_read_back(line: str) -> None:
    written = write_block_call("Note", {"text": f"before\n{line}\nafter"})
    assert f"\n\\{line}\n" in written or not line.startswith(("!", "\\"))
    assert _parse_one(written).parameters == {"text": f"before\n{line}\nafter"}


def test_a_model_writing_an_escaped_line_gets_it_unescaped() -> None:
    body = "!!!ARG:text\nUse\n\\!ARG:example\n"
    assert parse_block_params(body) == {"text": "Use\n!ARG:example"}


def test_the_typescript_compatible_parser_reads_backslashes_as_written() -> None:
    text = "!!!GADGET_START:Note\n!!!ARG:text\n\\!x\n!!!GADGET_END"
    (call,) = calls(run(GadgetCallParser(typescript_compat=True), [text]))
    assert call.parameters == {"text": "\\!x"}


@pytest.mark.parametrize("marker", ["!!!ARG:", "!!!GADGET_END", "!!!GADGET_START:"])
def test_a_value_holding_an_exact_marker_cannot_be_written(marker: str) -> None:
    with pytest.raises(ValueError, match="cannot be written in the block syntax"):
        write_block_call("Note", {"text": f"see {marker}x"})


# --- both directions, for any text ---------------------------------------------------------

pieces = st.sampled_from(
    ["!", "!!", "!!!", "!!!!", "\\", "\\\\", "ARG:", "GADGET_END", "GADGET_START:", "x", " ", "\n", "\r", "a b", "é"]
)
values = st.lists(pieces, max_size=14).map("".join)
"""Text built from marker pieces, backslashes and line breaks."""

EXACT = ("!!!ARG:", "!!!GADGET_END", "!!!GADGET_START:")


@given(st.dictionaries(st.sampled_from(["a", "b", "path", "c_1"]), values, min_size=1, max_size=3), st.data())
def test_whatever_the_writer_writes_parses_back_to_what_it_was_given(
    params: dict[str, str], data: st.DataObject
) -> None:
    if any(marker in value for value in params.values() for marker in EXACT):
        with pytest.raises(ValueError):
            write_block_call("Note", params)
        return
    written = write_block_call("Note", params)
    schema = {"type": "object", "properties": {k: {"type": "string"} for k in params}}
    body = written.split("\n", 1)[1].rsplit("\n", 1)[0] + "\n"
    assert parse_block_params(body, schema=schema) == params
    cuts = data.draw(st.lists(st.integers(0, len(written)), max_size=4))
    (call,) = calls(run(GadgetCallParser(), split_at(written + "\n", cuts)))
    assert call.parse_error is None and call.repairs == ()
    assert call.parameters == parse_block_params(body)  # the stream reads what the whole body says


@given(st.lists(st.sampled_from(["!!!ARG:a\n", "!!!ARG:b\n", "!ARG:c\n", "!!GADGET_END\n"]) | values, max_size=10))
def test_a_call_parsed_from_any_text_and_written_again_parses_the_same(parts: list[str]) -> None:
    text = "!!!GADGET_START:Note\n" + "".join(parts) + "\n!!!GADGET_END\n"
    first = calls(run(GadgetCallParser(), [text]))[0]
    if first.parameters is None or not first.parameters:
        return
    again = _parse_one(write_block_call("Note", first.parameters))
    assert again.parameters == first.parameters
