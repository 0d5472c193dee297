"""One rule for short and long callable forms: positional parameters, defaults included, and
``*args`` (any number) decide; a signature that cannot be read gets the long form."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from llmist import ExecutionContext, Gadget, GadgetExecutor, create_gadget
from llmist.syntax import ParsedCall


class Params(BaseModel):
    a: int = 1


def call(name: str) -> ParsedCall:
    return ParsedCall(name, "c1", "", {"a": 2}, None, ())


class Unreadable:
    """A callable whose signature ``inspect`` cannot read, passing on whatever it gets."""

    __signature__ = "not a signature"

    def __init__(self, fn: Any) -> None:
        self.fn = fn

    def __call__(self, *args: Any) -> Any:
        return self.fn(*args)


def arguments_seen(*args: Any) -> str:
    return ",".join(type(a).__name__ for a in args)


async def test_an_execute_with_star_args_gets_the_context() -> None:
    g = create_gadget(name="g", description="d", schema=Params, execute=lambda *args: arguments_seen(*args))
    assert (await GadgetExecutor([g]).execute(call("g"))).result == "Params,ExecutionContext"


async def test_an_execute_with_a_defaulted_context_parameter_gets_the_context() -> None:
    def execute(params: Params, ctx: ExecutionContext | None = None) -> str:
        return arguments_seen(params, ctx)

    g = create_gadget(name="g", description="d", schema=Params, execute=execute)
    assert (await GadgetExecutor([g]).execute(call("g"))).result == "Params,ExecutionContext"


async def test_a_one_parameter_execute_gets_the_parameters_only() -> None:
    g = create_gadget(name="g", description="d", schema=Params, execute=lambda params: arguments_seen(params))
    assert (await GadgetExecutor([g]).execute(call("g"))).result == "Params"


async def test_a_class_execute_with_star_args_gets_the_context() -> None:
    class G(Gadget):
        description = "d"
        Params = Params

        def execute(self, *args: Any) -> str:  # type: ignore[override]
            return arguments_seen(*args)

    assert (await GadgetExecutor([G]).execute(call("G"))).result == "Params,ExecutionContext"


async def test_an_execute_whose_signature_cannot_be_read_gets_the_context() -> None:
    g = create_gadget(name="g", description="d", schema=Params, execute=Unreadable(arguments_seen))
    assert (await GadgetExecutor([g]).execute(call("g"))).result == "Params,ExecutionContext"


async def test_a_star_args_interceptor_gets_the_call() -> None:
    seen: list[str] = []

    def intercept(*args: Any) -> dict[str, Any]:
        seen.append(arguments_seen(*args))
        return dict(args[1])

    g = create_gadget(name="g", description="d", schema=Params, execute=lambda p: str(p.a))
    result = await GadgetExecutor([g], intercept_parameters=intercept).execute(call("g"))
    assert result.result == "2" and seen == ["str,dict,ParsedCall"]


async def test_an_interceptor_whose_signature_cannot_be_read_gets_the_call() -> None:
    seen: list[str] = []

    def intercept(*args: Any) -> dict[str, Any]:
        seen.append(arguments_seen(*args))
        return dict(args[1])

    g = create_gadget(name="g", description="d", schema=Params, execute=lambda p: str(p.a))
    result = await GadgetExecutor([g], intercept_parameters=Unreadable(intercept)).execute(call("g"))
    assert result.result == "2" and seen == ["str,dict,ParsedCall"]
