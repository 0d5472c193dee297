"""LoadSkill and ReadSkillFile: the model sees names and descriptions, loads instructions on
demand, and reads a skill's files inside its folder only."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from llmist import Agent
from llmist.gadgets.builtins import RunCommand
from llmist.skills import LoadSkill, ReadSkillFile, load_skills, skill_gadgets
from llmist.testing import MockModel, block_call

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "skills"


def test_the_system_prompt_lists_names_and_descriptions_and_never_a_body() -> None:
    skills = load_skills([EXAMPLES])
    prompt = Agent(model="mock", gadgets=skill_gadgets(skills)).system_prompt
    for skill in skills:
        assert f"- {skill.name}: {skill.description}" in prompt
        assert skill.instructions().splitlines()[0] not in prompt  # each body's heading
    assert "## LoadSkill" in prompt and "## ReadSkillFile" in prompt


def test_no_skill_gives_no_gadget_and_a_gadget_needs_one() -> None:
    assert skill_gadgets(()) == []
    with pytest.raises(ValueError, match="LoadSkill needs at least one skill"):
        LoadSkill(())


async def test_a_scripted_model_loads_a_skill_and_runs_its_script(tmp_path: Path) -> None:
    (tmp_path / "sales.csv").write_text("region,units\nnorth,12\nsouth,30\neast,\n")
    script = EXAMPLES / "csv-summary" / "scripts" / "summarize.py"
    model = MockModel(
        [
            block_call("LoadSkill", name="csv-summary"),
            block_call("RunCommand", command=f"{sys.executable} {script} sales.csv"),
            "sales.csv has 3 rows; units range from 12 to 30.",
        ]
    )
    gadgets = [*skill_gadgets(load_skills([EXAMPLES])), RunCommand(tmp_path)]
    result = await Agent(model=model, gadgets=gadgets).run("Summarize sales.csv")
    loaded, ran = result.gadget_results
    assert loaded.ok and loaded.result is not None
    assert loaded.result.startswith("# Summarizing a CSV file")
    assert f"folder {EXAMPLES / 'csv-summary'}" in loaded.result and "- scripts/summarize.py" in loaded.result
    assert ran.ok and ran.result is not None
    assert "sales.csv: 3 rows, 2 columns" in ran.result
    assert "units: integer, 1 empty, min 12, max 30, mean 21" in ran.result
    assert result.output.startswith("sales.csv has 3 rows")


async def test_a_scripted_model_reads_a_file_a_skill_listed() -> None:
    model = MockModel(
        [
            block_call("LoadSkill", name="commit-messages"),
            block_call("ReadSkillFile", skill="commit-messages", path="examples.md", limit=3),
            "Done.",
        ]
    )
    result = await Agent(model=model, gadgets=skill_gadgets(load_skills([EXAMPLES]))).run("Commit this")
    loaded, read = result.gadget_results
    assert loaded.result is not None and "- examples.md" in loaded.result
    assert read.result is not None and read.result.startswith("# Commit messages: good and bad")
    assert "[lines 1-3 of 20 shown; call again with offset=4 to read on]" in read.result


@pytest.mark.parametrize(
    ("path", "error"),
    [
        ("../csv-summary/SKILL.md", "'..' is not allowed in paths"),
        ("/etc/passwd", "Absolute paths are not allowed"),
        ("missing.md", "missing.md"),
    ],
)
async def test_a_skill_file_outside_its_folder_or_missing_is_refused(path: str, error: str) -> None:
    model = MockModel([block_call("ReadSkillFile", skill="commit-messages", path=path), "Done."])
    result = await Agent(model=model, gadgets=skill_gadgets(load_skills([EXAMPLES]))).run("Read")
    [read] = result.gadget_results
    assert not read.ok and read.error is not None and error in read.error
    assert "the root is the folder of skill 'commit-messages'" in read.error


async def test_a_symlink_out_of_the_skill_folder_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "skills" / "leaky"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: leaky\ndescription: Leaks.\n---\nRead secret.txt.\n")
    (tmp_path / "secret.txt").write_text("the secret")
    (folder / "secret.txt").symlink_to(tmp_path / "secret.txt")
    model = MockModel([block_call("ReadSkillFile", skill="leaky", path="secret.txt"), "Done."])
    result = await Agent(model=model, gadgets=skill_gadgets(load_skills([tmp_path / "skills"]))).run("Read")
    [read] = result.gadget_results
    assert not read.ok and read.error is not None and "the secret" not in read.error
    assert "outside" in read.error or "leads out" in read.error


async def test_an_unknown_skill_name_is_an_invalid_call_that_lists_the_names() -> None:
    model = MockModel([block_call("LoadSkill", name="pdf-forms"), "Done."])
    result = await Agent(model=model, gadgets=skill_gadgets(load_skills([EXAMPLES]))).run("Fill a form")
    [load] = result.gadget_results
    assert not load.ok and load.error is not None
    assert "'commit-messages', 'csv-summary' or 'write-a-gadget'" in load.error


async def test_a_skill_file_broken_after_the_agent_was_built_is_an_error_naming_it(tmp_path: Path) -> None:
    folder = tmp_path / "fragile"
    folder.mkdir()
    (folder / "SKILL.md").write_text("---\nname: fragile\ndescription: Fragile.\n---\nBody.\n")
    gadgets = skill_gadgets(load_skills([tmp_path]))
    (folder / "SKILL.md").unlink()
    model = MockModel([block_call("LoadSkill", name="fragile"), "Done."])
    result = await Agent(model=model, gadgets=gadgets).run("Go")
    [load] = result.gadget_results
    assert not load.ok and load.error is not None and "SKILL.md: cannot be read" in load.error


def test_read_skill_file_takes_the_line_window_of_read_file() -> None:
    [_, reader] = skill_gadgets(load_skills([EXAMPLES]))
    assert isinstance(reader, ReadSkillFile)
    schema = reader.Params.model_json_schema()
    assert list(schema["properties"]) == ["skill", "path", "offset", "limit"]
    assert schema["required"] == ["skill", "path"]
    assert schema["properties"]["offset"]["minimum"] == 1 and schema["properties"]["limit"]["default"] == 2000
