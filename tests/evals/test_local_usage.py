"""Token usage from llama-cpp-python's server: it drops ``stream_options`` and streams no usage,
so :class:`LlamaCppServer` serves it through a launcher that counts the tokens ``Llama.generate``
is given and yields, and sends them as OpenAI's ``include_usage`` does.

The ``llama_cpp`` package here is a stand-in found first on ``PYTHONPATH``: its ``Llama`` streams
a chat answer from ``generate`` as the real one does, and its server (a real subprocess on a
loopback port) streams whatever ``create_chat_completion`` returns, as the real server does.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from llmist.evals.local import LlamaCppServer
from llmist.providers.base import LLMRequest, Message, complete
from llmist.providers.compatible import openai_compatible
from tests.evals.fake_llama import install_fake_llama_cpp, server_script

FAKE_LLAMA = """
EOG = 0


def llama_vocab_is_eog(vocab, token):
    return token == EOG


class _Model:
    vocab = object()


class Llama:
    _model = _Model()

    def generate(self, tokens, **kwargs):
        yield from (11, 12, 13, EOG)  # three tokens, then the end of generation

    def create_chat_completion(self, messages, stream=False, **kwargs):
        prompt = [1] * (5 + sum(len(m["content"].split()) for m in messages))

        def chunks():
            head = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "fake"}
            for token in self.generate(prompt):
                if token == EOG:
                    break
                yield {**head, "choices": [{"index": 0, "delta": {"content": f"t{token} "}, "finish_reason": None}]}
            yield {**head, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}

        return chunks() if stream else {"usage": {"prompt_tokens": len(prompt), "completion_tokens": 3}}
"""

FAKE_SERVER = server_script(
    """
import llama_cpp

llama = llama_cpp.Llama()


def answer(request):
    # As llama-cpp-python's server: stream_options is not a field it knows, so it is dropped.
    return llama.create_chat_completion(messages=request["messages"], stream=True)
"""
)


@pytest.fixture
def fake_llama_env(tmp_path: Path) -> dict[str, str]:
    return install_fake_llama_cpp(tmp_path, FAKE_SERVER, package=FAKE_LLAMA)


async def test_a_streamed_answer_reports_the_tokens_llama_cpp_evaluated_and_sampled(
    fake_llama_env: dict[str, str],
) -> None:
    server = LlamaCppServer(
        Path("model.gguf"), python=sys.executable, alias="fake", start_timeout_s=60, env=fake_llama_env
    )
    request = LLMRequest(model="fake", messages=[Message("user", "Count these four words")])
    with server:
        response = await complete(openai_compatible("llamacpp", base_url=server.base_url), request)
    assert response.text == "t11 t12 t13 "
    # The prompt given to generate (5 + 4 words here), and the three tokens sampled: the
    # end-of-generation token is not counted, as the server's non-streamed usage does not count it.
    assert (response.usage.input_tokens, response.usage.output_tokens) == (9, 3)
