"""What ``benchmarks/bfcl.py`` takes from the ``bfcl-eval`` package: its data, possible answers, AST
checker, prompt-mode system prompt and decoder, and its schema conversion, used as the package ships them.

``bfcl-eval`` is installed with ``--no-deps`` (``make bfcl-setup``): its declared dependencies
(vllm, numpy==1.26.4, sentence-transformers, faiss, every provider SDK, tree-sitter) serve its own
generation pipeline. The paths used here import two modules that need them and that those paths
never call: the model registry (``bfcl_eval.constants.model_config``, which imports every provider
handler; the checker reads it only to rename dotted functions for models that cannot take dots)
and the Java/JavaScript parsers (tree-sitter; the Python categories never parse those languages).
Both are stubbed before the first import.
"""

from __future__ import annotations

import importlib.metadata
import json
import sys
import types
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from importlib.resources import files
from typing import Any

BFCL_VERSION = "2026.3.23"
"""The pinned ``bfcl-eval`` release (the Makefile's ``BFCL_VERSION`` installs it)."""
SETUP_HINT = "run `make bfcl-setup` (pip install --no-deps 'bfcl-eval==" + BFCL_VERSION + "')"


class BfclMissing(RuntimeError):
    """``bfcl-eval`` is not installed in this interpreter, or not the pinned version."""


class _AnyModel(Mapping[str, Any]):
    """The stubbed model registry: every model keeps its dotted function names (the harness maps
    names back to BFCL's before grading, so the checker must not rename them)."""

    _CONFIG = types.SimpleNamespace(underscore_to_dot=False)

    def __getitem__(self, key: str) -> Any:
        return self._CONFIG

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0


def _not_python(*args: object, **kwargs: object) -> Any:
    raise NotImplementedError("Java/JavaScript parsing needs tree-sitter, which the BFCL harness does not install")


def _stub(name: str, **attrs: Any) -> None:
    if name not in sys.modules:
        module = types.ModuleType(name, "Stubbed by benchmarks/_bfcl_package.py: imported, never used here.")
        module.__dict__.update(attrs)
        sys.modules[name] = module


@dataclass(frozen=True)
class Bfcl:
    """The ``bfcl-eval`` functions the harness uses, unchanged."""

    ast_checker: Callable[..., dict[str, Any]]
    decode_prompting: Callable[[str], list[dict[str, Any]]]
    """``default_decode_ast_prompting``: BFCL's prompt-mode decoder (Python call syntax)."""
    system_prompt: Callable[[list[dict[str, Any]], list[dict[str, Any]], str], list[dict[str, Any]]]
    """``system_prompt_pre_processing_chat_model``: BFCL's prompt-mode system prompt."""
    to_openai_tools: Callable[[list[dict[str, Any]]], list[dict[str, Any]]]
    """``convert_to_tool`` for OpenAI chat completions: BFCL's types as JSON schema, dots as underscores."""
    add_language_hint: Callable[[list[dict[str, Any]]], list[dict[str, Any]]]
    """``add_language_specific_hint_to_function_doc``: what BFCL does to every entry before inference."""
    is_call_list: Callable[[object], bool]
    is_empty_output: Callable[[object], bool]
    python: Any
    """``Language.PYTHON``, the checker's language argument."""


def load_bfcl() -> Bfcl:
    """Import the pinned ``bfcl-eval`` with its unused heavy imports stubbed.

    Raises:
        BfclMissing: not installed, or another version (names the command that installs it).
    """
    try:
        version = importlib.metadata.version("bfcl-eval")
    except importlib.metadata.PackageNotFoundError:
        raise BfclMissing(f"bfcl-eval is not installed in {sys.executable}: {SETUP_HINT}") from None
    if version != BFCL_VERSION:
        raise BfclMissing(f"bfcl-eval {version} is installed, the harness is pinned to {BFCL_VERSION}: {SETUP_HINT}")
    _stub("bfcl_eval.constants.model_config", MODEL_CONFIG_MAPPING=_AnyModel())
    _stub("bfcl_eval.model_handler.parser.java_parser", parse_java_function_call=_not_python)
    _stub("bfcl_eval.model_handler.parser.js_parser", parse_javascript_function_call=_not_python)
    from bfcl_eval.constants.enums import Language, ModelStyle, ReturnFormat
    from bfcl_eval.constants.type_mappings import GORILLA_TO_OPENAPI
    from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker
    from bfcl_eval.model_handler.utils import (
        convert_to_tool,
        default_decode_ast_prompting,
        system_prompt_pre_processing_chat_model,
    )
    from bfcl_eval.utils import (
        add_language_specific_hint_to_function_doc,
        is_empty_output,
        is_function_calling_format_output,
    )

    def decode(text: str) -> list[dict[str, Any]]:
        decoded: list[dict[str, Any]] = default_decode_ast_prompting(text, ReturnFormat.PYTHON, False)
        return decoded

    def tools(functions: list[dict[str, Any]]) -> list[dict[str, Any]]:
        converted: list[dict[str, Any]] = convert_to_tool(functions, GORILLA_TO_OPENAPI, ModelStyle.OPENAI_COMPLETIONS)
        return converted

    return Bfcl(
        ast_checker=ast_checker,
        decode_prompting=decode,
        system_prompt=system_prompt_pre_processing_chat_model,
        to_openai_tools=tools,
        add_language_hint=add_language_specific_hint_to_function_doc,
        is_call_list=is_function_calling_format_output,
        is_empty_output=is_empty_output,
        python=Language.PYTHON,
    )


def read_category(category: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """A category's entries (in file order) and its possible answers by id (none for the
    relevance and irrelevance categories, which BFCL grades by whether a call was made)."""
    data = files("bfcl_eval") / "data"
    entries = [json.loads(line) for line in (data / f"BFCL_v4_{category}.json").read_text().splitlines() if line]
    answers: dict[str, Any] = {}
    if "relevance" not in category:
        text = (data / "possible_answer" / f"BFCL_v4_{category}.json").read_text()
        for line in text.splitlines():
            if line:
                item = json.loads(line)
                answers[item["id"]] = item["ground_truth"]
    return entries, answers
