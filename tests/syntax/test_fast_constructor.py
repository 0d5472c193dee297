"""``fast_constructor``: the hot paths' way to build frozen dataclasses gives ordinary instances."""

from __future__ import annotations

import dataclasses
import pickle
from dataclasses import dataclass

import pytest

from llmist.syntax import GadgetCallEvent, ParsedCall, TextEvent
from llmist.syntax._fast import block_call_event, fast_constructor, text_event


def test_built_objects_equal_those_of_the_frozen_init() -> None:
    event = block_call_event("G", "g1", "!!!ARG:a\n1", {"a": 1}, None, ("x",))
    expected = GadgetCallEvent(ParsedCall("G", "g1", "!!!ARG:a\n1", {"a": 1}, None, ("x",)))
    assert type(event) is GadgetCallEvent and type(event.call) is ParsedCall
    assert event == expected and repr(event) == repr(expected)
    assert pickle.loads(pickle.dumps(event)) == event
    assert text_event("hi") == TextEvent("hi") and hash(text_event("hi")) == hash(TextEvent("hi"))
    assert dataclasses.replace(text_event("hi"), content="ho").content == "ho"


def test_built_objects_stay_frozen() -> None:
    event = text_event("hi")
    with pytest.raises(dataclasses.FrozenInstanceError):
        event.content = "ho"  # type: ignore[misc]


def test_refuses_classes_it_cannot_build_exactly() -> None:
    @dataclass(frozen=True)
    class NoSlots:
        a: int

    @dataclass(frozen=True, slots=True)
    class Checked:
        a: int

        def __post_init__(self) -> None:
            assert self.a >= 0

    for cls in (NoSlots, Checked):
        with pytest.raises(TypeError, match="slotted dataclass without __post_init__"):
            fast_constructor(cls)
