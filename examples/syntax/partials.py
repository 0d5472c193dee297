"""Argument values stream out while their block is still being written."""

from llmist.syntax import GadgetCallParser

parser = GadgetCallParser()
chunks = [
    "!!!GADGET_START:WriteFile:w1\n!!!ARG:path\nnotes.md\n!!!ARG:content\n# No",
    "tes\nfirst line!",
    "!\n!!!GADGET_END\n",
]
for chunk in chunks:
    for event in parser.feed(chunk):
        if event.type == "gadget_args_partial":
            done = " (complete)" if event.is_field_complete else ""
            print(f"{event.invocation_id} {event.field_path} += {event.delta!r}{done}")
        elif event.type == "gadget_call":
            print("call ready:", event.call.parameters)
