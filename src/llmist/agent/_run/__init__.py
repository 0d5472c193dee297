"""The run machinery: the plan a spec gives, one run's context, and the loop with its per-chunk
and per-call parts (``response``, ``calls``, ``state``: compiled with mypyc in the wheel)."""
