"""Run by ``.venv-eval``'s interpreter (llama-cpp-python): check grammars with llama.cpp itself.

Reads JSON lines ``{"grammar": ..., "text": ... or null}`` from stdin and writes one JSON line
each: ``{"parsed": bool, "accepted": bool | null}``. ``parsed``: llama.cpp's GBNF parser took the
grammar; ``accepted``: the grammar sampler allowed every token of ``text`` in turn, then the end
of the answer. Needs a GGUF file for its vocabulary only (``argv[1]``; no weights are loaded).
"""

import ctypes
import json
import math
import sys

import llama_cpp

llm = llama_cpp.Llama(model_path=sys.argv[1], vocab_only=True, verbose=False)
vocab = llama_cpp.llama_model_get_vocab(llm._model.model)
eos = llama_cpp.llama_vocab_eos(vocab)


def allowed(sampler: object, token: int) -> bool:
    data = (llama_cpp.llama_token_data * 1)(llama_cpp.llama_token_data(token, 0.0, 0.0))
    candidates = llama_cpp.llama_token_data_array(data, 1, -1, False)
    llama_cpp.llama_sampler_apply(sampler, ctypes.byref(candidates))
    return not math.isinf(data[0].logit)


for line in sys.stdin:
    case = json.loads(line)
    sampler = llama_cpp.llama_sampler_init_grammar(vocab, case["grammar"].encode(), b"root")
    result: dict[str, object] = {"parsed": bool(sampler), "accepted": None}
    if sampler and case.get("text") is not None:
        ok = True
        for token in llm.tokenize(case["text"].encode(), add_bos=False, special=False):
            if not allowed(sampler, token):
                ok = False
                break
            llama_cpp.llama_sampler_accept(sampler, token)
        result["accepted"] = ok and allowed(sampler, eos)
    if sampler:
        llama_cpp.llama_sampler_free(sampler)
    print(json.dumps(result), flush=True)
