"""The architecture as a test: imports run one way through the stages, and every module has a home.

perfeq base (errors, files, arguments, toolchain, progress, the examples' catalog) -> runtime -> instrument -> symbolic
-> fitting -> workflows and the command line.  A module may import its own stage and earlier ones,
never a later one, not even inside a function.  Read with ast from the source tree, so a lazy
import counts as much as one at the top.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from conftest import ROOT

# folder -> import package, as pyproject.toml maps them
PACKAGES = {"perfeq": "perfeq", "runtime": "perfeq.runtime", "instrument": "perfeq.instrument",
            "symbolic": "perfeq.symbolic", "fitting": "perfeq.fitting", "examples": "perfeq.examples"}
# stage order: a module of stage k imports only modules of stages <= k
STAGES = ("base", "runtime", "instrument", "symbolic", "fitting", "top")
TOP = ("perfeq.workflows", "perfeq.cli", "perfeq.__main__")


def stage_of(module: str) -> str:
    if module == "perfeq" or module.startswith(("perfeq.errors", "perfeq.files", "perfeq.toolchain", "perfeq.arguments",
                                                "perfeq.progress",
                                                "perfeq.examples")):
        return "base"
    if module.startswith(TOP):
        return "top"
    for stage in ("runtime", "instrument", "symbolic", "fitting"):
        if module == f"perfeq.{stage}" or module.startswith(f"perfeq.{stage}."):
            return stage
    raise AssertionError(f"{module}: no stage (add it to tests/test_layout.py or move it)")


def modules() -> dict[str, Path]:
    """Every module of the package, by dotted name."""
    found = {}
    for folder, package in PACKAGES.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = path.relative_to(ROOT / folder).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join((package, *parts))] = path
    return found


def imports(module: str, path: Path) -> list[tuple[int, str]]:
    """(line, imported module) for every perfeq import in the file, wherever it stands."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            # `from perfeq.fitting import costs` imports the module perfeq.fitting.costs
            found += [(node.lineno, f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base)
                      for alias in node.names]
    return [(line, name) for line, name in found if name == "perfeq" or name.startswith("perfeq.")]


MODULES = modules()


def test_every_module_has_a_stage() -> None:
    for module in MODULES:
        assert stage_of(module) in STAGES


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_run_one_way(module: str) -> None:
    path = MODULES[module]
    mine = STAGES.index(stage_of(module))
    later = [f"{path.relative_to(ROOT)}:{line}: {module} ({stage_of(module)}) imports {name} ({stage_of(name)})"
             for line, name in imports(module, path) if STAGES.index(stage_of(name)) > mine]
    assert not later, "\n".join(later)


def test_the_test_sees_a_violation(tmp_path: Path) -> None:
    """The checker itself: a runtime module importing the symbolic stage lazily is caught."""
    bad = tmp_path / "bad.py"
    bad.write_text("def f():\n    from perfeq.symbolic.model import load_model\n    return load_model\n")
    assert imports("perfeq.runtime.bad", bad) == [(2, "perfeq.symbolic.model")]
    assert STAGES.index(stage_of("perfeq.symbolic.model")) > STAGES.index(stage_of("perfeq.runtime.bad"))


def test_fitting_rooms_import_in_order() -> None:
    """Inside fitting: costs <- convolution <- regression <- analysis (convolution: costs from a probe
    file, which the regression's predict and, later, its fit use); ranking and scaling stand alone
    (costs at most); variability (task-time distributions, Fleischmann et al.) stands alone entirely:
    it prices no cost names, so it imports no other room, not even costs; regression and analysis use
    it for the synchronisation term of a prediction."""
    allowed = {"costs": {"costs"}, "convolution": {"costs", "convolution"},
               "regression": {"costs", "convolution", "regression", "variability"},
               "analysis": {"costs", "convolution", "regression", "analysis", "variability"},
               "ranking": {"costs", "ranking"}, "scaling": {"costs", "scaling"},
               "variability": {"variability"}}
    wrong = []
    for module, path in MODULES.items():
        parts = module.split(".")
        if parts[:2] != ["perfeq", "fitting"] or len(parts) < 3 or parts[2] not in allowed:
            continue
        for line, name in imports(module, path):
            target = name.split(".")
            if target[:2] == ["perfeq", "fitting"] and len(target) > 2 and target[2] not in allowed[parts[2]]:
                wrong.append(f"{path.relative_to(ROOT)}:{line}: {module} imports {name}")
    assert not wrong, "\n".join(wrong)


def test_every_package_is_installed() -> None:
    """Every folder with an __init__.py is in pyproject.toml's packages: a subpackage left out is
    missing from a non-editable install (the convolution room was, and CI's install broke)."""
    import tomllib

    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    folders = {name for name, path in MODULES.items() if path.name == "__init__.py"}
    assert folders - listed == set()
