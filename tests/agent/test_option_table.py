"""Each option is declared once, as a field of its group (``llmist.agent.options``), and every other
surface agrees with that declaration: the flat keyword ``Agent`` takes, its attribute,
``FlatOptions``, the builder's method and the command line's configuration key (issue 41).

``_disagreements`` reads each surface and names what does not match the table; the tests after
the first show that it names an option declared in one place only."""

from __future__ import annotations

import dataclasses
import inspect
import typing
from collections.abc import Mapping
from typing import Any
from unittest import mock

import pytest

import llmist.agent.builder as builder_module
import llmist.agent.options as options_module
from llmist import Agent, RunLimits
from llmist.agent import Markers
from llmist.agent.agent import _Flat, _Option
from llmist.agent.builder import _SETTERS, AgentBuilder
from llmist.agent.options import GROUPS, OPTIONS, AgentOption, FlatOptions, _option_table
from llmist.cli._config import SETTINGS, _Key, _pos_int


def _attribute_problems(table: Mapping[str, AgentOption], agent: type[Any]) -> list[str]:
    """Each option but a marker's part is an ``Agent`` attribute reading its field, typed as the field."""
    problems: list[str] = []
    for option in table.values():
        if option.part is not None:  # gadget_start_prefix...: the attribute is their field's, markers
            continue
        found = vars(agent).get(option.name)
        if not isinstance(found, _Option):
            problems.append(f"{option.name}: no Agent attribute")
        elif (found.group, found.field) != (option.group, option.field):
            problems.append(f"{option.name}: Agent attribute reads {found.group}.{found.field}")
        elif (typed := _resolved(found.__orig_class__.__args__[0])) != _hints(option.owner)[option.field]:
            problems.append(f"{option.name}: Agent attribute typed {typed}")
    flat = [name for name, value in vars(agent).items() if isinstance(value, _Option) and value.group]
    problems += [f"{name}: an Agent attribute of no option" for name in flat if name not in table]
    return problems


def _hints(cls: type[Any]) -> dict[str, Any]:
    return typing.get_type_hints(cls, vars(options_module))


def _resolved(kind: Any) -> Any:
    """``kind`` with the names quoted inside it resolved (``HumanInputHandler``'s ``"str | Awaitable[str]"``)."""
    return _hints(type("_Holder", (), {"__annotations__": {"kind": kind}}))["kind"]


def _flat_options_problems(table: Mapping[str, AgentOption], flat: type[Any]) -> list[str]:
    """``FlatOptions`` has one key per option, typed as the flat keyword takes it."""
    hints = _hints(flat)
    problems = [f"{name}: not in FlatOptions" for name in table if name not in hints]
    problems += [f"{name}: in FlatOptions, no option" for name in hints if name not in table]
    problems += [
        f"{name}: FlatOptions types it {hints[name]}, the option takes {option.type}"
        for name, option in table.items()
        if name in hints and hints[name] != option.type
    ]
    return problems


def _builder_problems(table: Mapping[str, AgentOption], builder: type[Any]) -> list[str]:
    """Each option has a builder method (``with_<name>`` or the one ``_SETTERS`` names) that gives
    ``Agent`` the value under the option's name."""
    problems: list[str] = []
    for name in table:
        method = _SETTERS.get(name, f"with_{name}")
        if not hasattr(builder, method):
            problems.append(f"{name}: no builder method {method}")
            continue
        value = object()
        parameters = list(inspect.signature(getattr(builder, method)).parameters)
        set_it = getattr(builder().with_model("mock"), method)
        # Agent replaced by a function returning its keywords: the builder's output, unchecked.
        with mock.patch.object(builder_module, "Agent", lambda **keywords: keywords):
            built = (set_it(**{name: value}) if name in parameters else set_it(value)).build()
        if built.get(name) is not value:
            problems.append(f"{name}: {method} does not set it")
    return problems


def _config_problems(table: Mapping[str, AgentOption], settings: Mapping[str, _Key]) -> list[str]:
    """A configuration key that names an ``Agent`` keyword has its default (unless it says why
    not) and, for an option of the table, its help."""
    own = inspect.signature(Agent).parameters
    problems: list[str] = []
    for key, spec in settings.items():
        if spec.option is None:
            continue
        if spec.option in table:
            default: Any = table[spec.option].default
            if spec.help != table[spec.option].help:
                problems.append(f"config key {key}: help {spec.help!r} is not the option's")
        elif spec.option in own:
            default = own[spec.option].default
        else:
            problems.append(f"config key {key}: names {spec.option!r}, no Agent option")
            continue
        if spec.differs is None and spec.default != default:
            problems.append(f"config key {key}: default {spec.default!r}, the option's is {default!r}")
        if spec.differs is not None and spec.default == default:
            problems.append(f"config key {key}: says its default differs, but it is the option's {default!r}")
    return problems


def _disagreements(
    table: Mapping[str, AgentOption] = OPTIONS,
    *,
    agent: type[Any] = Agent,
    flat: type[Any] = FlatOptions,
    builder: type[Any] = AgentBuilder,
    settings: Mapping[str, _Key] = SETTINGS,
) -> list[str]:
    return [
        *_attribute_problems(table, agent),
        *_flat_options_problems(table, flat),
        *_builder_problems(table, builder),
        *_config_problems(table, settings),
    ]


def test_every_surface_agrees_with_the_declarations() -> None:
    assert _disagreements() == []


def test_the_table_is_the_groups_fields_under_their_flat_names() -> None:
    assert OPTIONS["prompt_style"].field == "style"
    assert OPTIONS["gadget_timeout_s"].field == "timeout_s"
    assert (OPTIONS["gadget_arg_prefix"].field, OPTIONS["gadget_arg_prefix"].part) == ("markers", "arg")
    fields = {(o.group, o.field) for o in OPTIONS.values()}
    assert fields == {(group, f.name) for group, cls in GROUPS.items() for f in dataclasses.fields(cls)}


def test_agent_takes_every_flat_keyword() -> None:
    agent = Agent(model="mock", **{name: option.default for name, option in OPTIONS.items()})  # type: ignore[arg-type]
    assert (agent.limits, agent.prompt_settings) == (RunLimits(), type(agent.prompt_settings)())


def test_a_markers_keyword_changes_that_marker_of_the_markers_given_beside_it() -> None:
    agent = Agent(model="mock", markers=Markers(start="<<S:", end="<<E"), gadget_end_prefix="<<END")
    assert agent.markers == Markers(start="<<S:", end="<<END")


def test_a_help_text_is_the_first_sentence_of_the_fields_docstring() -> None:
    assert OPTIONS["max_iterations"].help == "Most model calls per run."
    assert OPTIONS["gadget_end_prefix"].help == "The marker that ends a call."
    assert SETTINGS["max_cost"].help == OPTIONS["max_cost"].help


# A field declared in its group and nowhere else.
@dataclasses.dataclass(frozen=True, slots=True)
class _LimitsWithMinutes(RunLimits):
    max_minutes: float | None = None
    """Stop once the run took this many minutes."""


def test_a_field_declared_in_its_group_only_is_missing_from_every_other_surface() -> None:
    table = _option_table({**GROUPS, "limits": _LimitsWithMinutes})
    assert _disagreements(table) == [
        "max_minutes: no Agent attribute",
        "max_minutes: not in FlatOptions",
        "max_minutes: no builder method with_max_minutes",
    ]


@dataclasses.dataclass(frozen=True, slots=True)
class _LimitsRenamed(RunLimits):
    max_iterations: int = dataclasses.field(default=10, metadata={"flat": "max_turns"})


def test_a_flat_name_renamed_in_its_declaration_only_is_found_on_every_surface() -> None:
    problems = _disagreements(_option_table({**GROUPS, "limits": _LimitsRenamed}))
    assert "max_iterations: an Agent attribute of no option" in problems
    assert "max_turns: not in FlatOptions" in problems
    assert "max_iterations: in FlatOptions, no option" in problems
    assert "max_turns: no builder method with_max_turns" in problems
    assert "config key max_iterations: names 'max_iterations', no Agent option" in problems


def test_an_agent_attribute_of_no_option_fails_when_the_class_is_made() -> None:
    with pytest.raises((TypeError, RuntimeError)) as caught:

        class _Renamed(Agent[str]):
            max_turns = _Flat[int]()

    assert "max_turns is not an option of the groups" in str(caught.value) + str(caught.value.__cause__)


def test_a_flat_options_key_of_another_type_is_found() -> None:
    class _Flat2(FlatOptions, total=False):
        max_iterations: int | None  # type: ignore[misc]

    assert _flat_options_problems(OPTIONS, _Flat2) == [
        "max_iterations: FlatOptions types it int | None, the option takes <class 'int'>"
    ]


def test_a_config_key_whose_default_drifted_from_its_option_is_found() -> None:
    settings = {
        **SETTINGS,
        "max_iterations": dataclasses.replace(SETTINGS["max_iterations"], default=8),
        "few_shot": _Key(_pos_int, 0, OPTIONS["few_shot"].help, option="few_shot", differs="not so"),
        "max_tokens": dataclasses.replace(SETTINGS["max_tokens"], help="most tokens"),
    }
    assert _config_problems(OPTIONS, settings) == [
        "config key max_iterations: default 8, the option's is 10",
        "config key max_tokens: help 'most tokens' is not the option's",
        "config key few_shot: says its default differs, but it is the option's 0",
    ]


def test_a_config_default_that_differs_on_purpose_says_why() -> None:
    settings = {"max_iterations": dataclasses.replace(SETTINGS["max_iterations"], default=8, differs="a reason")}
    assert _config_problems(OPTIONS, settings) == []


def test_a_builder_method_that_sets_another_option_is_found() -> None:
    class _Builder(AgentBuilder[str]):
        def with_few_shot(self, gadgets: int) -> typing.Self:
            return self._set("few_shots", gadgets)

    assert _builder_problems(OPTIONS, _Builder) == ["few_shot: with_few_shot does not set it"]


def test_an_agent_attribute_typed_unlike_its_field_is_found() -> None:
    class _Typed(Agent[str]):
        max_iterations = _Flat[str]()  # type: ignore[assignment]

    problems = _attribute_problems(OPTIONS, _Typed)
    assert [p for p in problems if p.startswith("max_iterations")] == [
        "max_iterations: Agent attribute typed <class 'str'>"
    ]
