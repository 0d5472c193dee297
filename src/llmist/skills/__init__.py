"""Agent Skills: folders of instructions and files a model loads when a task needs them.

A skill is a folder with a ``SKILL.md`` file: YAML front matter (``name``, ``description``;
optionally ``license``, ``compatibility``, ``allowed-tools``, ``metadata``), then instructions;
other files (scripts, references, templates) may sit beside it. The model sees each skill's name
and description only; it loads a skill's instructions with ``LoadSkill`` and reads its files with
``ReadSkillFile`` (read-only, confined to the skill's folder)::

    agent = Agent(model="sonnet", gadgets=[...], skills=["skills/"])

or, without the ``skills=`` option, ``gadgets=[..., *skill_gadgets(load_skills(["skills/"]))]``.
Skills are checked when loaded, by the specification's reference library (the ``skills`` extra):
see :func:`load_skills`. docs/skills.md is the guide.
"""

from __future__ import annotations

from llmist.skills.gadgets import LoadSkill, ReadSkillFile, skill_gadgets
from llmist.skills.loading import SKILL_FILE, Skill, SkillError, load_skills

__all__ = ["SKILL_FILE", "LoadSkill", "ReadSkillFile", "Skill", "SkillError", "load_skills", "skill_gadgets"]
