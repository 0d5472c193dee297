"""``fast_constructor``: the hot paths' way to build frozen dataclasses gives ordinary instances,
from the arguments the class takes."""

from __future__ import annotations

import dataclasses
import pickle
from dataclasses import dataclass

import pytest
from hypothesis import given
from hypothesis import strategies as st

from llmist.syntax import GadgetCallEvent, ParsedCall, TextEvent
from llmist.syntax.frozen import block_call_event, fast_constructor, text_event


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


@dataclass(frozen=True, slots=True)
class _Base:
    role: str
    tag: str | None = dataclasses.field(default=None, kw_only=True)


@dataclass(frozen=True, slots=True)
class _Child(_Base):
    size: int = 0


_build_child = fast_constructor(_Child)


@given(st.text(max_size=6), st.none() | st.text(max_size=6), st.integers())
def test_a_subclass_with_keyword_only_fields_is_built_as_its_class_builds_it(
    role: str, tag: str | None, size: int
) -> None:
    built, expected = _build_child(role, size, tag=tag), _Child(role, size, tag=tag)
    assert type(built) is _Child and built == expected and repr(built) == repr(expected)
    assert hash(built) == hash(expected)
    assert _build_child(role) == _Child(role)
    with pytest.raises(dataclasses.FrozenInstanceError):
        built.role = "other"  # type: ignore[misc]
    with pytest.raises(TypeError):
        _build_child(role, size, tag)  # type: ignore[call-arg]


def test_fields_named_like_its_own_names_are_refused() -> None:
    @dataclass(frozen=True, slots=True)
    class Shadowing:
        __record__: int

    with pytest.raises(TypeError, match="dunder name"):
        fast_constructor(Shadowing)
