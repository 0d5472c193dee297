"""User suites: a YAML file of cases, a Python file or module defining SUITE."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from llmist import gadget
from llmist.evals import BUILTIN_SUITE, EvalSuite, load_suite, run_suite
from llmist.testing import MockModel, block_call

YAML = """\
name: mine
cases:
  - name: add_small
    category: single
    prompt: Use add to compute 2 + 3.
    answer: "5"
    calls:
      - gadget: add
        params: {a: 2, b: 3}
    syntaxes: [block]
"""


@gadget(description="Add two integers.")
def add(a: int, b: int) -> str:
    return str(a + b)


def test_no_source_means_the_builtin_suite() -> None:
    assert load_suite() is BUILTIN_SUITE
    assert load_suite("builtin") is BUILTIN_SUITE


async def test_a_yaml_suite_runs_with_the_gadgets_given(tmp_path: Path) -> None:
    path = tmp_path / "cases.yaml"
    path.write_text(YAML)
    suite = load_suite(str(path), gadgets=[add])
    assert (suite.name, [c.name for c in suite.cases]) == ("mine", ["add_small"])
    results = await run_suite(suite, MockModel([block_call("add", a=2, b=3), "5"]), syntaxes=["block"])
    assert [r.passed for r in results] == [True]


def test_a_yaml_suite_loads_its_gadget_files_through_the_loader(tmp_path: Path) -> None:
    path = tmp_path / "cases.yaml"
    path.write_text("gadgets: [tools.py]\n" + YAML)
    asked: list[str] = []

    def loader(source: str) -> list[object]:
        asked.append(source)
        return [add]

    assert load_suite(str(path), gadget_loader=loader).cases[0].make_gadgets()[0].name == "add"  # type: ignore[attr-defined]
    assert asked == ["tools.py"]


def test_a_yaml_case_naming_an_unknown_gadget_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "cases.yaml"
    path.write_text(YAML.replace("cases:\n", "cases:\n").replace("    answer:", "    gadgets: [sub]\n    answer:"))
    with pytest.raises(ValueError, match=r"no gadget named \['sub'\]; the suite has \['add'\]"):
        load_suite(str(path), gadgets=[add])


def test_a_yaml_case_with_an_unknown_key_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "cases.yaml"
    path.write_text(YAML + "    answers: [x]\n")
    with pytest.raises(ValueError, match=r"unknown keys \['answers'\]"):
        load_suite(str(path), gadgets=[add])


def test_a_python_suite_file_defines_suite(tmp_path: Path) -> None:
    path = tmp_path / "suite.py"
    path.write_text(
        "from llmist.evals import EvalCase, EvalSuite\n"
        "SUITE = EvalSuite('py', (EvalCase('a', 'single', 'say hi', [], answer=('hi',)),))\n"
    )
    suite = load_suite(str(path))
    assert isinstance(suite, EvalSuite) and suite.name == "py"


def test_a_python_file_without_suite_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "suite.py"
    path.write_text("x = 1\n")
    with pytest.raises(ValueError, match="defines no SUITE"):
        load_suite(str(path))


def test_an_unknown_module_is_an_error() -> None:
    with pytest.raises(ValueError, match="no suite 'no_such_suite_module'"):
        load_suite("no_such_suite_module")


def test_selecting_an_unknown_case_names_the_known_ones() -> None:
    with pytest.raises(ValueError, match="no case named \\['nope'\\]"):
        BUILTIN_SUITE.select(["nope"])


def test_two_cases_with_one_name_are_an_error() -> None:
    case = BUILTIN_SUITE.cases[0]
    with pytest.raises(ValueError, match="several cases named"):
        EvalSuite("dup", (case, case))


def test_a_yaml_suite_without_pyyaml_names_the_exact_install_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from llmist._install import install_command

    suite = tmp_path / "suite.yaml"
    suite.write_text("cases: []\n")
    monkeypatch.setitem(sys.modules, "yaml", None)  # as if PyYAML were not installed
    with pytest.raises(ImportError) as raised:
        load_suite(str(suite))
    assert install_command("evals") in str(raised.value)
