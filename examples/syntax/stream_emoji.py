"""The compact emoji syntax: a header with positional arguments, then a body."""

from llmist.syntax import EmojiCallParser

answer = 'Here is your file:\n🛠️[create-file script.py]\nprint("Hello World")\n🛠️[/end]\nHope that helps!'

parser = EmojiCallParser()
events = [*parser.feed(answer), *parser.finalize()]
call = next(e.call for e in events if e.type == "gadget_call")
print(call.gadget_name, repr(call.raw_args), repr(call.body))
assert (call.gadget_name, call.raw_args, call.body) == ("create-file", "script.py", 'print("Hello World")\n')
