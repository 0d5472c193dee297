"""Skills from Python (``Agent(skills=...)``, a run's override), the builder and the command line
(``--skills``, the ``skills`` configuration key)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from llmist import Agent, AgentBuilder, gadget
from llmist.skills import LoadSkill, SkillError
from llmist.testing import MockModel, block_call

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "skills"


@gadget
def echo(text: str) -> str:
    """Return the text."""
    return text


def _skill(root: Path, name: str, body: str = "Do it.") -> Path:
    (root / name).mkdir(parents=True)
    (root / name / "SKILL.md").write_text(f"---\nname: {name}\ndescription: The {name} skill.\n---\n{body}\n")
    return root


def test_skills_join_the_gadgets_and_the_prompt_lists_them() -> None:
    agent = Agent(model="mock", gadgets=[echo], skills=[EXAMPLES])
    assert [g.name for g in agent.gadgets] == ["echo", "LoadSkill", "ReadSkillFile"]
    assert "- write-a-gadget: Write an llmist gadget" in agent.system_prompt
    assert "# Writing a gadget" not in agent.system_prompt  # the body waits for LoadSkill


def test_a_bad_skill_is_refused_when_the_agent_is_built(tmp_path: Path) -> None:
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "SKILL.md").write_text("---\nname: y\ndescription: Mismatched.\n---\n")
    with pytest.raises(SkillError, match=r"x/SKILL\.md: field 'name': Directory name 'x' must match skill name 'y'"):
        Agent(model="mock", skills=[tmp_path])


def test_the_builder_adds_skills() -> None:
    agent = AgentBuilder().with_model("mock").with_gadgets(echo).with_skills(EXAMPLES).build()
    assert [g.name for g in agent.gadgets] == ["echo", "LoadSkill", "ReadSkillFile"]


async def test_a_run_overrides_the_skills_and_keeps_the_other_gadgets(tmp_path: Path) -> None:
    _skill(tmp_path, "only-here")
    model = MockModel([block_call("LoadSkill", name="only-here") + block_call("echo", text="hi"), "done"])
    agent = Agent(model=model, gadgets=[echo], skills=[EXAMPLES])
    result = await agent.run("go", skills=[tmp_path])
    load, said = sorted(result.gadget_results, key=lambda r: r.gadget_name)
    assert load.result is not None and load.result.startswith("Do it.") and said.result == "hi"
    names = [g.name for g in agent.gadgets]
    assert names == ["echo", "LoadSkill", "ReadSkillFile"]  # the agent itself is unchanged
    loader = agent.gadgets[1]
    assert isinstance(loader, LoadSkill) and "csv-summary" in loader.skills


async def test_a_run_that_overrides_its_gadgets_keeps_the_agents_skills() -> None:
    @gadget
    async def other() -> str:
        """Other."""
        return "other"

    model = MockModel([block_call("LoadSkill", name="csv-summary") + block_call("other"), "done"])
    result = await Agent(model=model, gadgets=[echo], skills=[EXAMPLES]).run("go", gadgets=[other])
    assert sorted((r.gadget_name, r.ok) for r in result.gadget_results) == [("LoadSkill", True), ("other", True)]


async def test_a_run_given_no_skills_has_none() -> None:
    prompts: list[str] = []

    def answer(messages: Sequence[Any]) -> str:
        prompts.append("\n".join(m.text for m in messages if m.role == "system"))
        return "done"

    agent = Agent(model=MockModel(answer), gadgets=[echo], skills=[EXAMPLES])
    await agent.run("go", skills=[])
    await agent.run("go")
    assert "LoadSkill" not in prompts[0] and "## echo" in prompts[0]
    assert "LoadSkill" in prompts[1]


def _llmist(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "llmist.cli", *args], capture_output=True, text=True, cwd=cwd, timeout=120, check=False
    )


@pytest.mark.slow
def test_the_command_line_takes_skills_by_flag_and_config_key(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"turns": [[{"gadget": "LoadSkill", "params": {"name": "from-config"}}], "loaded"]}))
    config_dir = tmp_path / "project"
    _skill(config_dir / "skills", "from-config", "Config skill body.")
    (config_dir / "llmist.toml").write_text('skills = ["skills"]\n')  # relative to the file
    run = _llmist("agent", "go", "-m", f"mock:{script}", "--json", cwd=config_dir)
    assert run.returncode == 0, run.stderr
    events = [json.loads(line) for line in run.stdout.splitlines()]
    results = [e for e in events if e["type"] == "gadget_result"]
    assert results and "Config skill body." in json.dumps(results[0])

    flagged = _llmist("agent", "go", "-m", "mock", "--skills", str(EXAMPLES), "--json", cwd=tmp_path)
    assert flagged.returncode == 0, flagged.stderr
    bad = _llmist("agent", "go", "-m", "mock", "--skills", str(tmp_path / "missing"), cwd=tmp_path)
    assert bad.returncode == 2
    expected = f"{tmp_path / 'missing'}: does not exist; expected a folder of skill folders, each with a SKILL.md"
    assert bad.stderr.strip() == f"error: {expected}"
