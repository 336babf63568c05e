"""Files of every stage: whole-file writes that never leave a half-written file behind, and the one
reader of versioned JSON documents with one-line errors.

The content goes to a temporary file in the target's folder, is flushed to disk, and replaces the
target with one rename, so a reader sees the old file or the complete new one, never a part.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Collection, Iterable
from pathlib import Path
from typing import Any

from perfeq.errors import PerfeqError, UsageError


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


def read_json(path: str | os.PathLike[str], *, error: type[PerfeqError] = UsageError,
              missing: str | None = None) -> Any:
    """The JSON value in the file at ``path``, or one ``error`` line naming the file.

    Invalid JSON reads ``path:line:col: not valid JSON: <why>``; a file that is not there reads
    ``path: <missing>`` when ``missing`` is given, else the OSError passes up (the CLI prints it).
    Text that is not UTF-8 is an ``error`` too, never a traceback.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        if missing is None:
            raise
        raise error(f"{path}: {missing}") from None
    except UnicodeDecodeError as exc:
        raise error(f"{path}: not a JSON text file (byte {exc.start} is not UTF-8)") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise error(f"{path}:{exc.lineno}:{exc.colno}: not valid JSON: {exc.msg}") from None


def check_document(data: Any, path: str | os.PathLike[str], format: str, versions: int | Collection[int], *,
                   error: type[PerfeqError] = UsageError, what: str | None = None,
                   hint: str | None = None) -> dict[str, Any]:
    """``data`` when it is a JSON object of ``format`` in one of ``versions``, else one ``error`` line.

    ``what`` names the kind of file in the messages (default: the format's name); ``hint`` ends the
    message of an unsupported version (what to do, e.g. "instrument the program again").
    """
    what = what or format
    allowed = (versions,) if isinstance(versions, int) else tuple(versions)
    if not isinstance(data, dict) or data.get("format") != format:
        found = data.get("format") if isinstance(data, dict) else None
        raise error(f"{path}: not a {what} (format {found!r}, expected {format!r})")
    if data.get("version") not in allowed:
        readable = " and ".join(str(v) for v in allowed)
        raise error(f"{path}: {what} version {data.get('version')!r} is not supported (this perfeq reads "
                    f"{readable})" + (f"; {hint}" if hint else ""))
    return data


def read_json_document(path: str | os.PathLike[str], format: str, versions: int | Collection[int], *,
                       error: type[PerfeqError] = UsageError, what: str | None = None,
                       missing: str | None = None, hint: str | None = None) -> dict[str, Any]:
    """Read a versioned perfeq JSON document (``{"format": ..., "version": ..., ...}``): the one reader
    of every stage's JSON files, with one-line errors naming the file (see :func:`read_json`)."""
    return check_document(read_json(path, error=error, missing=missing), path, format, versions,
                          error=error, what=what, hint=hint)
