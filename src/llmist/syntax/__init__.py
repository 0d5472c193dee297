"""Text to events: the streaming call parsers of both call syntaxes. Pure, no I/O."""

from llmist.syntax.block import (
    DEFAULT_ARG_PREFIX,
    DEFAULT_END_PREFIX,
    DEFAULT_START_PREFIX,
    GadgetCallParser,
)
from llmist.syntax.emoji import EmojiCallParser
from llmist.syntax.events import ArgsPartialEvent, GadgetCallEvent, ParsedCall, SyntaxEvent, TextEvent
from llmist.syntax.pointers import BlockParseError, Schema, parse_block_params

__all__ = [
    "DEFAULT_ARG_PREFIX",
    "DEFAULT_END_PREFIX",
    "DEFAULT_START_PREFIX",
    "ArgsPartialEvent",
    "BlockParseError",
    "EmojiCallParser",
    "GadgetCallEvent",
    "GadgetCallParser",
    "ParsedCall",
    "Schema",
    "SyntaxEvent",
    "TextEvent",
    "parse_block_params",
]
