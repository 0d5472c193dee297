"""What the parser tolerates beyond the format, and how each call names it (docs/syntax.md)."""

from llmist.syntax import GadgetCallParser

parser = GadgetCallParser()
events = [*parser.feed("!!!GADGET_START:add\n!!ARG:a\n1\n!!!ARG:b=2\n!!!!GADGET_END"), *parser.finalize()]
call = events[-1].call
print(call.parameters, call.repairs)  # {'a': 1, 'b': 2} ('marker_spelling', 'marker_spelling', 'fused_argument')
assert call.parameters == {"a": 1, "b": 2}
assert call.repairs == ("marker_spelling", "marker_spelling", "fused_argument")
