"""``fast_constructor``: the hot paths' way to build frozen dataclasses gives ordinary instances."""

from __future__ import annotations

import dataclasses
import pickle
from dataclasses import dataclass

import pytest

from llmist.providers.base import LLMChunk, Usage, new_chunk, new_usage
from llmist.syntax._fast import fast_constructor


def test_built_objects_equal_those_of_the_frozen_init() -> None:
    usage = new_usage(1, 2, 3, 4, 5)
    assert type(usage) is Usage
    assert usage == Usage(1, 2, 3, 4, 5) and hash(usage) == hash(Usage(1, 2, 3, 4, 5))
    assert repr(usage) == repr(Usage(1, 2, 3, 4, 5))
    assert pickle.loads(pickle.dumps(usage)) == usage
    assert new_chunk("hi", "", usage, "stop") == LLMChunk("hi", usage=usage, finish_reason="stop")
    assert dataclasses.replace(usage, input_tokens=3).input_tokens == 3


def test_built_objects_stay_frozen() -> None:
    usage = new_usage(1, 2, 0, 0, 0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        usage.input_tokens = 9  # type: ignore[misc]


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
