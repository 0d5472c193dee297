"""Test agents offline: a scripted model, call writers, assertions, and a real-model guard.

::

    from llmist.testing import MockModel, block_call, block_real_models, gadget_calls

    model = MockModel([block_call("add", a=2, b=3), "5"])
    result = await Agent(model=model, gadgets=[add]).run("2 + 3?")
    assert result.output == "5"
    assert gadget_calls(result, "add")[0].result == "5"
    model.assert_complete()
"""

from llmist.agent.conversation import result_text
from llmist.providers.mock import MockModel, MockModelExhausted, MockReply, estimate_tokens
from llmist.testing.asserts import (
    assert_gadget_called,
    assert_no_errors,
    collect_events,
    gadget_calls,
)
from llmist.testing.guard import RealModelRequestBlocked, block_real_models, override
from llmist.testing.isolated import DEFAULT_TEST_OUTPUT_LIMIT, TestGadgetResult, atest_gadget, test_gadget
from llmist.testing.scripts import block_call, emoji_call, tool_call

__all__ = [
    "DEFAULT_TEST_OUTPUT_LIMIT",
    "MockModel",
    "MockModelExhausted",
    "MockReply",
    "RealModelRequestBlocked",
    "TestGadgetResult",
    "assert_gadget_called",
    "assert_no_errors",
    "atest_gadget",
    "block_call",
    "block_real_models",
    "collect_events",
    "emoji_call",
    "estimate_tokens",
    "gadget_calls",
    "override",
    "result_text",
    "test_gadget",
    "tool_call",
]
