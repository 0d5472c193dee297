"""Skills are found in folders of skill folders and checked by the Agent Skills specification's
rules: a bad one is refused with the file, the field and what was expected."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from llmist.skills import Skill, SkillError, load_skills

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "skills"


def write_skill(root: Path, folder: str, front: str, body: str = "Do the thing.\n") -> Path:
    """A skill folder ``root/folder`` whose SKILL.md has the front matter ``front``."""
    path = root / folder
    path.mkdir(parents=True, exist_ok=True)
    (path / "SKILL.md").write_text(f"---\n{front}\n---\n\n{body}", encoding="utf-8")
    return path


def test_the_shipped_skills_load_with_their_front_matter() -> None:
    skills = load_skills([EXAMPLES])
    assert [s.name for s in skills] == ["commit-messages", "csv-summary", "write-a-gadget"]
    csv = skills[1]
    assert csv.folder == EXAMPLES / "csv-summary" and csv.file == EXAMPLES / "csv-summary" / "SKILL.md"
    assert csv.description.startswith("Summarize a CSV file")
    assert csv.license == "MIT" and csv.compatibility is not None and "python3" in csv.compatibility
    assert skills[2].metadata == {"library": "llmist"}
    assert csv.files() == (["scripts/summarize.py"], 1)
    assert csv.instructions().startswith("# Summarizing a CSV file")


def test_a_folder_that_is_itself_a_skill_is_one_skill(tmp_path: Path) -> None:
    folder = write_skill(tmp_path, "solo", "name: solo\ndescription: Alone.")
    [skill] = load_skills([folder])
    assert (skill.name, skill.description, skill.folder) == ("solo", "Alone.", folder.resolve())


def test_folders_without_a_skill_file_and_hidden_ones_are_not_skills(tmp_path: Path) -> None:
    write_skill(tmp_path, "real", "name: real\ndescription: Real.")
    (tmp_path / "shared").mkdir()
    write_skill(tmp_path, ".hidden", "name: hidden\ndescription: Hidden.")
    assert [s.name for s in load_skills([tmp_path])] == ["real"]


def test_instructions_are_read_when_asked_so_an_edit_is_seen(tmp_path: Path) -> None:
    folder = write_skill(tmp_path, "live", "name: live\ndescription: Live.", "First version.\n")
    [skill] = load_skills([tmp_path])
    (folder / "SKILL.md").write_text("---\nname: live\ndescription: Live.\n---\nSecond version.\n")
    assert skill.instructions() == "Second version."


def test_files_are_listed_relative_sorted_without_hidden_ones_and_limited(tmp_path: Path) -> None:
    folder = write_skill(tmp_path, "many", "name: many\ndescription: Many files.")
    (folder / "b").mkdir()
    for name in ("z.txt", "a.txt", "b/c.txt", ".secret", "b/.cache"):
        (folder / name).write_text("x")
    (folder / ".git").mkdir()
    (folder / ".git" / "config").write_text("x")
    [skill] = load_skills([tmp_path])
    assert skill.files() == (["a.txt", "b/c.txt", "z.txt"], 3)
    assert skill.files(limit=2) == (["a.txt", "b/c.txt"], 3)


@pytest.mark.parametrize(
    ("folder", "front", "field", "expected"),
    [
        ("Bad", "name: Bad\ndescription: x", "field 'name'", "lowercase letters, digits and single hyphens"),
        ("a--b", "name: a--b\ndescription: x", "field 'name'", "consecutive hyphens"),
        ("-a", "name: -a\ndescription: x", "field 'name'", "start or end with a hyphen"),
        ("other", "name: mine\ndescription: x", "field 'name'", "must match skill name 'mine'"),
        ("nodesc", "name: nodesc", "field 'description'", "Missing required field in frontmatter: description"),
        ("noname", "description: x", "field 'name'", "Missing required field in frontmatter: name"),
        ("empty", "name: empty\ndescription: ''", "field 'description'", "non-empty"),
        ("long", f"name: long\ndescription: {'x' * 1025}", "field 'description'", "1024 character limit"),
        ("extra", "name: extra\ndescription: x\nauthor: me", "front matter", "Unexpected fields in frontmatter"),
    ],
)
def test_a_bad_skill_is_refused_naming_file_field_and_expectation(
    tmp_path: Path, folder: str, front: str, field: str, expected: str
) -> None:
    path = write_skill(tmp_path, folder, front)
    with pytest.raises(SkillError) as caught:
        load_skills([tmp_path])
    message = str(caught.value)
    assert message.startswith(f"{path.resolve() / 'SKILL.md'}: {field}: "), message
    assert expected in message and "(expected " in message, message


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("no front matter here\n", "must start with a line '---'"),
        ("---\nname: x\ndescription: y\n", "no closing line '---'"),
        ("---\nname: [unclosed\n---\nbody\n", "JSONesque flow mapping"),
    ],
)
def test_a_skill_file_that_is_not_front_matter_and_body_is_refused(tmp_path: Path, content: str, expected: str) -> None:
    folder = tmp_path / "x"
    folder.mkdir()
    (folder / "SKILL.md").write_text(content)
    with pytest.raises(SkillError, match=f"(?s)SKILL.md: front matter: .*{expected}.*expected the file to start with"):
        load_skills([tmp_path])


def test_front_matter_that_is_not_a_mapping_is_refused(tmp_path: Path) -> None:
    write_skill(tmp_path, "x", "- a list")
    with pytest.raises(SkillError, match=r"SKILL\.md: front matter: not a mapping; expected YAML fields"):
        load_skills([tmp_path])


def test_a_description_holding_three_hyphens_is_read_whole(tmp_path: Path) -> None:
    """The reference parser split the file at the first ``---`` anywhere, even inside a value."""
    write_skill(tmp_path, "dashes", "name: dashes\ndescription: Tables --- and rules.", "Body.\n---\nMore.\n")
    [skill] = load_skills([tmp_path])
    assert skill.description == "Tables --- and rules."
    assert skill.instructions() == "Body.\n---\nMore."


def test_a_skill_file_that_is_not_utf8_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "latin"
    folder.mkdir()
    (folder / "SKILL.md").write_bytes("---\nname: latin\ndescription: caf\xe9\n---\n".encode("latin-1"))
    with pytest.raises(SkillError, match=r"SKILL\.md: not UTF-8 text"):
        load_skills([tmp_path])


def test_two_skills_with_one_name_are_refused_naming_both_files(tmp_path: Path) -> None:
    first = write_skill(tmp_path / "one", "same", "name: same\ndescription: First.")
    second = write_skill(tmp_path / "two", "same", "name: same\ndescription: Second.")
    with pytest.raises(SkillError) as caught:
        load_skills([tmp_path / "one", tmp_path / "two"])
    message = str(caught.value)
    assert str(second.resolve() / "SKILL.md") in message and str(first.resolve() / "SKILL.md") in message
    assert "field 'name'" in message and "unique" in message


def test_a_missing_folder_a_file_and_a_folder_without_skills_are_refused(tmp_path: Path) -> None:
    with pytest.raises(SkillError, match="nowhere: does not exist; expected a folder of skill folders"):
        load_skills([tmp_path / "nowhere"])
    (tmp_path / "file.txt").write_text("x")
    with pytest.raises(SkillError, match=r"file\.txt: is not a folder"):
        load_skills([tmp_path / "file.txt"])
    (tmp_path / "empty").mkdir()
    with pytest.raises(SkillError, match="empty: no skill in it"):
        load_skills([tmp_path / "empty"])


_NAME_CHARS = st.sampled_from("abcdefghijklmnopqrstuvwxyz0123456789")
_VALID_NAMES = st.lists(st.text(_NAME_CHARS, min_size=1, max_size=8), min_size=1, max_size=5).map("-".join)


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=_VALID_NAMES.filter(lambda n: len(n) <= 64))
def test_any_name_the_specification_allows_loads(tmp_path: Path, name: str) -> None:
    root = tmp_path / f"r{abs(hash(name))}"
    write_skill(root, name, f"name: {name}\ndescription: Some skill.")
    [skill] = load_skills([root])
    assert isinstance(skill, Skill) and skill.name == name


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.text(st.sampled_from("aZ-_ .é/\\"), min_size=1, max_size=10))
def test_a_name_the_specification_refuses_is_refused_and_one_it_allows_loads(tmp_path: Path, name: str) -> None:
    allowed = name == name.lower() and all(c.isalnum() or c == "-" for c in name)
    allowed = allowed and not name.startswith("-") and not name.endswith("-") and "--" not in name
    # A folder of the same name where one can be made and is not hidden (a hidden one is no skill).
    folder_name = "folder" if name[0] in "./\\ " or "/" in name or "\\" in name else name
    root = tmp_path / f"r{abs(hash(name))}"
    write_skill(root, folder_name, f"name: {name!r}\ndescription: Some skill.")
    if allowed and folder_name == name:
        assert [s.name for s in load_skills([root])] == [name]
    else:
        with pytest.raises(SkillError, match="field 'name'"):
            load_skills([root])


def test_paths_may_be_given_as_text_or_path_like(tmp_path: Path) -> None:
    write_skill(tmp_path, "p", "name: p\ndescription: P.")
    assert load_skills([str(tmp_path)]) == load_skills([os.fspath(tmp_path)]) == load_skills([tmp_path])
