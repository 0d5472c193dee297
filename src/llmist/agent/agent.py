"""``Agent``: a model, gadgets, options in four groups and features; ``run``, ``run_sync`` and ``stream``."""

from __future__ import annotations

import dataclasses
import functools
import inspect
import operator
import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeAlias, TypeVar, overload

from typing_extensions import TypeVar as DefaultTypeVar
from typing_extensions import Unpack

from llmist.agent._assemble import plan_of, run_to_end, start_run
from llmist.agent._features.output import DEFAULT_MAX_OUTPUT_RETRIES
from llmist.agent._run.media import UserPrompt
from llmist.agent._run.plan import agent_system_prompt
from llmist.agent.compaction import Compaction, CompactionStrategy
from llmist.agent.guardrails import Guardrail, Guardrails
from llmist.agent.hooks import Hooks, merge_hooks
from llmist.agent.instrumentation import InstrumentationSettings
from llmist.agent.options import (
    GROUPS,
    OPTIONS,
    FlatOptions,
    GadgetSettings,
    HumanInputHandler,
    ModelSettings,
    OptionGroups,
    PromptSettings,
    RunLimits,
)
from llmist.agent.prompt import Markers, PromptStyle, Syntax, SyntaxOption
from llmist.agent.result import AgentResult, OutputT
from llmist.agent.sessions import Session
from llmist.agent.spec import AgentSpec, ApprovalMode
from llmist.agent.stream import AgentStream
from llmist.agent.subagents import DEFAULT_MAX_DEPTH, SubagentGadget
from llmist.execution.cancellation import run_main
from llmist.gadgets import AbortSignal, Gadget, ModelClient, as_gadget
from llmist.providers.base import Message, Provider, Reasoning
from llmist.providers.fallback import ModelChoice

if TYPE_CHECKING:
    from llmist.mcp import MCPServer

__all__ = ["Agent", "AgentStream", "HumanInputHandler", "RunOptions"]

RunOutputT = DefaultTypeVar("RunOutputT")
"""The output type of one run given ``run(..., output_type=...)``."""

T = TypeVar("T")

OutputType: TypeAlias = "type[OutputT] | Sequence[type[OutputT]]"
"""What ``output_type`` takes: a type (a Pydantic model, ``str``, any type pydantic validates, a
``A | B`` union) or a list of types (one final-answer gadget each; ``str`` among them lets the
model answer in prose)."""

_GROUPS: dict[type[Any], Any] = {cls: cls() for cls in GROUPS.values()}
"""Each option group's defaults."""
_NAMES = {cls: name for name, cls in GROUPS.items()}
"""Each option group's name (its ``Agent`` keyword and attribute)."""


class RunOptions(OptionGroups, FlatOptions, total=False):
    """What one run may override (``agent.run(prompt, max_iterations=1, session=s)``): every
    keyword ``Agent`` takes but ``name``, ``description`` and ``output_type`` (a parameter of
    ``run`` of its own), with the constructor's types. A test holds it to ``Agent``'s signature."""

    model: str | Provider | Sequence[ModelChoice]
    gadgets: Sequence[object]
    subagents: Sequence[Agent[Any] | SubagentGadget]
    skills: Sequence[str | os.PathLike[str]]
    syntax: SyntaxOption
    hooks: Hooks | Sequence[Hooks] | None
    max_output_retries: int
    strict: bool
    session: Session | None
    approvals: ApprovalMode
    compaction: Compaction | CompactionStrategy | None
    mcp_servers: Sequence[MCPServer]
    instrument: InstrumentationSettings | bool | None
    guardrails: Guardrails | Sequence[Guardrail] | None
    model_registry: Any


class _Option(Generic[T]):
    """An agent attribute kept in its spec: reading gives the spec's value (or a field of one of
    its groups); assigning makes a new spec, which the next run takes."""

    def __init__(self, field: str, group: str | None = None) -> None:
        self.field = field
        self.group = group

    @overload
    def __get__(self, agent: None, owner: type[Any]) -> _Option[T]: ...
    @overload
    def __get__(self, agent: Agent[Any], owner: type[Any]) -> T: ...
    def __get__(self, agent: Agent[Any] | None, owner: type[Any]) -> T | _Option[T]:
        if agent is None:
            return self
        spec = agent._spec
        value: T = getattr(getattr(spec, self.group) if self.group else spec, self.field)
        return value

    def __set__(self, agent: Agent[Any], value: T) -> None:
        spec = agent._spec
        if self.group is None:
            agent._spec = spec.changed(**{self.field: value})
        else:
            group = dataclasses.replace(getattr(spec, self.group), **{self.field: value})
            agent._spec = spec.changed(**{self.group: group})


class _Flat(_Option[T]):
    """A flat option: the field of a group that :data:`~llmist.agent.options.OPTIONS` declares under
    the attribute's name (``prompt_style`` is ``prompt_settings.style``). Written out in ``Agent``
    for type checkers; a name that is no option fails when the class is made."""

    def __init__(self) -> None:
        super().__init__("")

    def __set_name__(self, owner: type[Any], name: str) -> None:
        option = OPTIONS.get(name)
        if option is None or option.part is not None:
            raise TypeError(f"{owner.__name__}.{name} is not an option of the groups (llmist.agent.options.OPTIONS)")
        self.field, self.group = option.field, option.group


class Agent(Generic[OutputT]):
    """Runs a model with gadgets until the task is done.

    Args:
        model: ``"mock"``, ``"provider:model"``, an alias, or a provider instance (``MockModel``...);
            or a list of them (or a :class:`~llmist.providers.FallbackModel`): each response
            goes to the first that answers, each model in its own syntax, prompt and prices
            (see the fallback section of :doc:`providers`).
        gadgets: ``Gadget`` instances, ``Gadget`` subclasses or ``@gadget`` functions.
        limits: When a run stops (:class:`RunLimits`: iterations, cost, tokens, calls per
            response, a response without calls).
        model_settings: What each model request asks for (:class:`ModelSettings`: temperature,
            reasoning, response length) and the model's context window.
        prompt_settings: The system prompt (:class:`PromptSettings`: preamble, extra
            instructions, style, example exchanges, block markers).
        gadget_settings: How gadgets run (:class:`GadgetSettings`: default timeout, output
            limiting, the human-input handler, the client lent to gadgets).
        syntax: How the model calls gadgets: it writes ``"block"`` (``!!!GADGET_START:``) or
            ``"emoji"`` (``🛠️[``) calls in its text, or ``"native"``: the provider's tool-calling
            API; ``"auto"``: native where the model registry says the model does it well, else
            block (see :doc:`native-tools`).
        hooks: One :class:`Hooks` or several (merged in order).
        output_type: The type of the final answer (``str`` by default); see :doc:`output`. The
            model then ends with a final-answer gadget whose schema is the type, and
            ``AgentResult.output`` is the validated instance.
        max_output_retries: Invalid final answers fed back to the model before the run raises
            :class:`~llmist.OutputValidationError`.
        strict: Turn the loop's repairs of a model's mistakes (an unknown gadget name, a repeated
            call, an invented result) into a :class:`~llmist.agent.RepairRefused` error ending the run.
        session: Keeps the conversation between runs and processes (:class:`SQLiteSession`...):
            each run continues it and saves it after every completed iteration; see :doc:`sessions`.
        approvals: ``"defer"``: a call that needs approval (:attr:`Gadget.requires_approval`)
            does not run; the run ends ``"awaiting_approval"`` with the calls in
            ``AgentResult.pending``, the session keeps them, and a run after their decisions goes
            on (see :doc:`approvals`). ``None`` (the default): approval is left to the hooks.
        compaction: Shrinks the conversation when it nears the context window: a
            :class:`Compaction` or a strategy (:class:`SlidingWindow`, :class:`Summarize`);
            ``None`` (the default) never compacts. See :doc:`compaction`.
        mcp_servers: MCP servers (``MCPServerStdio``, ``MCPServerHTTP``) whose tools join the gadgets;
            each run connects those not yet connected and closes them when it ends.
        instrument: Trace runs with OpenTelemetry (``True`` or :class:`InstrumentationSettings`;
            ``None`` follows :func:`llmist.instrument`); see :doc:`tracing`.
        subagents: Agents (with a ``name`` and ``description``) or their :meth:`as_gadget`
            gadgets this agent may call with a task; see :doc:`subagents`.
        skills: Folders of Agent Skills (folders with a ``SKILL.md``), or folders holding them:
            the model sees each skill's name and description and loads one when a task needs it
            (the ``LoadSkill`` and ``ReadSkillFile`` gadgets join the others). Checked here: a bad
            skill raises :class:`~llmist.skills.SkillError` naming the file and the field. Needs
            the ``skills`` extra; see :doc:`skills`.
        guardrails: Checks of the prompt, of calls before they run, of results before the model
            reads them and of the final answer: a list of guardrails, or :class:`Guardrails`
            (``raise_on_tripwire=True`` makes ``run`` raise :class:`GuardrailTripped`); see
            :doc:`guardrails`.
        model_registry: Prices model calls (default: the providers' registry when available).
        name / description: What the agent is called and does, when another agent calls it
            (``subagents=[...]``, :meth:`as_gadget`).
        **options: The flat keywords of earlier versions (:class:`FlatOptions`), each a field of a
            group under the name :data:`~llmist.agent.options.OPTIONS` gives it (``max_iterations``:
            ``RunLimits.max_iterations``; ``prompt_style``: ``PromptSettings.style``;
            ``gadget_start_prefix``: ``PromptSettings.markers.start``...). It overrides that field
            of a group given too.

    Every option is also an attribute (``agent.limits``, ``agent.max_iterations``,
    ``agent.hooks``...). Assigning one applies from the next run on: a run takes the agent's
    :attr:`spec` when it starts and reads nothing else of the agent.
    """

    def __init__(
        self,
        *,
        model: str | Provider | Sequence[ModelChoice],
        gadgets: Sequence[object] = (),
        limits: RunLimits | None = None,
        model_settings: ModelSettings | None = None,
        prompt_settings: PromptSettings | None = None,
        gadget_settings: GadgetSettings | None = None,
        syntax: SyntaxOption = "block",
        hooks: Hooks | Sequence[Hooks] | None = None,
        output_type: type[OutputT] | Sequence[type[OutputT]] = str,  # type: ignore[assignment]
        max_output_retries: int = DEFAULT_MAX_OUTPUT_RETRIES,
        strict: bool = False,
        session: Session | None = None,
        approvals: ApprovalMode = None,
        compaction: Compaction | CompactionStrategy | None = None,
        mcp_servers: Sequence[MCPServer] = (),
        instrument: InstrumentationSettings | bool | None = None,
        subagents: Sequence[Agent[Any] | SubagentGadget] = (),
        skills: Sequence[str | os.PathLike[str]] = (),
        guardrails: Guardrails | Sequence[Guardrail] | None = None,
        model_registry: Any = None,
        name: str | None = None,
        description: str | None = None,
        **options: Unpack[FlatOptions],
    ) -> None:
        changes = _fold(options, "Agent()") if options else {}
        self.name, self.description = name, description
        self.gadgets: list[Gadget] = _unique_gadgets(
            [*gadgets, *(_subagent_gadget(s) for s in subagents), *_skill_gadgets(skills)]
        )
        """The agent's gadgets (its subagents' and skills' among them); a change applies from the next run on."""
        self.mcp_servers: list[MCPServer] = list(mcp_servers)
        """The agent's MCP servers; a change applies from the next run on."""
        self._spec = AgentSpec(
            model=model,  # type: ignore[arg-type]  # a list becomes a FallbackModel in AgentSpec
            gadgets=tuple(self.gadgets),
            syntax=syntax,
            hooks=_hooks(hooks),
            strict=strict,
            model_registry=model_registry,
            output_type=output_type,
            max_output_retries=max_output_retries,
            session=session,
            approvals=approvals,
            compaction=compaction,
            mcp_servers=tuple(self.mcp_servers),
            instrument=instrument,
            guardrails=Guardrails.of(guardrails),
            limits=_group(RunLimits, limits, changes),
            model_settings=_group(ModelSettings, model_settings, changes),
            prompt_settings=_group(PromptSettings, prompt_settings, changes),
            gadget_settings=_group(GadgetSettings, gadget_settings, changes),
        )

    # The options, kept in the spec; each assignment applies from the next run on.
    model = _Option[str | Provider | tuple[Provider, str]]("model")
    """The model runs use (``llmist.testing.override`` swaps it for a test)."""
    limits = _Option[RunLimits]("limits")
    model_settings = _Option[ModelSettings]("model_settings")
    prompt_settings = _Option[PromptSettings]("prompt_settings")
    gadget_settings = _Option[GadgetSettings]("gadget_settings")
    syntax = _Option[SyntaxOption]("syntax")
    hooks = _Option[Hooks | None]("hooks")
    output_type = _Option[Any]("output_type")
    max_output_retries = _Option[int]("max_output_retries")
    strict = _Option[bool]("strict")
    session = _Option[Session | None]("session")
    approvals = _Option[ApprovalMode]("approvals")
    compaction = _Option[Compaction | CompactionStrategy | None]("compaction")
    instrument = _Option[InstrumentationSettings | bool | None]("instrument")
    guardrails = _Option[Guardrails | None]("guardrails")
    model_registry = _Option[Any]("model_registry")
    # The flat options of earlier versions, each the field of a group that OPTIONS names.
    max_iterations = _Flat[int]()
    max_cost = _Flat[float | None]()
    max_tokens = _Flat[int | None]()
    max_gadgets_per_response = _Flat[int | None]()
    stop_on_no_calls = _Flat[bool]()
    temperature = _Flat[float | None]()
    reasoning = _Flat[Reasoning | None]()
    max_response_tokens = _Flat[int | Literal["auto"] | None]()
    context_window = _Flat[int | None]()
    constrained = _Flat[bool | Literal["auto"]]()
    system = _Flat[str | None]()
    system_extra = _Flat[str | None]()
    prompt_style = _Flat[PromptStyle]()
    few_shot = _Flat[int]()
    markers = _Flat[Markers]()
    gadget_timeout_s = _Flat[float | None]()
    gadget_output_limit = _Flat[bool]()
    gadget_output_limit_percent = _Flat[float]()
    on_human_input = _Flat[HumanInputHandler | None]()
    llm_client = _Flat[ModelClient | None]()

    @property
    def spec(self) -> AgentSpec:
        """The agent's options, frozen: what a run starting now takes (with :attr:`gadgets` and
        :attr:`mcp_servers` as they are now)."""
        spec, gadgets, servers = self._spec, self.gadgets, self.mcp_servers
        # Compared by identity, at every run: the lists are the agent's to change.
        same = len(spec.gadgets) == len(gadgets) and all(map(operator.is_, spec.gadgets, gadgets))
        if same and (servers or spec.mcp_servers):
            same = len(spec.mcp_servers) == len(servers) and all(map(operator.is_, spec.mcp_servers, servers))
        if not same:
            spec = self._spec = spec.changed(gadgets=tuple(gadgets), mcp_servers=tuple(servers))
        return spec

    @property
    def system_prompt(self) -> str:
        """The system prompt the model receives (as a run starting now would send it)."""
        return plan_of(self.spec).system_prompt

    @property
    def call_syntax(self) -> Syntax:
        """How this agent's runs call gadgets: its ``syntax``, with ``"auto"`` resolved for its model."""
        return plan_of(self.spec).syntax

    def as_gadget(
        self, name: str | None = None, description: str | None = None, *, max_depth: int = DEFAULT_MAX_DEPTH
    ) -> SubagentGadget:
        """This agent as a gadget another agent calls with a task (see :doc:`subagents`).

        ``name`` and ``description`` default to the agent's own; ``max_depth`` is how deep
        subagents may nest below the top run.
        """
        name = name or self.name
        description = description or self.description
        if not name or not description:
            raise ValueError(
                "a subagent needs a name and a description: pass them to as_gadget(name, description) "
                "or to Agent(name=..., description=...)"
            )
        return SubagentGadget(self, name, description, max_depth=max_depth)

    @overload
    def stream(
        self,
        prompt: UserPrompt | None,
        *,
        signal: AbortSignal | None = None,
        output_type: None = None,
        history: Sequence[Message] | None = None,
        **overrides: Unpack[RunOptions],
    ) -> AgentStream[OutputT]: ...
    @overload
    def stream(
        self,
        prompt: UserPrompt | None,
        *,
        signal: AbortSignal | None = None,
        output_type: type[RunOutputT] | Sequence[type[RunOutputT]],
        history: Sequence[Message] | None = None,
        **overrides: Unpack[RunOptions],
    ) -> AgentStream[RunOutputT]: ...
    def stream(
        self,
        prompt: UserPrompt | None,
        *,
        signal: AbortSignal | None = None,
        output_type: Any = None,
        history: Sequence[Message] | None = None,
        **overrides: Unpack[RunOptions],
    ) -> AgentStream[Any]:
        """Start a run; iterate the returned :class:`AgentStream` for its events as they happen.

        ``overrides`` are any of the constructor's options (:class:`RunOptions`: ``max_iterations=1``,
        ``limits=...``, ``session=...``, ``hooks=...``, ``gadgets=...``...), for this run only:
        checked as the constructor checks them, and never written to the agent, so runs of one
        agent at once may each have their own. Each replaces the agent's value, ``hooks`` too (the
        features' hooks join them as usual); a flat keyword changes that field of the agent's
        group (or of a group given beside it); a group or ``output_type`` given as ``None`` keeps
        the agent's. ``history`` (an earlier result's ``messages``, or
        :func:`~llmist.loads_messages` of a saved one) is the conversation the run continues
        (default: the session's, else none); ``prompt`` ``None`` continues it without a new user message.
        """
        spec = self.spec if output_type is None and not overrides else self._run_spec(output_type, overrides)
        return start_run(spec, prompt, signal=signal, history=history)

    @overload
    async def run(
        self,
        prompt: UserPrompt | None,
        *,
        signal: AbortSignal | None = None,
        output_type: None = None,
        history: Sequence[Message] | None = None,
        **overrides: Unpack[RunOptions],
    ) -> AgentResult[OutputT]: ...
    @overload
    async def run(
        self,
        prompt: UserPrompt | None,
        *,
        signal: AbortSignal | None = None,
        output_type: type[RunOutputT] | Sequence[type[RunOutputT]],
        history: Sequence[Message] | None = None,
        **overrides: Unpack[RunOptions],
    ) -> AgentResult[RunOutputT]: ...
    async def run(
        self,
        prompt: UserPrompt | None,
        *,
        signal: AbortSignal | None = None,
        output_type: Any = None,
        history: Sequence[Message] | None = None,
        **overrides: Unpack[RunOptions],
    ) -> AgentResult[Any]:
        """Run to the end and return the :class:`AgentResult` (the other arguments as in :meth:`stream`).

        ``prompt`` is text, or text and images: ``["What is this?", ImagePart.from_path("cat.png")]``.
        Images for a model known not to see them raise :class:`~llmist.ImagesNotSupportedError`.
        """
        spec = self.spec if output_type is None and not overrides else self._run_spec(output_type, overrides)
        return await run_to_end(spec, prompt, signal=signal, history=history)

    def run_sync(
        self,
        prompt: UserPrompt | None,
        *,
        history: Sequence[Message] | None = None,
        **overrides: Unpack[RunOptions],
    ) -> AgentResult[OutputT]:
        """``run`` for code without an event loop (``overrides`` as in :meth:`stream`).

        Its loop closes as :func:`~llmist.execution.run_main`'s does: a gadget or guardrail
        that ignores its cancellation, already abandoned and reported by the run, is given the
        cancellation grace period once more and then left behind, so this returns (and the
        program can exit) where ``asyncio.run`` would wait for it forever."""
        return run_main(self.run(prompt, history=history, **overrides))

    def _run_spec(self, output_type: Any, overrides: Mapping[str, Any]) -> AgentSpec:
        """The spec of a run: the agent's, with what the run overrides, converted and checked by
        the constructor's own steps (``_fold``, ``_group``, ``_hooks``..., then ``AgentSpec``'s
        and the groups' checks when :meth:`AgentSpec.changed` makes the new spec)."""
        spec = self.spec
        flat = {key: value for key, value in overrides.items() if key not in _OWN_OPTIONS}
        folded = _fold(flat, "Agent.run()") if flat else {}
        changes: dict[str, Any] = {}
        for cls, name in _NAMES.items():
            given = overrides.get(name)
            if given is not None or name in folded or (cls is PromptSettings and "markers" in folded):
                changes[name] = _group(cls, given if given is not None else getattr(spec, name), folded)
        if _GADGET_SOURCES.intersection(overrides):
            changes["gadgets"] = tuple(_run_gadgets(spec.gadgets, overrides))
        for name in _PLAIN_OPTIONS.intersection(overrides):
            changes[name] = overrides[name]
        if "hooks" in overrides:
            changes["hooks"] = _hooks(overrides["hooks"])
        if "guardrails" in overrides:
            changes["guardrails"] = Guardrails.of(overrides["guardrails"])
        if "mcp_servers" in overrides:
            changes["mcp_servers"] = tuple(overrides["mcp_servers"])
        if output_type is not None:
            changes["output_type"] = output_type
        return spec.changed(**changes) if changes else spec

    def render_system_prompt(self, gadgets: Sequence[Gadget]) -> str:
        """The system prompt for ``gadgets`` with this agent's syntax, markers and texts (with
        ``syntax="auto"``, the syntax its runs use: see :attr:`call_syntax`)."""
        option = self.syntax
        return agent_system_prompt(self.prompt_settings, gadgets, self.call_syntax if option == "auto" else option)

    def __repr__(self) -> str:
        return f"Agent(model={self.model!r}, gadgets={[g.name for g in self.gadgets]}, syntax={self.syntax!r})"


_OWN_OPTIONS = frozenset(inspect.signature(Agent.__init__).parameters) - {"self", "name", "description", "options"}
"""The options ``Agent`` declares as its own keywords (not flat ones): the same names a run overrides."""

_GADGET_SOURCES = frozenset({"gadgets", "subagents", "skills"})
"""The options that make an agent's gadgets: a run overriding one replaces the gadgets it made."""

_PLAIN_OPTIONS = _OWN_OPTIONS - {*_NAMES.values(), *_GADGET_SOURCES, "hooks", "guardrails", "mcp_servers"}
"""The options a spec keeps as given (``AgentSpec`` checks them): the rest are converted first."""


def _fold(options: Mapping[str, Any], where: str) -> dict[str, dict[str, Any]]:
    """The flat keywords ``options`` as fields of the groups: group name -> field -> value (the
    markers' as ``PromptSettings.markers`` fields, under ``"markers"``). An unknown keyword is a
    ``TypeError``, as it is for any function (``where`` names the function: ``"Agent()"``)."""
    changes: dict[str, dict[str, Any]] = {}
    for key, value in options.items():
        option = OPTIONS.get(key)
        if option is None:
            raise TypeError(f"{where} got an unexpected keyword argument {key!r}")
        if option.part is not None:
            changes.setdefault(option.field, {})[option.part] = value
        else:
            changes.setdefault(option.group, {})[option.field] = value
    return changes


def _group(cls: type[Any], given: Any, changes: dict[str, dict[str, Any]]) -> Any:
    """The group of class ``cls``: the one ``given`` (else the defaults), with the flat keywords'
    ``changes`` to its fields (a flat keyword overrides the field of a group given beside it)."""
    fields = changes.get(_NAMES[cls])
    if cls is PromptSettings and "markers" in changes:
        markers = (fields or {}).get("markers") or (given or _GROUPS[cls]).markers
        fields = {**(fields or {}), "markers": dataclasses.replace(markers, **changes["markers"])}
    base = given if given is not None else _GROUPS[cls]
    if not fields:
        return base
    try:
        return _changed(base, tuple(fields.items()))
    except TypeError:  # a value that cannot be a cache key (an unhashable handler)
        return dataclasses.replace(base, **fields)


@functools.lru_cache(maxsize=128)
def _changed(group: Any, fields: tuple[tuple[str, Any], ...]) -> Any:
    """``group`` with ``fields`` changed, made once for each: an application that builds an
    ``Agent`` per request with the same flat keywords gets the same groups back."""
    return dataclasses.replace(group, **dict(fields))


def _hooks(hooks: Hooks | Sequence[Hooks] | None) -> Hooks | None:
    """The ``hooks`` option as one :class:`Hooks`: several are merged in order."""
    return hooks if isinstance(hooks, Hooks) or hooks is None else merge_hooks(*hooks)


def _skill_gadgets(folders: Sequence[str | os.PathLike[str]]) -> list[Gadget]:
    """The gadgets giving a model the skills in ``folders`` (loaded and checked now); none for none."""
    if not folders:
        return []
    from llmist.skills import load_skills, skill_gadgets  # the skills extra's library, only when used

    return skill_gadgets(load_skills(folders))


def _run_gadgets(current: Sequence[Gadget], overrides: Mapping[str, Any]) -> list[Gadget]:
    """A run's gadgets: each of ``gadgets``, ``subagents`` and ``skills`` the run overrides replaces
    the agent's gadgets of that kind, and the agent's other gadgets stay (a run given other
    ``skills`` keeps the agent's own gadgets and subagents)."""
    from llmist.skills import LoadSkill, ReadSkillFile

    def source(gadget: Gadget) -> str:
        if isinstance(gadget, SubagentGadget):
            return "subagents"
        return "skills" if isinstance(gadget, LoadSkill | ReadSkillFile) else "gadgets"

    made = {
        "gadgets": lambda given: list(given),
        "subagents": lambda given: [_subagent_gadget(s) for s in given],
        "skills": _skill_gadgets,
    }
    gadgets: list[object] = []
    for kind, make in made.items():
        gadgets += make(overrides[kind]) if kind in overrides else [g for g in current if source(g) == kind]
    return _unique_gadgets(gadgets)


def _subagent_gadget(subagent: Agent[Any] | SubagentGadget) -> SubagentGadget:
    return subagent if isinstance(subagent, SubagentGadget) else subagent.as_gadget()


def _unique_gadgets(gadgets: Sequence[object]) -> list[Gadget]:
    """The gadgets as ``Gadget`` instances; two with one name are an error."""
    out = [as_gadget(g) for g in gadgets]
    names = [g.name for g in out]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise ValueError(f"two gadgets share the name(s) {dupes}; give each a unique `name`")
    return out
