"""What llmist writes in the emoji syntax parses back to what it was given: bodies that hold
the end marker (escaped on the way out, unescaped when bound), and quoted header arguments."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Annotated

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field

from llmist import Agent, ExecutionContext, Gadget, GadgetExample
from llmist.gadgets import bind_call, render_call, render_gadget, validate_params
from llmist.syntax import EmojiCallParser, ParsedCall
from llmist.testing import MockModel, emoji_call


class WriteParams(BaseModel):
    path: str
    content: Annotated[str, Field(json_schema_extra={"body": True})] = ""


class Write(Gadget):
    description = "Write a file"
    Params = WriteParams
    examples = (GadgetExample({"path": "notes.md", "content": "Write 🛠️[/end] to end a call."}),)

    def execute(self, params: WriteParams, ctx: ExecutionContext) -> str:
        return params.content


def parse_one(text: str, chunk: int) -> ParsedCall:
    parser = EmojiCallParser()
    events = [e for i in range(0, len(text), chunk) for e in parser.feed(text[i : i + chunk])]
    events += parser.finalize()
    (call,) = [e.call for e in events if e.type == "gadget_call"]
    return call


def bound(text: str, chunk: int = 1000) -> WriteParams:
    params = validate_params(Write(), bind_call(Write(), parse_one(text, chunk)))
    assert isinstance(params, WriteParams)
    return params


FRAGMENTS = [
    "🛠️[/end]",
    "🛠[/end]",
    "🛠️[\\/end]",
    "🛠️[\\\\/end]",
    "🛠️[",
    "🛠",
    "\ufe0f",
    "[/end]",
    "\\",
    "]",
    "\n",
    "\r",
    "x",
]
bodies = st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=4)), max_size=12).map("".join)


@settings(max_examples=300, deadline=None)
@given(body=bodies, chunk=st.integers(1, 40))
def test_any_body_written_by_emoji_call_is_bound_unchanged(body: str, chunk: int) -> None:
    assert bound(emoji_call("Write", "a.txt", body=body), chunk).content == body


@settings(max_examples=200, deadline=None)
@given(body=bodies, path=st.text(st.characters(blacklist_characters="]\n\r"), max_size=12))
def test_render_call_round_trips_header_arguments_and_body(body: str, path: str) -> None:
    params = bound(render_call(Write(), {"path": path, "content": body}, "emoji"))
    assert (params.path, params.content) == (path, body)


def test_a_body_with_the_end_marker_is_not_cut_short() -> None:
    text = emoji_call("Write", "a.txt", body="before 🛠️[/end] after")
    assert "before 🛠️[\\/end] after" in text
    assert bound(text).content == "before 🛠️[/end] after"


def test_a_prompt_example_with_the_end_marker_parses_back_whole() -> None:
    prompt = render_gadget(Write(), "emoji")
    example = prompt[prompt.index("Example:\n") + len("Example:\n") :]
    assert bound(example).content == "Write 🛠️[/end] to end a call."


def test_the_emoji_prompt_tells_the_model_how_to_write_the_end_marker_in_a_body() -> None:
    prompt = Agent(model="mock", gadgets=[Write], syntax="emoji").system_prompt
    assert "`🛠️[\\/end]`: the gadget gets `🛠️[/end]`" in prompt


async def test_an_agent_gadget_receives_a_scripted_body_with_the_end_marker() -> None:
    body = "line 1\n🛠️[/end]\nline 3"
    model = MockModel([emoji_call("Write", "a.txt", body=body), "done"], chunk_size=3)
    result = await Agent(model=model, gadgets=[Write], syntax="emoji").run("write")
    assert [r.result for r in result.gadget_results] == [body]


@pytest.mark.parametrize("arg", ["a]b", "two\nlines"])
def test_an_argument_the_header_cannot_hold_is_refused(arg: str) -> None:
    with pytest.raises(ValueError, match="cannot be an argument in the emoji syntax"):
        emoji_call("Write", arg, body="x")


def test_arguments_with_quotes_and_backslashes_are_quoted_for_shlex() -> None:
    path = 'my "odd" dir\\file.txt'
    assert bound(emoji_call("Write", path, body="x")).path == path


def test_llmist_parse_shows_the_body_a_gadget_gets(tmp_path: Path) -> None:
    transcript = tmp_path / "answer.txt"
    transcript.write_text(emoji_call("Write", "a.txt", body="a 🛠️[/end] b"), encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "llmist.cli", "parse", str(transcript), "--syntax", "emoji", "--json"],
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=True,
    )
    (record,) = [json.loads(line)["call"] for line in proc.stdout.splitlines()]
    assert record["gadget_body"] == "a 🛠️[/end] b"
    assert record["body"] == "a 🛠️[\\/end] b\n"


@pytest.mark.parametrize("arg", ["a]b", "a\nb", "a\rb", "\r"])
def test_the_writer_refuses_an_argument_the_header_cannot_hold(arg: str) -> None:
    with pytest.raises(ValueError, match="cannot be an argument"):
        emoji_call("Write", arg, body="x")
