"""Feed a block-format answer chunk by chunk, as a model streams it."""

from llmist.syntax import GadgetCallParser

answer = """Let me check both cities.
!!!GADGET_START:GetWeather:paris
!!!ARG:city
Paris
!!!GADGET_END
!!!GADGET_START:GetWeather:tokyo
!!!ARG:city
Tokyo
!!!GADGET_END
!!!GADGET_START:Compare:cmp:paris,tokyo
!!!ARG:metric
max_temp
!!!GADGET_END
Done."""

parser = GadgetCallParser()
for i in range(0, len(answer), 7):  # 7-character chunks
    for event in parser.feed(answer[i : i + 7]):
        if event.type == "text":
            print("text:", repr(event.content))
        elif event.type == "gadget_call":
            call = event.call
            print("call:", call.gadget_name, call.invocation_id, call.dependencies, call.parameters)
for event in parser.finalize():
    print("at the end:", event)
