"""llmist: tool calling for any text model.

Models call gadgets by writing plain-text blocks; llmist parses them while the answer
streams, validates them against Pydantic schemas, runs them as a dependency DAG and feeds
the results back until the task is done.
"""

from llmist.syntax import (
    ArgsPartialEvent,
    BlockParseError,
    GadgetCallEvent,
    ParsedCall,
    TextEvent,
    parse_block_params,
)

__version__ = "0.1.0"

__all__ = [
    "ArgsPartialEvent",
    "BlockParseError",
    "GadgetCallEvent",
    "ParsedCall",
    "TextEvent",
    "__version__",
    "parse_block_params",
]
