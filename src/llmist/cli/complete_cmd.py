"""``llmist complete PROMPT``: one streamed completion, no gadgets."""

from __future__ import annotations

import asyncio
import sys
from typing import TYPE_CHECKING, Annotated

import typer

from llmist.cli._common import CliError, fail, stderr
from llmist.cli._config import ConfigError, load_config
from llmist.cli._mock_script import load_mock_script, mock_script_path

if TYPE_CHECKING:
    from llmist.models import ModelRegistry
    from llmist.providers import LLMRequest, Provider, Usage

__all__ = ["complete_command"]


def complete_command(
    prompt: Annotated[str, typer.Argument(metavar="PROMPT", help="The prompt, or - to read it from standard input.")],
    model: Annotated[str | None, typer.Option("--model", "-m", metavar="MODEL", help="Model string or alias.")] = None,
    system: Annotated[str | None, typer.Option(metavar="TEXT", help="System prompt.")] = None,
    max_tokens: Annotated[int | None, typer.Option(min=1, metavar="N", help="Longest answer, in tokens.")] = None,
    temperature: Annotated[float, typer.Option(min=0, metavar="T", help="Sampling temperature.")] = 0.0,
    usage: Annotated[bool, typer.Option("--usage", help="Print tokens and cost on stderr at the end.")] = False,
    profile: Annotated[
        str | None, typer.Option("--profile", "-P", metavar="NAME", help="Configuration profile to use.")
    ] = None,
) -> None:
    """Stream the model's answer to PROMPT on standard output."""
    from llmist.providers import LLMRequest, Message, ProviderError

    text = sys.stdin.read() if prompt == "-" else prompt
    provider, name, registry, system_prompt = _resolve(profile, model, system)
    messages = [Message("user", text)]
    if system_prompt:
        messages.insert(0, Message("system", system_prompt))
    request = LLMRequest(model=name, messages=tuple(messages), max_tokens=max_tokens, temperature=temperature)
    try:
        final = asyncio.run(_print_answer(provider, request))
    except KeyboardInterrupt:
        sys.stdout.write("\n")
        raise typer.Exit(130) from None
    except ProviderError as exc:
        sys.stdout.write("\n")
        fail(f"{type(exc).__name__}: {exc}", code=1)
    sys.stdout.write("\n")
    sys.stdout.flush()
    if usage and final is not None:
        cost = registry.cost(name, final, provider.name)
        stderr.print(f"{final.input_tokens:,} tokens in / {final.output_tokens:,} out · ${cost:.6f}")


def _resolve(profile: str | None, model: str | None, system: str | None) -> tuple[Provider, str, ModelRegistry, str]:
    """The provider and model name the configuration names, the registry that prices it, and the
    system prompt; a configuration or model error ends the command with its message."""
    from llmist.models import ModelRegistry
    from llmist.providers import ProviderError, resolve_model

    try:
        config = load_config(profile=profile, flags={"model": model, "system": system})
        spec: str = config["model"] or ""
        script = mock_script_path(spec)
        registry = ModelRegistry()
        if script is not None:
            return load_mock_script(script, [], "block"), "mock", registry, config["system"] or ""
        provider, name = resolve_model(spec, registry)
        return provider, name, registry, config["system"] or ""
    except (CliError, ConfigError, ProviderError, ValueError, ImportError) as exc:
        fail(str(exc))


async def _print_answer(provider: Provider, request: LLMRequest) -> Usage | None:
    """Stream the answer to standard output; the last usage the provider reported."""
    last: Usage | None = None
    async for chunk in provider.stream(request):
        if chunk.text:
            sys.stdout.write(chunk.text)
            sys.stdout.flush()
        if chunk.usage is not None:
            last = chunk.usage
    return last
