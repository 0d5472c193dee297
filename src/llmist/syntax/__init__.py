"""Text to events: the streaming call parsers of both call syntaxes. Pure, no I/O."""

from llmist.syntax.events import ArgsPartialEvent, GadgetCallEvent, ParsedCall, SyntaxEvent, TextEvent
from llmist.syntax.pointers import BlockParseError, Schema, parse_block_params

__all__ = [
    "ArgsPartialEvent",
    "BlockParseError",
    "GadgetCallEvent",
    "ParsedCall",
    "Schema",
    "SyntaxEvent",
    "TextEvent",
    "parse_block_params",
]
