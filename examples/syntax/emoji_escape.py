"""The emoji end marker inside a body: escaped when written, restored when bound (docs/syntax.md)."""

from llmist.syntax import EmojiCallParser
from llmist.syntax.writing import read_emoji_body
from llmist.testing import emoji_call

text = emoji_call("note", "todo.md", body="Close a call with 🛠️[/end].")
print(text)  # the body reads "Close a call with 🛠️[\/end]."
parser = EmojiCallParser()
(call,) = [e.call for e in [*parser.feed(text), *parser.finalize()] if e.type == "gadget_call"]
assert read_emoji_body(call.body or "") == "Close a call with 🛠️[/end]."
