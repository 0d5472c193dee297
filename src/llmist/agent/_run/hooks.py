"""The hooks a run calls: the agent's own merged with the features', by the one rule of llmist.

Hooks come from three places: the agent's own (``Agent(hooks=...)``, or a run's override), those
a feature makes once per plan (``Feature.hooks``: deferring approvals, compacting) and those a
feature adds to one run (``run.add_hooks`` in ``Feature.wrap``: guardrails, tracing, a session's
saves, typed output's count). :meth:`RunHooks.merged` is the only place they are merged, and it
has one rule (docs/hooks.md says it to users):

- every feature's **controllers** decide first, then the agent's own: a feature's decision is
  not bypassed by the agent's (a call a guardrail refuses is not deferred for approval);
- then the agent's **observers** and **interceptors**, then every feature's: a feature sees
  what the agent's interceptors made;
- among features, in the order of ``_assemble.FEATURES`` (outermost first), whether a feature
  made its hooks for the plan or for the run.

A plan keeps its merged hooks with the parts they were merged from, so a run that adds hooks of
its own merges once more, into a :class:`RunHooks` of its own: the plan is never copied.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from llmist.agent.hooks import Controllers, Hooks, Interceptors, Observers, merge_hooks

__all__ = ["NO_HOOKS", "FeatureHooks", "RunHooks"]

_T = TypeVar("_T")

FeatureHooks = tuple[int, Hooks]
"""A feature's hooks with the feature's place in ``FEATURES`` (its rank in the merge)."""


class RunHooks:
    """The hooks of a plan or of one run, merged (see the module docstring), and each kind of
    callback only when one is set (the loop's check is one ``is None``)."""

    __slots__ = ("controllers", "features", "hooks", "interceptors", "observers", "own")

    def __init__(self, own: Hooks | None = None, features: Sequence[FeatureHooks] = ()) -> None:
        self.own = own
        """The agent's own hooks."""
        self.features: tuple[FeatureHooks, ...] = tuple(features)
        """The features' hooks with their ranks, in the order they came."""
        hooks = self.hooks = _merge(own, self.features)
        """All of them merged."""
        self.observers: Observers | None = _if_set(hooks.observers) if hooks is not None else None
        self.interceptors: Interceptors | None = _if_set(hooks.interceptors) if hooks is not None else None
        self.controllers: Controllers | None = _if_set(hooks.controllers) if hooks is not None else None

    def merged(self, added: Sequence[FeatureHooks]) -> RunHooks:
        """These hooks with the features' ``added`` (one run's own), merged by the same rule."""
        return RunHooks(self.own, (*self.features, *added)) if added else self


def _merge(own: Hooks | None, features: tuple[FeatureHooks, ...]) -> Hooks | None:
    """The rule of the module docstring."""
    if not features:
        return own
    ranked = [h for _, h in sorted(features, key=_rank)]  # stable: a feature's hooks stay in order
    deciding = [Hooks(controllers=h.controllers) for h in ranked]
    watching = [Hooks(observers=h.observers, interceptors=h.interceptors) for h in ranked]
    return merge_hooks(*deciding, own, *watching)


def _rank(made: FeatureHooks) -> int:
    return made[0]


def _if_set(kind: _T) -> _T | None:
    return kind if any(getattr(kind, name) is not None for name in type(kind).__slots__) else None  # type: ignore[attr-defined]


NO_HOOKS = RunHooks()
"""No hooks at all."""
