"""The Ray backend on a local two-worker cluster: the same results file as asyncio, one limiter for all."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from llmist import Agent
from llmist.batch import RateLimit, arun_batch
from llmist.batch.ray_backend import RayBackend, RayBackendError

from .scripted import LoggedFactory, prompts

ray = pytest.importorskip("ray")
ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def cluster() -> Iterator[None]:
    """A local Ray cluster of two CPUs whose workers can import the tests' modules."""
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        runtime_env={"env_vars": {"PYTHONPATH": str(ROOT)}},
    )
    yield
    ray.shutdown()


def comparable(path: Path) -> list[dict[str, object]]:
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    for row in rows:
        del row["duration_s"]
    return sorted(rows, key=lambda r: int(str(r["id"])))


async def test_ray_writes_the_same_results_as_asyncio(cluster: None, tmp_path: Path) -> None:
    tasks = prompts(60)
    local, remote = tmp_path / "local.jsonl", tmp_path / "ray.jsonl"
    factory = LoggedFactory(str(tmp_path / "local.log"))
    await arun_batch(factory, tasks, out=local, concurrency=20, handle_sigint=False)
    remote_factory = LoggedFactory(str(tmp_path / "ray.log"))
    summary = await arun_batch(
        remote_factory, tasks, out=remote, concurrency=20, backend=RayBackend(workers=2), handle_sigint=False
    )
    assert summary.succeeded == 60
    assert comparable(remote) == comparable(local)
    pids = {line.split()[1] for line in (tmp_path / "ray.log").read_text().splitlines()}
    assert len(pids) == 2


async def test_ray_resumes_from_the_same_file(cluster: None, tmp_path: Path) -> None:
    out = tmp_path / "ray.jsonl"
    factory = LoggedFactory(str(tmp_path / "ray.log"))
    await arun_batch(factory, prompts(10), out=out, backend=RayBackend(workers=2), handle_sigint=False)
    again = await arun_batch(factory, prompts(15), out=out, backend=RayBackend(workers=2), handle_sigint=False)
    assert again.skipped == 10 and again.succeeded == 5
    assert len(out.read_text().splitlines()) == 15


async def test_the_rate_limit_holds_across_the_cluster(cluster: None, tmp_path: Path) -> None:
    log = tmp_path / "ray.log"
    limit = RateLimit(requests_per_minute=10, window_s=1.0)
    await arun_batch(
        LoggedFactory(str(log)),
        prompts(30),
        out=tmp_path / "ray.jsonl",
        concurrency=30,
        rate_limits=limit,
        backend=RayBackend(workers=2),
        handle_sigint=False,
    )
    entries = [line.split() for line in log.read_text().splitlines()]
    times = sorted(float(t) for t, _ in entries)
    assert len(times) == 60 and len({pid for _, pid in entries}) == 2
    # 60 requests at 10 a window take five windows after the first grant when one limiter holds
    # them all, and two when each worker keeps a limit of its own. The workers log a grant when
    # it reaches them, after a round trip that a busy machine delays unevenly, so the test asks
    # only for the span, with a window and a half of slack either way. Counting the busiest
    # window of those log times failed under load: late grants of one window bunch with the next.
    assert times[-1] - times[0] >= 3.5


async def test_an_agent_that_cannot_be_pickled_is_refused_clearly(cluster: None, tmp_path: Path) -> None:
    lock = threading.Lock()

    def factory() -> Agent:
        with lock:
            return Agent(model="mock")

    with pytest.raises(RayBackendError, match=r"(?s)cannot be sent to Ray workers.*top level of an importable module"):
        await arun_batch(factory, ["x"], out=tmp_path / "r.jsonl", backend=RayBackend(workers=1), handle_sigint=False)


async def test_a_factory_the_workers_cannot_import_is_refused_clearly(
    cluster: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "only_here.py").write_text(
        "from llmist import Agent\n\ndef make() -> Agent:\n    return Agent(model='mock')\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    from only_here import make  # type: ignore[import-not-found]

    with pytest.raises(RayBackendError, match=r"(?s)could not load the agent.*only_here"):
        await arun_batch(make, ["x"], out=tmp_path / "r.jsonl", backend=RayBackend(workers=1), handle_sigint=False)
