"""Whole-file writes that never leave a half-written file behind: every output of every stage.

The content goes to a temporary file in the target's folder, is flushed to disk, and replaces the
target with one rename, so a reader sees the old file or the complete new one, never a part.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path


def write_atomic(path: str | os.PathLike[str], data: str | bytes | Iterable[str]) -> Path:
    """Write ``data`` (text, bytes, or lines of text) to ``path``; returns the path.

    Creates missing parent folders; keeps an existing file's permissions, and gives a new one the
    usual 0o666 less the umask.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    mode = _mode_for(target)
    fd, temp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            if isinstance(data, bytes):
                handle.write(data)
            else:
                for piece in [data] if isinstance(data, str) else data:
                    handle.write(piece.encode("utf-8"))
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp_name, mode)
        os.replace(temp_name, target)
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise
    return target


def _mode_for(target: Path) -> int:
    try:
        return target.stat().st_mode & 0o7777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask
