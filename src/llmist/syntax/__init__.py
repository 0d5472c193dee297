"""Text to events: the streaming call parsers of both call syntaxes. Pure, no I/O."""

from llmist.syntax import block as _block
from llmist.syntax._base import CallIds, is_auto_id, next_auto_id
from llmist.syntax.block import (
    DEFAULT_ARG_PREFIX,
    DEFAULT_END_PREFIX,
    DEFAULT_START_PREFIX,
    GadgetCallParser,
)
from llmist.syntax.emoji import EmojiCallParser
from llmist.syntax.events import ArgsPartialEvent, GadgetCallEvent, ParsedCall, SyntaxEvent, TextEvent
from llmist.syntax.native import ProseParser, loads_arguments, native_call
from llmist.syntax.pointers import MAX_PARAMETER_DEPTH, BlockParseError, Schema, parse_block_params

COMPILED: bool = not str(_block.__file__).endswith(".py")
"""Whether the parsers are the mypyc-compiled build (a regular install where a C compiler
exists) rather than pure Python (an editable install, or no compiler at install time)."""

__all__ = [
    "COMPILED",
    "DEFAULT_ARG_PREFIX",
    "DEFAULT_END_PREFIX",
    "DEFAULT_START_PREFIX",
    "MAX_PARAMETER_DEPTH",
    "ArgsPartialEvent",
    "BlockParseError",
    "CallIds",
    "EmojiCallParser",
    "GadgetCallEvent",
    "GadgetCallParser",
    "ParsedCall",
    "ProseParser",
    "Schema",
    "SyntaxEvent",
    "TextEvent",
    "is_auto_id",
    "loads_arguments",
    "native_call",
    "next_auto_id",
    "parse_block_params",
]
