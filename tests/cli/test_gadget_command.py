"""``llmist gadget run | info | validate`` through a real subprocess."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.helpers import ROOT, llmist

QUICK_START = str(ROOT / "examples" / "gadgets" / "quick_start.py")

TOOLS = """
from typing import Annotated
from pydantic import BaseModel, Field
from llmist import Gadget, GadgetExample, gadget


class Item(BaseModel):
    name: str
    qty: int


class OrderParams(BaseModel):
    customer: str
    items: list[Item]
    express: bool = False


class Order(Gadget):
    description = "Place an order"
    Params = OrderParams
    examples = [GadgetExample({"customer": "ann", "items": [{"name": "tea", "qty": 2}]})]

    def execute(self, params: OrderParams) -> str:
        total = sum(i.qty for i in params.items)
        return f"{params.customer}: {total} items{' (express)' if params.express else ''}"


@gadget(description="Say hello", examples=[GadgetExample({"who": "ann"})])
def hello(who: Annotated[str, Field(description="Who to greet")]) -> str:
    return f"hello {who}"
"""


@pytest.fixture
def tools(tmp_path: Path) -> Path:
    path = tmp_path / "tools.py"
    path.write_text(TOOLS, encoding="utf-8")
    return path


def test_run_with_params_coerced_by_the_schema(tools: Path) -> None:
    proc = llmist(
        "gadget",
        "run",
        f"{tools}:Order",
        "-p",
        "customer=007",
        "-p",
        "items/0/name=tea",
        "-p",
        "items/0/qty=3",
        "-p",
        "express=true",
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "007: 3 items (express)\n"


def test_run_with_json_params(tools: Path) -> None:
    params = json.dumps({"customer": "bo", "items": [{"name": "a", "qty": 1}, {"name": "b", "qty": 4}]})
    proc = llmist("gadget", "run", f"{tools}:Order", "--json", params)
    assert proc.stdout == "bo: 5 items\n"


def test_run_reports_invalid_params_and_exits_1(tools: Path) -> None:
    proc = llmist("gadget", "run", f"{tools}:Order", "-p", "customer=x", "-p", "items/0/qty=lots")
    assert proc.returncode == 1
    assert "Order failed:" in proc.stderr and "items" in proc.stderr


def test_run_names_the_gadgets_when_the_name_is_wrong(tools: Path) -> None:
    proc = llmist("gadget", "run", f"{tools}:Nope")
    assert proc.returncode == 2
    assert "has no gadget named 'Nope'; it defines: Order, hello" in proc.stderr


def test_info_prints_what_the_model_sees() -> None:
    proc = llmist("gadget", "info", f"{QUICK_START}:Calculator")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("## Calculator\nPerforms arithmetic\nParameters:\n")
    assert '- operation ("add" | "subtract", required)' in proc.stdout


def test_info_in_emoji_syntax_shows_the_call_form(tools: Path) -> None:
    proc = llmist("gadget", "info", str(tools), "--syntax", "emoji")
    assert "## Order" in proc.stdout and "## hello" in proc.stdout
    assert "Call: 🛠️[hello" in proc.stdout


def test_validate_passes_a_good_file() -> None:
    proc = llmist("gadget", "validate", QUICK_START)
    assert proc.returncode == 0, proc.stderr
    assert "✓ 2 gadget(s) valid" in proc.stdout


def test_validate_reports_an_example_that_does_not_fit(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(TOOLS.replace('GadgetExample({"who": "ann"})', 'GadgetExample({"who": 42})'), encoding="utf-8")
    proc = llmist("gadget", "validate", str(bad))
    assert proc.returncode != 0
    message = " ".join(proc.stderr.split())
    assert "Gadget 'hello': example 1 does not validate against its parameters: who:" in message


def test_a_file_with_a_syntax_error_is_reported_with_its_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("x = 1\ndef broken(:\n", encoding="utf-8")
    proc = llmist("gadget", "validate", str(bad))
    assert proc.returncode == 2
    assert f"could not load gadgets from {bad}: SyntaxError" in proc.stderr and "(line 2)" in proc.stderr


def test_a_file_without_gadgets_says_what_was_expected(tmp_path: Path) -> None:
    empty = tmp_path / "empty.py"
    empty.write_text("x = 1\n", encoding="utf-8")
    proc = llmist("gadget", "info", str(empty))
    assert "defines no gadgets; expected Gadget subclasses, Gadget instances or @gadget functions" in proc.stderr


def test_gadgets_load_from_a_module_name() -> None:
    proc = llmist("gadget", "info", "llmist.gadgets.builtins.files:ReadFile")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("## ReadFile\n")


def test_a_file_that_exits_while_loading_says_so_and_exits_2(tmp_path: Path) -> None:
    quits = tmp_path / "quits.py"
    quits.write_text("import sys\n\nsys.exit(5)\n", encoding="utf-8")
    proc = llmist("gadget", "validate", str(quits))
    assert proc.returncode == 2
    assert f"could not load gadgets from {quits}: it called sys.exit(5) (line 3 of quits.py)" in proc.stderr


def test_two_gadgets_with_one_name_are_refused_naming_both(tmp_path: Path) -> None:
    twice = tmp_path / "twice.py"
    twice.write_text(
        "from llmist import gadget\n\n\n"
        '@gadget(name="add", description="Add.")\ndef add_one(a: int) -> str:\n    return str(a)\n\n\n'
        '@gadget(name="add", description="Add again.")\ndef add_two(a: int) -> str:\n    return str(a)\n',
        encoding="utf-8",
    )
    proc = llmist("gadget", "validate", str(twice))
    assert proc.returncode == 2
    assert f"{twice} defines two gadgets named 'add' (add_one, add_two); give each a unique name" in proc.stderr


def test_the_logger_of_a_gadget_has_warn_and_fatal(tmp_path: Path) -> None:
    loud = tmp_path / "loud.py"
    loud.write_text(
        "from llmist import ExecutionContext, gadget\n\n\n"
        '@gadget(description="Logs.")\ndef loud(ctx: ExecutionContext) -> str:\n'
        '    ctx.logger.warn("disk at %d%%", 91)\n    ctx.logger.fatal("cannot go on")\n    return "ok"\n',
        encoding="utf-8",
    )
    proc = llmist("gadget", "run", f"{loud}:loud")
    assert proc.returncode == 0, proc.stderr
    assert "WARNING" in proc.stderr and "disk at 91%" in proc.stderr
    assert "CRITICAL" in proc.stderr and "cannot go on" in proc.stderr
    assert "DeprecationWarning" not in proc.stderr


def test_validate_warns_about_parameters_without_type_hints_and_still_exits_0(tmp_path: Path) -> None:
    untyped = tmp_path / "untyped.py"
    untyped.write_text(
        "from llmist import gadget\n\n\n"
        '@gadget(description="Add two numbers")\ndef add(a, b):\n    return str(a + b)\n',
        encoding="utf-8",
    )
    proc = llmist("gadget", "validate", str(untyped))
    assert proc.returncode == 0, proc.stderr
    assert "ok, with warnings" in proc.stdout and "✓ 1 gadget(s) valid, 1 with warnings" in proc.stdout
    warning = " ".join(proc.stderr.split())
    assert f"warning: @gadget 'add' (add at {untyped}, line 4): parameters a and b have no type hints" in warning
    assert proc.stderr.count("no type hints") == 1  # once, not again as Python's own warning


def test_a_gadget_without_a_description_is_named_in_the_users_file(tmp_path: Path) -> None:
    nodoc = tmp_path / "nodoc.py"
    nodoc.write_text(
        "from llmist import gadget\n\n\n@gadget\ndef add(a: int) -> str:\n    return str(a)\n", encoding="utf-8"
    )
    proc = llmist("gadget", "validate", str(nodoc))
    assert proc.returncode == 2
    message = " ".join(proc.stderr.split())
    assert f'@gadget on add ({nodoc}, line 4) needs a description: write @gadget(description="...")' in message
    assert ".py)" not in message.split("docstring")[-1]  # no "(line n of base.py)" pointing into llmist
