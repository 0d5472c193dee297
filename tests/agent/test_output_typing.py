"""The type checker sees ``output_type``: ``result.output`` is the model, under ``mypy --strict``."""

from __future__ import annotations

from pathlib import Path

import pytest

# mypy comes with the dev extra (the pure build's suite); the compiled build's venv has no mypy.
api = pytest.importorskip("mypy.api")

pytestmark = pytest.mark.slow

_PROGRAM = """
from pydantic import BaseModel

from llmist import Agent, AgentResult, LLMist
from llmist.testing import MockModel


class City(BaseModel):
    name: str
    population: int


async def main() -> None:
    agent = Agent(model=MockModel([]), output_type=City)
    result = await agent.run("Which city?")
    population: int = result.output.population
    built = LLMist().create_agent().with_output_type(City).build()
    name: str = (await built.run("Which city?")).output.name
    override: AgentResult[City] = await Agent(model="mock").run("x", output_type=City)
    text: str = (await Agent(model="mock").run("x")).output
    print(population, name, override, text, {ACCESS})
"""


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One mypy cache for both checks: the second reuses pydantic's and llmist's analysis."""
    return tmp_path_factory.mktemp("mypy_cache")


def _mypy(tmp_path: Path, cache_dir: Path, access: str) -> tuple[str, int]:
    source = tmp_path / "typed_output.py"
    source.write_text(_PROGRAM.replace("{ACCESS}", access))
    out, err, status = api.run(["--strict", "--cache-dir", str(cache_dir), str(source)])
    return out + err, status


def test_mypy_strict_accepts_the_output_types_fields(tmp_path: Path, cache_dir: Path) -> None:
    report, status = _mypy(tmp_path, cache_dir, "result.output.name")
    assert status == 0, report


def test_mypy_strict_rejects_a_field_the_output_type_lacks(tmp_path: Path, cache_dir: Path) -> None:
    report, status = _mypy(tmp_path, cache_dir, "result.output.mayor")
    assert status == 1
    assert '"City" has no attribute "mayor"' in report
