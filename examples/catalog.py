"""The bundled examples: their catalog (catalog.json) as :class:`Example` records.

Part of perfeq's examples/ folder (``perfeq.examples``): the C/MPI/OpenMP programs perfeq is shown
on and calibrates machines with.  Read by the workflows (tour, calibrate), the tests and the
benchmarks; it knows nothing of the pipeline's stages.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

from perfeq.errors import UsageError
from perfeq.files import read_json_document

__all__ = ["Example", "examples_dir", "find_example", "load_catalog"]


@dataclass(frozen=True)
class Example:
    name: str
    source: Path
    openmp: bool
    params: tuple[dict, ...]
    description: str
    calibrate: bool = True  # whether its model is good enough to calibrate a machine with
    calibrate_note: str = ""

    @property
    def param_names(self) -> list[str]:
        return [p["name"] for p in self.params]

    def argv(self, values: dict[str, float]) -> list[str]:
        ordered = sorted(self.params, key=lambda p: p["argv"])
        return [str(int(values[p["name"]])) for p in ordered]

    @property
    def small(self) -> dict[str, int]:
        return {p["name"]: p["small"] for p in self.params}

    def calibration(self) -> list[dict[str, int]]:
        """The catalog's calibration sizes (the i-th value of every parameter belong together)."""
        count = len(self.params[0]["calibration"])
        return [{p["name"]: p["calibration"][i] for p in self.params} for i in range(count)]


def examples_dir() -> Path:
    """The bundled examples: the checkout's examples/ when present, else the installed copy."""
    return Path(str(files("perfeq.examples")))


def load_catalog(folder: Path | None = None) -> list[Example]:
    folder = Path(folder) if folder else examples_dir()
    path = folder / "catalog.json"
    data = read_json_document(path, "perfeq-examples", 1, what="perfeq-examples catalog",
                              missing="no catalog.json in the examples folder")
    return [Example(name=e["name"], source=folder / e["source"], openmp=bool(e.get("openmp")),
                    params=tuple(e["params"]), description=e.get("description", ""),
                    calibrate=bool(e.get("calibrate", True)), calibrate_note=e.get("calibrate_note", ""))
            for e in data["examples"]]


def find_example(name: str, folder: Path | None = None) -> Example:
    catalog = load_catalog(folder)
    for example in catalog:
        if example.name == name:
            return example
    raise UsageError(f"no example named {name!r} (have: {', '.join(e.name for e in catalog)})")
