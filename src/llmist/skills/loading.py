"""Finding and checking skills: folders with a ``SKILL.md`` file, as the Agent Skills format has them.

A skill is a folder whose ``SKILL.md`` starts with YAML front matter (``name``, ``description``,
and optionally ``license``, ``compatibility``, ``allowed-tools`` and ``metadata``) followed by the
instructions; other files may sit beside it. :func:`load_skills` takes folders that *hold* skill
folders (a folder with a ``SKILL.md`` of its own is taken as one skill) and checks each skill by
the specification's reference library (``skills-ref``): the fields allowed and required, the
name's rules (lowercase letters, digits and single hyphens, at most 64 characters) and the
folder's name equal to the skill's. A bad skill is refused with a :class:`SkillError` naming the
file, the field and what was expected, so an agent is never built with a skill it cannot use.

Only the front matter is read here. The instructions are read when the model loads the skill
(:class:`~llmist.skills.LoadSkill`), so an edit to them is seen by the next load.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from llmist._install import install_command

__all__ = ["SKILL_FILE", "Skill", "SkillError", "load_skills"]

SKILL_FILE = "SKILL.md"
"""The file that makes a folder a skill (the reference library also accepts ``skill.md``)."""

_EXPECTED = {
    "name": "a name of lowercase letters, digits and single hyphens (no hyphen first or last), "
    "at most 64 characters, the same as the skill's folder name",
    "description": "a non-empty text of at most 1,024 characters saying what the skill does and when to use it",
    "compatibility": "a text of at most 500 characters",
    "front matter": "only the fields name, description, license, compatibility, allowed-tools and metadata",
}
"""What each field must be, said after the reference library's message."""


class SkillError(ValueError):
    """A skill that cannot be used: the message names the file, the field and what was expected."""


@dataclass(frozen=True, slots=True)
class Skill:
    """A checked skill: its front matter and where it lives (its instructions are read on demand)."""

    name: str
    description: str
    folder: Path
    """The skill's folder, absolute."""
    file: Path
    """Its ``SKILL.md``, absolute."""
    license: str | None = None
    compatibility: str | None = None
    allowed_tools: str | None = None
    """The ``allowed-tools`` field as written (experimental in the specification; llmist does not
    enforce it: the agent's gadgets are what the model may call)."""
    metadata: dict[str, str] = field(default_factory=dict)

    def instructions(self) -> str:
        """The body of ``SKILL.md`` (after the front matter), read now; :class:`SkillError` if
        the file is gone or no longer a valid skill file."""
        return _parse(self.file)[1]

    def files(self, limit: int = 200) -> tuple[list[str], int]:
        """Up to ``limit`` of the skill's other files, as sorted paths relative to its folder
        (hidden files and folders left out, symlinks not followed), and how many there are in all."""
        found: list[str] = []
        for top, dirs, names in os.walk(self.folder):
            dirs[:] = [d for d in dirs if not d.startswith(".")]
            base = Path(top).relative_to(self.folder)
            for name in names:
                if not name.startswith(".") and not (base == Path() and name == self.file.name):
                    found.append((base / name).as_posix())
        found.sort()
        return found[:limit], len(found)


def load_skills(folders: Iterable[str | os.PathLike[str]]) -> tuple[Skill, ...]:
    """The skills in ``folders``, checked (see the module docstring), sorted by name.

    Raises:
        SkillError: a folder that does not exist or holds no skill, a skill that breaks the
            specification, or two skills with one name.
        ImportError: the ``skills`` extra (the reference library ``skills-ref``) is not installed.
    """
    skills: dict[str, Skill] = {}
    for given in folders:
        for folder in _skill_folders(Path(given).expanduser()):
            skill = _checked(folder)
            earlier = skills.get(skill.name)
            if earlier is not None:
                raise SkillError(
                    f"{skill.file}: field 'name': two skills are named {skill.name!r} (the other is "
                    f"{earlier.file}); expected each skill's name to be unique"
                )
            skills[skill.name] = skill
    return tuple(sorted(skills.values(), key=lambda s: s.name))


def _skill_folders(folder: Path) -> list[Path]:
    """``folder`` itself when it is a skill, else each skill folder in it."""
    if not folder.is_dir():
        problem = "does not exist" if not folder.exists() else "is not a folder"
        raise SkillError(f"{folder}: {problem}; expected a folder of skill folders, each with a {SKILL_FILE}")
    if _skill_file(folder) is not None:
        return [folder.resolve()]
    found = sorted(p.resolve() for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))
    skills = [p for p in found if _skill_file(p) is not None]
    if not skills:
        raise SkillError(f"{folder}: no skill in it; expected skill folders, each with a {SKILL_FILE} file")
    return skills


def _skill_file(folder: Path) -> Path | None:
    return next((folder / n for n in (SKILL_FILE, SKILL_FILE.lower()) if (folder / n).is_file()), None)


def _checked(folder: Path) -> Skill:
    file = _skill_file(folder)
    assert file is not None  # _skill_folders found it
    front, _ = _parse(file)
    problems = _reference().validate(front, folder)
    if problems:
        raise SkillError(f"{file}: " + "; ".join(_with_expectation(p) for p in problems))
    metadata = front.get("metadata")
    return Skill(
        name=str(front["name"]).strip(),
        description=str(front["description"]).strip(),
        folder=folder,
        file=file,
        license=front.get("license"),
        compatibility=front.get("compatibility"),
        allowed_tools=front.get("allowed-tools"),
        metadata=dict(metadata) if isinstance(metadata, dict) else {},
    )


def _parse(file: Path) -> tuple[dict[str, Any], str]:
    """The front matter and the body of the skill file ``file``."""
    reference = _reference()
    try:
        content = file.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise SkillError(f"{file}: not UTF-8 text; expected a Markdown file with YAML front matter") from None
    except OSError as exc:
        raise SkillError(f"{file}: cannot be read ({exc.strerror or exc})") from None
    try:
        front_text, body = _split(content)
        front = reference.load_yaml(front_text).data if front_text.strip() else {}
    except (ValueError, reference.YAMLError) as exc:
        raise SkillError(
            f"{file}: front matter: {exc}; expected the file to start with a '---' line, YAML fields "
            "(name, description...), and a closing '---' line"
        ) from None
    if not isinstance(front, dict):
        raise SkillError(f"{file}: front matter: not a mapping; expected YAML fields (name: ..., description: ...)")
    if isinstance(front.get("metadata"), dict):  # as the reference parser reads it: text to text
        front["metadata"] = {str(k): str(v) for k, v in front["metadata"].items()}
    return front, body


def _split(content: str) -> tuple[str, str]:
    """The front matter's text and the body. The front matter runs from a first line ``---`` to
    the next line that is ``---`` alone. (The reference parser splits at the first ``---``
    anywhere, so a description holding ``---`` broke its YAML; the YAML itself is read as the
    reference reads it, with StrictYAML: every value is text, nothing is guessed.)"""
    lines = content.removeprefix("\ufeff").splitlines(keepends=True)
    if not lines or lines[0].rstrip("\r\n") != "---":
        raise ValueError("SKILL.md must start with a line '---' before its YAML fields")
    for i, line in enumerate(lines[1:], 1):
        if line.rstrip("\r\n") == "---":
            return "".join(lines[1:i]), "".join(lines[i + 1 :]).strip()
    raise ValueError("the front matter has no closing line '---'")


def _with_expectation(problem: str) -> str:
    """The reference library's message, with the field it is about and what that field must be."""
    lowered = problem.lower()
    if lowered.startswith("unexpected fields"):
        key = "front matter"
    elif "description" in lowered:
        key = "description"
    elif "compatibility" in lowered:
        key = "compatibility"
    else:
        key = "name"  # the name's rules and the folder's name
    where = key if key == "front matter" else f"field {key!r}"
    return f"{where}: {problem} (expected {_EXPECTED[key]})"


@functools.cache
def _reference() -> SimpleNamespace:
    """The specification's reference library (``skills_ref``: ``validate`` checks the fields)
    and its YAML reader (StrictYAML: ``load_yaml``, ``YAMLError``), imported on first use."""
    try:
        import skills_ref.validator
        import strictyaml  # the reference library's YAML reader, installed with it
    except ImportError:
        raise ImportError(
            "skills need the 'skills' extra (the skills-ref library). Install it with:\n"
            f"    {install_command('skills')}"
        ) from None
    return SimpleNamespace(
        validate=skills_ref.validator.validate_metadata, load_yaml=strictyaml.load, YAMLError=strictyaml.YAMLError
    )
