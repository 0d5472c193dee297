"""Function-based gadgets: the ``@gadget`` decorator and ``create_gadget``; and ``as_gadget``,
which turns any form a user passes (an instance, a class, a function) into a checked gadget."""

from __future__ import annotations

import inspect
import typing
import warnings
import weakref
from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Any, overload

from pydantic import BaseModel, ConfigDict, create_model
from pydantic.fields import FieldInfo

from llmist._callables import accepts_positional
from llmist.gadgets._json_model import model_from_json_schema
from llmist.gadgets.base import _CHECKED_ATTRIBUTES, ApprovalRule, Gadget, GadgetExample, Invocation, _check
from llmist.gadgets.context import ExecutionContext
from llmist.gadgets.errors import GadgetError, UntypedParameterWarning

__all__ = ["FunctionGadget", "as_gadget", "create_gadget", "gadget"]


class FunctionGadget(Gadget):
    """A gadget built from a function; calling it calls the function."""

    def __init__(
        self,
        *,
        name: str,
        description: str,
        params: type[BaseModel],
        invocation: Invocation,
        function: Callable[..., Any],
        timeout_s: float | None = None,
        examples: Sequence[GadgetExample] | None = None,
        max_concurrent: int | None = None,
        exclusive: bool = False,
        run_inline: bool = False,
    ) -> None:
        self.name = name
        self.description = description
        self.Params = params
        self.timeout_s = timeout_s
        self.examples = tuple(examples or ())
        self.max_concurrent = max_concurrent
        self.exclusive = exclusive
        self.run_inline = run_inline
        self.__dict__["_llmist_invocation"] = invocation
        self.__wrapped__ = function
        self.__doc__ = function.__doc__

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Call the original function."""
        return self.__wrapped__(*args, **kwargs)


@overload
def gadget(fn: Callable[..., Any], /) -> FunctionGadget: ...


@overload
def gadget(
    *,
    description: str | None = None,
    name: str | None = None,
    timeout_s: float | None = None,
    examples: Sequence[GadgetExample] | None = None,
    max_concurrent: int | None = None,
    exclusive: bool = False,
    inline: bool = False,
    requires_approval: ApprovalRule = False,
    ends_run: bool = False,
) -> Callable[[Callable[..., Any]], FunctionGadget]: ...


def gadget(
    fn: Callable[..., Any] | None = None,
    /,
    *,
    description: str | None = None,
    name: str | None = None,
    timeout_s: float | None = None,
    examples: Sequence[GadgetExample] | None = None,
    max_concurrent: int | None = None,
    exclusive: bool = False,
    inline: bool = False,
    requires_approval: ApprovalRule = False,
    ends_run: bool = False,
) -> FunctionGadget | Callable[[Callable[..., Any]], FunctionGadget]:
    """Make a gadget from a typed function; usable as ``@gadget`` or ``@gadget(...)``.

    Each parameter becomes a schema field: its annotation (``Annotated[T, Field(description=...)]``
    welcome), its default. The docstring is the description when none is given, and its
    Args/Parameters section (Google, NumPy or Sphinx style) describes parameters that have no
    ``Field`` description. A parameter annotated :class:`ExecutionContext` receives the context
    and is not part of the schema. Sync functions run in a worker thread; ``inline=True`` (opt-in,
    only for functions that return in microseconds) calls them on the event loop's thread instead
    (see :attr:`Gadget.run_inline`). ``requires_approval``: ``True``, or a function of a call's
    parameters (see :attr:`Gadget.requires_approval`). ``ends_run``: the function raises
    :class:`TaskCompletionSignal` (see :attr:`Gadget.ends_run`).
    """

    def decorate(function: Callable[..., Any]) -> FunctionGadget:
        built = _from_function(
            function,
            description=description,
            name=name,
            timeout_s=timeout_s,
            examples=examples,
            max_concurrent=max_concurrent,
            exclusive=exclusive,
        )
        built.run_inline = inline
        built.requires_approval = requires_approval
        built.ends_run = ends_run
        if not built.description.strip():
            # Said here, about the user's function and this decorator's own argument: the class
            # check's message would point into the library and at the class form.
            raise GadgetError(
                f"@gadget on {function.__qualname__} ({_defined_at(function)}) needs a description: "
                f'write @gadget(description="...") or give {function.__name__} a docstring'
            )
        _check(built)
        return built

    return decorate(fn) if fn is not None else decorate


def create_gadget(
    *,
    description: str,
    schema: type[BaseModel] | Mapping[str, Any],
    execute: Callable[..., Any],
    name: str | None = None,
    timeout_s: float | None = None,
    examples: Sequence[GadgetExample] | None = None,
    max_concurrent: int | None = None,
    exclusive: bool = False,
    inline: bool = False,
    requires_approval: ApprovalRule = False,
    ends_run: bool = False,
) -> FunctionGadget:
    """Build a gadget from a schema and an ``execute(params)`` or ``execute(params, ctx)`` callable.

    ``schema`` is a Pydantic model class, and ``params`` the validated instance; or a JSON-schema
    dict of an object (an MCP tool's input schema, say), and ``params`` the validated arguments as a
    JSON-ready dict keyed by the schema's property names: those the call gave, and the schema's
    ``default`` for those it left out (an optional property with no default stays absent, so an
    MCP server never receives a ``null`` it was not sent). ``execute`` may be sync or async. ``name``
    defaults to the function's name. ``inline``: see :attr:`Gadget.run_inline`;
    ``requires_approval``: see :attr:`Gadget.requires_approval`; ``ends_run``: see
    :attr:`Gadget.ends_run`.
    """
    gadget_name = name or getattr(execute, "__name__", "") or ""
    if gadget_name == "<lambda>":
        raise GadgetError("create_gadget: pass name=... when execute is a lambda")
    is_async = inspect.iscoroutinefunction(execute)
    call: Callable[[Any, ExecutionContext], Any] = (
        execute if accepts_positional(execute, 2) else lambda params, ctx: execute(params)
    )
    if isinstance(schema, Mapping):
        schema = model_from_json_schema(f"{gadget_name or 'Gadget'}Params", schema)
        call = _with_dict_params(call)
    elif not (isinstance(schema, type) and issubclass(schema, BaseModel)):
        raise GadgetError(
            f"create_gadget: schema must be a Pydantic BaseModel subclass or a JSON-schema dict, got {schema!r}"
        )
    invocation = Invocation(call, is_async)
    built = FunctionGadget(
        name=gadget_name,
        description=description,
        params=schema,
        invocation=invocation,
        function=execute,
        timeout_s=timeout_s,
        examples=examples,
        max_concurrent=max_concurrent,
        exclusive=exclusive,
        run_inline=inline,
    )
    built.requires_approval = requires_approval
    built.ends_run = ends_run
    _check(built)
    return built


def _with_dict_params(call: Callable[[Any, ExecutionContext], Any]) -> Callable[[BaseModel, ExecutionContext], Any]:
    """``call`` given the arguments as the JSON schema names them, not the model built from it."""

    def with_dict(params: BaseModel, ctx: ExecutionContext) -> Any:
        return call(_json_arguments(params), ctx)

    return with_dict


def _json_arguments(params: BaseModel) -> dict[str, Any]:
    """``params`` as JSON keyed by the schema's names, without the optional fields that were neither
    given nor defaulted by the schema (the model built from a JSON schema gives those ``None``)."""
    dumped: dict[str, Any] = params.model_dump(mode="json", by_alias=True)
    for name, field in type(params).model_fields.items():
        key = field.alias or name
        value = getattr(params, name)
        if name not in params.model_fields_set and field.default is None:
            dumped.pop(key, None)
        elif isinstance(value, BaseModel):
            dumped[key] = _json_arguments(value)
        elif isinstance(value, list) and any(isinstance(item, BaseModel) for item in value):
            pairs = zip(value, dumped[key], strict=True)
            dumped[key] = [_json_arguments(v) if isinstance(v, BaseModel) else d for v, d in pairs]
    return dumped


def _from_function(
    function: Callable[..., Any],
    *,
    description: str | None,
    name: str | None,
    timeout_s: float | None,
    examples: Sequence[GadgetExample] | None,
    max_concurrent: int | None,
    exclusive: bool,
) -> FunctionGadget:
    gadget_name = name or function.__name__
    doc_description, param_docs = _read_docstring(function)
    fields, context_param, untyped = _signature_fields(function, gadget_name, param_docs)
    if untyped:
        _warn_untyped(function, gadget_name, untyped)
    params_model = create_model(f"{gadget_name}Params", __config__=ConfigDict(arbitrary_types_allowed=False), **fields)

    def call(params: BaseModel, ctx: ExecutionContext) -> Any:
        # A validated model of create_model's default config keeps exactly its fields in __dict__.
        if context_param is None:
            return function(**params.__dict__)
        return function(**params.__dict__, **{context_param: ctx})

    return FunctionGadget(
        name=gadget_name,
        description=description if description is not None else doc_description,
        params=params_model,
        invocation=Invocation(call, inspect.iscoroutinefunction(function)),
        function=function,
        timeout_s=timeout_s,
        examples=examples,
        max_concurrent=max_concurrent,
        exclusive=exclusive,
    )


def _defined_at(function: Callable[..., Any]) -> str:
    """Where ``function`` is defined, as a traceback says it: ``file, line n`` (the line of its
    first decorator)."""
    code = getattr(inspect.unwrap(function), "__code__", None)
    if code is None:
        return f"module {getattr(function, '__module__', '?')}"
    return f"{code.co_filename}, line {code.co_firstlineno}"


def _warn_untyped(function: Callable[..., Any], gadget_name: str, untyped: tuple[str, ...]) -> None:
    """Warn, at the user's function rather than at whatever line decorated it, that ``untyped``
    have no type hints. A model reads a parameter's type from the schema: without one it is told
    "any" and may send anything, which nothing then checks."""
    one = len(untyped) == 1
    names = untyped[0] if one else ", ".join(untyped[:-1]) + " and " + untyped[-1]
    message = UntypedParameterWarning(
        f"@gadget {gadget_name!r} ({function.__qualname__} at {_defined_at(function)}): "
        + (f"parameter {names} has no type hint, so a model is told it takes" if one else "")
        + (f"parameters {names} have no type hints, so a model is told they take" if not one else "")
        + f" any value and nothing checks what it sends; annotate {'it' if one else 'each'} "
        f"(e.g. {untyped[0]}: int)",
        gadget_name,
        untyped,
    )
    code = getattr(inspect.unwrap(function), "__code__", None)
    module_globals = getattr(function, "__globals__", None)
    if code is None or not isinstance(module_globals, dict):
        warnings.warn(message, stacklevel=4)
        return
    # The module's own registry, as warnings.warn keeps it: the "default" filter then shows the
    # warning once per function, however often an agent turns the same plain function into a gadget.
    warnings.warn_explicit(
        message,
        UntypedParameterWarning,
        code.co_filename,
        code.co_firstlineno,
        module=getattr(function, "__module__", None) or "__main__",
        registry=module_globals.setdefault("__warningregistry__", {}),
        module_globals=module_globals,
    )


def _read_docstring(function: Callable[..., Any]) -> tuple[str, dict[str, str]]:
    """The function's description and its parameters' descriptions, from its docstring."""
    doc_text = inspect.getdoc(function) or ""
    if not doc_text:
        return "", {}
    from llmist.gadgets._docstrings import parse_docstring

    parsed = parse_docstring(doc_text)
    return parsed.description or doc_text, parsed.params


def _signature_fields(
    function: Callable[..., Any], gadget_name: str, param_docs: dict[str, str]
) -> tuple[dict[str, Any], str | None, tuple[str, ...]]:
    """The Pydantic fields of the function's parameters, the name of its context parameter
    (if it takes an ``ExecutionContext``), and the parameters that have no type hint."""
    try:
        hints = typing.get_type_hints(function, include_extras=True)
    except Exception as exc:
        raise GadgetError(
            f"Gadget {gadget_name!r}: cannot resolve the type hints of {function.__name__}: {exc}"
        ) from exc
    fields: dict[str, Any] = {}
    context_param: str | None = None
    untyped: list[str] = []
    for param in inspect.signature(function).parameters.values():
        if param.name not in hints and param.kind not in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            untyped.append(param.name)
        annotation = hints.get(param.name, Any)
        if _is_context(annotation):
            context_param = param.name
            continue
        if param.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
            raise GadgetError(f"Gadget {gadget_name!r}: *args/**kwargs ({param.name}) cannot be gadget parameters")
        if param.kind is inspect.Parameter.POSITIONAL_ONLY:
            raise GadgetError(f"Gadget {gadget_name!r}: positional-only parameter {param.name!r} is not supported")
        doc = param_docs.get(param.name)
        if doc and not _has_description(annotation, param.default):
            annotation = Annotated[annotation, FieldInfo(description=doc)]
        default = ... if param.default is inspect.Parameter.empty else param.default
        fields[param.name] = (annotation, default)
    return fields, context_param, tuple(untyped)


def _is_context(annotation: Any) -> bool:
    if annotation is ExecutionContext:
        return True
    args = typing.get_args(annotation)
    return bool(args) and ExecutionContext in args and all(a in (ExecutionContext, type(None)) for a in args)


def _has_description(annotation: Any, default: Any) -> bool:
    if isinstance(default, FieldInfo) and default.description:
        return True
    if typing.get_origin(annotation) is Annotated:
        return any(isinstance(m, FieldInfo) and m.description for m in annotation.__metadata__)
    return False


_CHECKED = "_llmist_checked"
"""Set in a gadget instance's ``__dict__`` once :func:`as_gadget` has checked it."""

_CHECKED_CLASSES: weakref.WeakSet[type[Gadget]] = weakref.WeakSet()
"""Gadget classes checked through an instance that set none of the attributes the check reads
(:data:`~llmist.gadgets.base._CHECKED_ATTRIBUTES`): their other such instances pass or fail with
the class, so they are not checked again. An agent makes a new output viewer for every plan, and
checking each one validated the viewer's example again."""


def as_gadget(obj: object) -> Gadget:
    """Turn what a user passes in ``gadgets=[...]`` into a checked :class:`Gadget` instance.

    Accepts a ``Gadget`` instance, a ``Gadget`` subclass (instantiated without arguments),
    a function decorated with ``@gadget``, or a plain typed function (decorated on the fly:
    its docstring is the description).
    """
    if isinstance(obj, Gadget):
        if obj.__dict__.get(_CHECKED):
            # Checked once per instance: each run's executor takes the agent's gadgets again, and
            # checking an example validates it (benchmarks/RESULTS.md, issue 25).
            return obj
        instance = obj
    elif isinstance(obj, type) and issubclass(obj, Gadget):
        try:
            instance = obj()
        except TypeError as exc:
            raise GadgetError(
                f"Cannot instantiate gadget class {obj.__name__} without arguments ({exc}); pass an instance instead"
            ) from exc
    elif callable(obj):
        instance = gadget(obj)
    else:
        raise GadgetError(
            f"Expected a Gadget instance, a Gadget subclass or a function, got {type(obj).__name__}: {obj!r}"
        )
    cls, by_class = type(instance), _CHECKED_ATTRIBUTES.isdisjoint(instance.__dict__)
    if not (by_class and cls in _CHECKED_CLASSES):
        _check(instance)
        if by_class:
            _CHECKED_CLASSES.add(cls)
    instance.__dict__[_CHECKED] = True
    return instance
