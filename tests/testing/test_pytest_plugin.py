"""The pytest plugin blocks real models in every test of a suite that enables it."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]


def test_plugin_blocks_real_models(pytester: pytest.Pytester) -> None:
    pytester.makeconftest('pytest_plugins = ["llmist.testing.pytest_plugin"]\n')
    pytester.makepyfile(
        """
        import asyncio
        import pytest
        from llmist import Agent
        from llmist.providers.base import LLMChunk
        from llmist.testing import MockModel, RealModelRequestBlocked

        class Remote:
            name = "remote"
            async def stream(self, request):
                yield LLMChunk(text="real")

        def test_real_is_blocked():
            with pytest.raises(RealModelRequestBlocked):
                asyncio.run(Agent(model=Remote()).run("q"))

        def test_mock_runs():
            assert asyncio.run(Agent(model=MockModel(["ok"])).run("q")).output == "ok"
        """
    )
    pytester.runpytest_subprocess("-p", "no:cacheprovider").assert_outcomes(passed=2)
