"""The machine description: cache sizes, line, page and memory (format ``perfeq-machine-description``).

Part of perfeq stage 3 (symbolic/): what the architectural linearization (symbolic/linearize.py)
needs to turn loop-nest footprints into cache misses and page faults.  Detected from Linux sysfs
or read from a JSON or YAML file written by ``perfeq machine`` (docs/machine-description.md).
Not the machine profile (fitting's costs per operation, ``perfeq-machine``).
"""

from __future__ import annotations

import json
import os
import platform
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from perfeq.errors import UsageError
from perfeq.files import check_document, read_json

WORD = 8  # bytes per access: loads and stores are taken as 8-byte words
FORMAT = "perfeq-machine-description"
VERSION = 1


@dataclass(frozen=True)
class Machine:
    name: str
    l1_bytes: int
    l2_bytes: int  # the last-level cache
    line_bytes: int
    page_bytes: int
    memory_bytes: int
    shared_by: int = 1  # CPUs sharing the last-level cache (symbolic/traffic.py divides it among them)

    def to_json(self) -> str:
        return json.dumps({"format": FORMAT, "version": VERSION, **asdict(self)}, indent=1) + "\n"

    def to_yaml(self) -> str:
        import yaml

        header = "# perfeq machine description: caches, line, page and memory in bytes (edit for another machine)\n"
        return header + yaml.safe_dump({"format": FORMAT, "version": VERSION, **asdict(self)}, sort_keys=False)

    def to_text(self, path: str | Path | None = None) -> str:
        """JSON, or YAML when ``path`` ends in .yaml or .yml."""
        return self.to_yaml() if path and Path(path).suffix.lower() in (".yaml", ".yml") else self.to_json()

    @classmethod
    def load(cls, path: str | Path) -> Machine:
        """Read a description written by ``perfeq machine -o`` (JSON or YAML), or by hand.

        JSON goes through perfeq.files.read_json, YAML through PyYAML; both through
        perfeq.files.check_document (format and version).
        """
        data = check_document(_read(Path(path)), path, FORMAT, VERSION, what="perfeq machine description")
        fields: dict[str, Any] = {"name": str(data.get("name") or Path(path).stem)}
        for key in ("l1_bytes", "l2_bytes", "line_bytes", "page_bytes", "memory_bytes", "shared_by"):
            if key == "shared_by" and key not in data:
                continue  # optional: written by perfeq since the memory traffic count (mem)
            value = data.get(key)
            if isinstance(value, str):
                try:
                    value = _bytes(value)
                except ValueError:
                    pass
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                what = "number of CPUs (e.g. 8)" if key == "shared_by" else "number of bytes (e.g. 32768 or 32K)"
                raise UsageError(f"{path}: '{key}' must be a positive {what}, got {value!r}")
            fields[key] = value
        return cls(**fields)

    @classmethod
    def detect(cls) -> Machine:
        """This machine, from sysfs and sysconf (typical defaults where they are not readable)."""
        caches, line, sharing, _ = _sysfs_caches()
        page = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
        memory = page * os.sysconf("SC_PHYS_PAGES") if hasattr(os, "sysconf") else 8 << 30
        l1 = caches.get(1, 32 << 10)
        llc = caches[max(caches)] if caches else 8 << 20
        shared = sharing.get(max(caches), 1) if caches else 1
        return cls(platform.node() or "this machine", l1, llc, line, page, memory, shared)


def cache_levels() -> dict[int, int]:
    """This machine's data caches from sysfs, level -> bytes (empty where sysfs does not say)."""
    return _sysfs_caches()[0]


def cache_ways() -> dict[int, int]:
    """This machine's data caches' associativity from sysfs, level -> ways (empty where sysfs does
    not say; a fully associative cache reports 0 and is left out)."""
    return _sysfs_caches()[3]


def _sysfs_caches() -> tuple[dict[int, int], int, dict[int, int], dict[int, int]]:
    """Data caches from sysfs (level -> bytes), the line size (64 where sysfs does not say), how
    many CPUs share each level and each level's ways (where sysfs says, and not 0)."""
    caches: dict[int, int] = {}
    sharing: dict[int, int] = {}
    ways: dict[int, int] = {}
    line = 64
    base = Path("/sys/devices/system/cpu/cpu0/cache")
    for index in sorted(base.glob("index*")) if base.exists() else []:
        try:
            level = int((index / "level").read_text())
            kind = (index / "type").read_text().strip()
            size = _bytes((index / "size").read_text().strip())
            line = int((index / "coherency_line_size").read_text())
        except (OSError, ValueError):
            continue
        if kind in ("Data", "Unified"):
            caches[level] = size
            sharing[level] = _cpus(index / "shared_cpu_list")
            count = _number(index / "ways_of_associativity")
            if count:
                ways[level] = count
    return caches, line, sharing, ways


def _number(path: Path) -> int:
    """The integer a sysfs file holds; 0 where it cannot be read."""
    try:
        return int(path.read_text())
    except (OSError, ValueError):
        return 0


def _cpus(path: Path) -> int:
    """The number of CPUs in a sysfs CPU list (``0-3,8-11``); 1 where it cannot be read."""
    try:
        text = path.read_text().strip()
    except OSError:
        return 1
    count = 0
    for part in filter(None, text.split(",")):
        low, _, high = part.partition("-")
        try:
            count += int(high or low) - int(low) + 1
        except ValueError:
            return 1
    return max(count, 1)


def _read(path: Path) -> Any:
    """The data of a description file: JSON when the name ends in .json, else YAML."""
    import yaml

    try:
        if path.suffix.lower() == ".json":
            return read_json(path)
        return yaml.safe_load(path.read_text())
    except OSError as exc:
        raise UsageError(f"{path}: cannot read the machine description: {exc.strerror}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark is not None else str(path)
        raise UsageError(f"{where}: not valid YAML: {getattr(exc, 'problem', None) or exc}") from None


def _bytes(text: str) -> int:
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    if text[-1:].upper() in units:
        return int(float(text[:-1]) * units[text[-1:].upper()])
    return int(text)
