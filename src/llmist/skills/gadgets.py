"""The gadgets that give a model its skills: ``LoadSkill`` and ``ReadSkillFile``.

The model sees each skill's name and description in ``LoadSkill``'s description (part of the
system prompt's list of gadgets), never a skill's instructions: those cost tokens only once a task
needs them, when the model calls ``LoadSkill``. What comes back is the instructions, the skill's
folder and its other files by relative path; ``ReadSkillFile`` reads one of them through a
read-only sandbox rooted at the skill's folder (the one :class:`~llmist.gadgets.builtins.ReadFile`
uses: no absolute path, no ``..``, no symlink out of the folder). Neither gadget writes anything,
so neither needs approval.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, Literal

from pydantic import Field, create_model

from llmist.gadgets.base import Gadget
from llmist.gadgets.builtins import ReadFile
from llmist.gadgets.builtins.files import ReadFileParams
from llmist.gadgets.context import ExecutionContext
from llmist.gadgets.errors import GadgetError
from llmist.skills.loading import Skill

__all__ = ["LoadSkill", "ReadSkillFile", "skill_gadgets"]

MAX_LISTED_FILES = 200
"""Files of one skill that ``LoadSkill`` lists at most (a skill with more says how many)."""


def _skill_name(names: Sequence[str]) -> Any:
    """A required parameter naming one of ``names`` (``Literal``: the schema's enum, and the
    validation error lists them), as a ``create_model`` field."""
    one_of: Any = Literal.__getitem__(tuple(names))
    annotated: Any = Annotated[one_of, Field(description="The skill's name")]
    return (annotated, ...)


class _SkillGadget(Gadget):
    """A gadget over a fixed set of skills, each found by name."""

    def __init__(self, skills: Sequence[Skill]) -> None:
        if not skills:
            raise ValueError(f"{type(self).__name__} needs at least one skill")
        self.skills: dict[str, Skill] = {s.name: s for s in skills}
        """The skills, by name."""

    def _skill(self, name: str) -> Skill:
        skill = self.skills.get(name)
        if skill is None:  # validation allows only these names; a subclass may call it freely
            raise GadgetError(f"no skill is named {name!r}; the skills are: {', '.join(self.skills)}")
        return skill


class LoadSkill(_SkillGadget):
    """Returns a skill's instructions, its folder and its other files (see the module docstring)."""

    def __init__(self, skills: Sequence[Skill]) -> None:
        super().__init__(skills)
        listed = "\n".join(f"- {s.name}: {s.description}" for s in self.skills.values())
        self.description = (
            "Load a skill: instructions, and files, for one kind of task. Before a task that one of these "
            "skills fits, load it and follow its instructions:\n" + listed
        )
        self.Params = create_model("LoadSkillParams", name=_skill_name(list(self.skills)))

    def execute(self, params: Any, ctx: ExecutionContext) -> str:
        """The instructions, then where the skill is and its files."""
        skill = self._skill(params.name)
        try:
            instructions = skill.instructions()
        except ValueError as exc:  # SkillError: the file changed since the agent was built
            raise GadgetError(str(exc)) from None
        files, total = skill.files(MAX_LISTED_FILES)
        lines = [instructions, "", f"[skill {skill.name}, folder {skill.folder}]"]
        if files:
            more = f" ({total - len(files)} more not listed)" if total > len(files) else ""
            lines.append(f"Its files (read one with ReadSkillFile, skill={skill.name}){more}:")
            lines.extend(f"- {f}" for f in files)
        return "\n".join(lines)


class ReadSkillFile(_SkillGadget):
    """Reads a file of a skill, as :class:`~llmist.gadgets.builtins.ReadFile` reads one of its root."""

    description = "Read a file of a skill that LoadSkill listed (a window of lines, as ReadFile reads one)."

    def __init__(self, skills: Sequence[Skill]) -> None:
        super().__init__(skills)
        # One ReadFile per skill, rooted at its folder: the same sandbox, line window and notices.
        self._readers = {s.name: ReadFile(s.folder) for s in skills}
        window = ReadFileParams.model_fields  # the line window as ReadFile declares it
        path: Any = Annotated[str, Field(description="The file's path, as LoadSkill listed it")]
        self.Params = create_model(
            "ReadSkillFileParams",
            skill=_skill_name(list(self.skills)),
            path=(path, ...),
            offset=(int, window["offset"]),
            limit=(int, window["limit"]),
        )

    def execute(self, params: Any, ctx: ExecutionContext) -> str:
        """The file's lines, as ``ReadFile`` returns them."""
        reader = self._readers[self._skill(params.skill).name]
        try:
            return reader.execute(ReadFileParams(path=params.path, offset=params.offset, limit=params.limit), ctx)
        except GadgetError as exc:  # ReadFile's words are about its own root: say which root this is
            raise type(exc)(
                f"{exc}. (For ReadSkillFile the root is the folder of skill {params.skill!r}: "
                "give a path that LoadSkill listed for it.)"
            ) from None


def skill_gadgets(skills: Sequence[Skill]) -> list[Gadget]:
    """The gadgets that give a model ``skills`` (none for no skill)."""
    return [LoadSkill(skills), ReadSkillFile(skills)] if skills else []
