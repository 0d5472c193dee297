"""One root for every exception llmist raises on purpose, whatever layer raises it."""

from __future__ import annotations

import pytest

import llmist
from llmist.agent import OutputValidationError
from llmist.agent.guard import RealModelRequestBlocked
from llmist.errors import LlmistError
from llmist.gadgets import GadgetError, GadgetSignal, GadgetTimeoutError, InvalidParametersError
from llmist.mcp import MCPServerError
from llmist.providers.errors import ProviderError, RateLimitError
from llmist.syntax import BlockParseError, parse_block_params


@pytest.mark.parametrize(
    "error",
    [
        BlockParseError,
        GadgetError,
        InvalidParametersError,
        GadgetSignal,
        GadgetTimeoutError,
        MCPServerError,
        ProviderError,
        RateLimitError,
        OutputValidationError,
        RealModelRequestBlocked,
    ],
)
def test_every_layers_errors_derive_from_the_one_root(error: type[Exception]) -> None:
    assert issubclass(error, LlmistError)


def test_the_root_is_the_one_the_package_exports() -> None:
    assert llmist.LlmistError is LlmistError
    assert llmist.gadgets.LlmistError is LlmistError


def test_a_block_parse_error_is_caught_as_a_value_error_and_as_an_llmist_error() -> None:
    with pytest.raises(ValueError, match="Duplicate pointer: a") as caught:
        parse_block_params("!!!ARG:a\n1\n!!!ARG:a\n2")
    assert isinstance(caught.value, LlmistError)
