"""The same batch on Ray: a local cluster here; pass address= for a real one."""

import tempfile
from pathlib import Path

from llmist import Agent, gadget
from llmist.batch import RateLimit, run_batch
from llmist.batch.ray_backend import RayBackend
from llmist.testing import MockModel, block_call


@gadget(description="Square a number")
def square(n: int) -> str:
    return str(n * n)


def make_agent() -> Agent:  # runs on the workers: Ray pickles this function and the gadget
    def reply(messages):
        if messages[-1].role == "user":
            return block_call("square", n=len(messages[-1].text))
        return messages[-1].text.splitlines()[-1]

    return Agent(model=MockModel(reply), gadgets=[square])


if __name__ == "__main__":
    out = Path(tempfile.mkdtemp()) / "results.jsonl"
    summary = run_batch(
        make_agent,
        [f"task {'x' * n}" for n in range(40)],
        out=out,
        concurrency=20,
        rate_limits=RateLimit(requests_per_minute=6000),  # one limiter actor for the whole cluster
        backend=RayBackend(workers=2, init_options={"num_cpus": 2, "include_dashboard": False}),
    )
    print(summary.message)
    assert summary.succeeded == 40
