"""The cache description (symbolic/machine.py, ``perfeq machine``) and how ``perfeq counts`` takes it."""

from __future__ import annotations

import json

import pytest

from perfeq.cli import main
from perfeq.symbolic.machine import Machine


def test_machine_detect(tmp_path, capsys):
    path = tmp_path / "machine.json"
    assert main(["machine", "--detect", "-o", str(path)]) == 0
    data = json.loads(path.read_text())
    assert data["l1_bytes"] > 0 and data["line_bytes"] > 0 and data["page_bytes"] > 0


def test_machine_yaml_round_trip_and_hand_edits(kernels, tmp_path, capsys):
    path = tmp_path / "machine.yaml"
    assert main(["machine", "-o", str(path)]) == 0
    text = path.read_text()
    assert text.startswith("#") and "l1_bytes:" in text and "{" not in text  # YAML, not JSON
    detected = Machine.detect()
    assert Machine.load(path) == detected
    # another machine by hand: sizes with K/M/G, used by perfeq counts
    other = tmp_path / "other.yml"
    other.write_text(text.replace(f"l1_bytes: {detected.l1_bytes}", "l1_bytes: 16K")
                     .replace(f"l2_bytes: {detected.l2_bytes}", "l2_bytes: 1M"))
    assert Machine.load(other).l1_bytes == 16 << 10 and Machine.load(other).l2_bytes == 1 << 20
    model, trace = kernels
    saved = tmp_path / "k.model.json"
    model.save(saved)
    assert main(["counts", str(saved), "n=4096", "steps=2", "P=4", "--caches", str(other), "--json"]) == 0
    out = capsys.readouterr().out
    assert json.loads(out[out.index("{"):])["total"]["l2"] > 0


def test_counts_takes_the_cache_description_as_caches(kernels, tmp_path, capsys):
    """--caches names the cache description; --machine (which means the machine profile everywhere
    else) is still taken for it, for one release, with a one-line warning; not both."""
    model, _ = kernels
    saved, caches = tmp_path / "k.model.json", tmp_path / "caches.yaml"
    model.save(saved)
    caches.write_text("format: perfeq-machine-description\nversion: 1\nl1_bytes: 16K\nl2_bytes: 1M\n"
                      "line_bytes: 64\npage_bytes: 4K\nmemory_bytes: 1G\n")
    values = [str(saved), "n=4096", "steps=2", "P=4", "--json"]
    assert main(["counts", *values, "--caches", str(caches)]) == 0
    new = capsys.readouterr()
    assert new.err == "" and json.loads(new.out)["machine"] == "caches"
    assert main(["counts", *values, "--machine", str(caches)]) == 0
    old = capsys.readouterr()
    assert old.err == "perfeq: warning: --machine for the cache description is deprecated; use --caches\n"
    assert json.loads(old.out) == json.loads(new.out)
    assert main(["counts", *values, "--machine", str(caches), "--caches", str(caches)]) == 2
    assert "give the cache description once" in capsys.readouterr().err


@pytest.mark.parametrize("content,message", [
    ("format: perfeq-machine-description\nversion: 1\nl1_bytes: [1\n", "not valid YAML"),
    ("format: perfeq-machine-description\nversion: 1\nl1_bytes: 32K\n", "'l2_bytes' must be a positive number"),
    ("format: something-else\n", "not a perfeq machine description"),
    ("format: perfeq-machine-description\nversion: 1\nl1_bytes: 32K\nl2_bytes: 1M\nline_bytes: 64\n"
     "page_bytes: 4K\nmemory_bytes: 1G\nshared_by: 0\n", "'shared_by' must be a positive number of CPUs"),
])
def test_machine_file_errors_are_one_line(tmp_path, capsys, kernels, content, message):
    bad = tmp_path / "bad.yaml"
    bad.write_text(content)
    model, _ = kernels
    saved = tmp_path / "k.model.json"
    model.save(saved)
    assert main(["counts", str(saved), "n=64", "steps=1", "P=2", "--caches", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and str(bad) in err and len(err.splitlines()) == 1


def test_the_last_level_is_shared_by_the_cpus_sysfs_lists(tmp_path, kernels, capsys):
    """shared_by (optional, default 1) divides the last level among min(P T, shared_by) processes
    for the lines from memory; detected from the last level's shared_cpu_list."""
    from perfeq.symbolic.machine import _cpus

    listed = tmp_path / "shared_cpu_list"
    listed.write_text("0-3,8-11\n")
    assert _cpus(listed) == 8 and _cpus(tmp_path / "missing") == 1
    assert Machine.detect().shared_by >= 1
    base = ("format: perfeq-machine-description\nversion: 1\nl1_bytes: 16K\nl2_bytes: 1M\nline_bytes: 64\n"
            "page_bytes: 4K\nmemory_bytes: 1G\n")
    alone, shared = tmp_path / "alone.yaml", tmp_path / "shared.yaml"
    alone.write_text(base)
    shared.write_text(base + "shared_by: 4\n")
    assert Machine.load(alone).shared_by == 1 and Machine.load(shared).shared_by == 4
    assert json.loads(Machine.load(shared).to_json())["shared_by"] == 4
    model, _ = kernels
    saved = tmp_path / "k.model.json"
    model.save(saved)
    lines = {}
    for name, path in (("alone", alone), ("shared", shared)):
        assert main(["counts", str(saved), "n=100000", "steps=2", "P=4", "--caches", str(path), "--json"]) == 0
        lines[name] = json.loads(capsys.readouterr().out)["total"]["mem"]
    assert main(["counts", str(saved), "n=100000", "steps=2", "P=4", "--caches", str(shared)]) == 0
    assert "\nmem " in capsys.readouterr().out  # the table prints it
    assert lines["alone"] == 0 < lines["shared"]  # 1 MiB each holds every nest, a quarter of it does not
