"""``perfeq calibrate --slurm`` under a real Slurm: a one-node cluster on this machine (slurmctld and
slurmd, e.g. Debian's slurm-wlm, started by the test from a slurm.conf of its own and, where munge is
installed, its own munged and key), the written script submitted with sbatch, its times imported.

Skipped at once where Slurm is not installed or the test does not run as root (slurmd starts jobs
as their user), and with the daemons' last log lines where the cluster does not come up.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import tiny_calibration_apps

from perfeq.cli import main
from perfeq.fitting.regression.runs import read_runs
from perfeq.toolchain import mpi_env

SLURM_PROGRAMS = ("slurmctld", "slurmd", "sbatch", "sinfo", "scancel", "srun")
SEARCH_PATH = os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/usr/local/sbin", "/sbin"])
START_SECONDS = 30  # for the node to be idle
JOB_SECONDS = 180  # for a job to end


@dataclass(frozen=True)
class Cluster:
    """A running one-node cluster: its folder, node name, and the environment its commands need."""

    folder: Path
    node: str
    env: dict[str, str]

    def command(self, *words: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
        return subprocess.run([shutil.which(words[0], path=SEARCH_PATH), *words[1:]], env=self.env,
                              capture_output=True, text=True, timeout=timeout, check=False)

    def submit(self, script: Path, folder: Path, *options: str) -> tuple[int, str]:
        """``sbatch --wait`` the script in ``folder``: the job's exit status and its output."""
        output = folder / "job.out"
        try:
            done = self.command("sbatch", "--wait", f"--chdir={folder}", f"--output={output}", *options,
                                str(script), timeout=JOB_SECONDS)
        except subprocess.TimeoutExpired:
            self.command("scancel", "--full", f"--user={os.getuid()}")
            pytest.fail(f"the job did not end in {JOB_SECONDS} s: {_tail(output)}")
        return done.returncode, (output.read_text() if output.exists() else "") + done.stderr


def _tail(path: Path, lines: int = 8) -> str:
    return " | ".join(path.read_text(errors="replace").splitlines()[-lines:]) if path.exists() else f"no {path.name}"


def _free_ports(count: int) -> list[int]:
    sockets = [socket.socket() for _ in range(count)]
    for s in sockets:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in sockets]
    for s in sockets:
        s.close()
    return ports


def _slurm_conf(folder: Path, node: str, auth: str) -> str:
    """One controller and one node of 2 CPUs on this machine; no cgroups, no accounting; srun's
    default MPI plugin pmi2 (what MPICH needs: without it ``srun -n 2`` starts two 1-process jobs)."""
    controller, node_port = _free_ports(2)
    return f"""\
ClusterName=perfeqtest
SlurmctldHost={node}(127.0.0.1)
SlurmctldPort={controller}
SlurmdPort={node_port}
SlurmUser=root
{auth}
StateSaveLocation={folder}/state
SlurmdSpoolDir={folder}/spool
SlurmctldPidFile={folder}/slurmctld.pid
SlurmdPidFile={folder}/slurmd.pid
SlurmctldLogFile={folder}/slurmctld.log
SlurmdLogFile={folder}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=pmi2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
KillWait=5
NodeName={node} NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
"""


def _start(stack: ExitStack, folder: Path, name: str, *arguments: str, env: dict[str, str]) -> subprocess.Popen:
    """Start a daemon in the foreground, stopped (SIGTERM, then SIGKILL) when ``stack`` closes."""
    with open(folder / f"{name}.out", "w") as out:
        daemon = subprocess.Popen([shutil.which(name, path=SEARCH_PATH), *arguments], env=env, stdout=out,
                                  stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)

    def stop() -> None:
        daemon.terminate()
        try:
            daemon.wait(timeout=15)
        except subprocess.TimeoutExpired:
            daemon.kill()
            daemon.wait()

    stack.callback(stop)
    return daemon


def _authentication(stack: ExitStack, folder: Path, env: dict[str, str]) -> str:
    """munge with a key and a socket of the test's own where munged is installed; else auth/none
    (which Slurm releases before 23.11 still have)."""
    if not shutil.which("munged", path=SEARCH_PATH):
        return "AuthType=auth/none\nCredType=cred/none"
    key, sock = folder / "munge.key", folder / "munge.sock"
    key.write_bytes(os.urandom(1024))
    key.chmod(0o400)
    munged = _start(stack, folder, "munged", "--foreground", f"--key-file={key}", f"--socket={sock}",
                    f"--pid-file={folder}/munged.pid", f"--seed-file={folder}/munged.seed",
                    f"--log-file={folder}/munged.log", env=env)
    for _ in range(50):
        if sock.exists() or munged.poll() is not None:
            break
        time.sleep(0.1)
    if not sock.exists():
        pytest.skip(f"munged did not start: {_tail(folder / 'munged.out')} {_tail(folder / 'munged.log')}")
    return f"AuthType=auth/munge\nCredType=cred/munge\nAuthInfo=socket={sock}"


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    missing = [name for name in SLURM_PROGRAMS if not shutil.which(name, path=SEARCH_PATH)]
    if missing:
        pytest.skip(f"Slurm is not installed (no {', '.join(missing)}; Debian: apt-get install slurm-wlm)")
    if os.geteuid() != 0:
        pytest.skip("a Slurm node needs root: slurmd starts each job as its user")
    if (os.cpu_count() or 1) < 2:
        pytest.skip("the test's node has 2 CPUs; this machine has fewer")
    # a short folder (munge's socket path must fit in 108 bytes) that munged accepts its socket in
    folder = Path(tempfile.mkdtemp(prefix="perfeq-slurm-"))
    folder.chmod(0o755)
    with ExitStack() as stack:
        stack.callback(shutil.rmtree, folder, True)
        (folder / "state").mkdir()
        (folder / "spool").mkdir()
        node = socket.gethostname().split(".")[0]
        # nothing of an allocation this test may run in: its commands talk to the test's cluster only
        env = {k: v for k, v in mpi_env().items() if not k.startswith(("SLURM_", "SBATCH_", "SRUN_", "SALLOC_"))}
        env["SLURM_CONF"] = str(folder / "slurm.conf")
        (folder / "slurm.conf").write_text(_slurm_conf(folder, node, _authentication(stack, folder, env)))
        daemons = {"slurmctld": _start(stack, folder, "slurmctld", "-D", "-i", env=env),
                   "slurmd": _start(stack, folder, "slurmd", "-D", env=env)}
        running = Cluster(folder, node, env)
        stack.callback(running.command, "scancel", "--full", f"--user={os.getuid()}")  # runs before the stops
        deadline, state = time.monotonic() + START_SECONDS, ""
        while state != "idle":
            stopped = [name for name, daemon in daemons.items() if daemon.poll() is not None]
            if stopped or time.monotonic() > deadline:
                why = f"{', '.join(stopped)} stopped" if stopped else f"node {node} is {state!r} after {START_SECONDS} s"
                logs = "; ".join(f"{name}: {_tail(folder / f'{name}.log', 4)}" for name in daemons)
                pytest.skip(f"the one-node Slurm cluster did not start here ({why}): {logs}")
            time.sleep(0.5)
            state = running.command("sinfo", "--noheader", "--Node", f"--nodes={node}", "--format=%t").stdout.strip()
        yield running


def test_a_slurm_job_times_the_campaign_and_its_times_import(cluster, tmp_path, capsys):
    """cg and ocean at two tiny sizes on 1 and 2 processes, one repetition: 8 runs timed by one
    sbatch job with srun, then imported with their counts."""
    apps = tiny_calibration_apps(tmp_path / "apps")
    script, runs_path = tmp_path / "calibrate.sh", tmp_path / "runs.csv"
    assert main(["calibrate", "--apps", str(apps), "--reps", "1", "--procs", "1,2", "--slurm", str(script),
                 "-o", str(runs_path)]) == 0
    status, output = cluster.submit(script, tmp_path)
    assert status == 0, output
    times = runs_path.with_suffix(".times.csv")
    rows = [line.split(",") for line in times.read_text().splitlines()]
    assert len(rows) == 8 and all(float(row[4]) > 0 for row in rows)
    capsys.readouterr()
    assert main(["calibrate", "--apps", str(apps), "--import-times", str(times), "-o", str(runs_path)]) == 0
    assert "imported 8 runs" in capsys.readouterr().err
    runs = read_runs(runs_path)
    assert sorted((run.app, run.params, run.procs, run.rep) for run in runs) == sorted(
        (app, f"n={n};{second}={value}", procs, 0)
        for app, second, value in (("cg", "iters", 20), ("ocean", "steps", 10))
        for n in (32, 48) for procs in (1, 2))
    assert all(run.time_s > 0 and run.counts["ops"] > 0 for run in runs)
    assert all(run.counts["startup"] > 0 for run in runs if run.procs == 2)


def test_srun_without_the_mpi_plugin_stops_the_job_before_any_timing(cluster, tmp_path):
    """``srun --mpi=none -n 2`` starts two 1-process MPICH jobs: timed, each 2-process point would be a
    1-process run.  The script checks first, and stops saying what to change."""
    apps = tiny_calibration_apps(tmp_path / "apps")
    script, runs_path = tmp_path / "calibrate.sh", tmp_path / "runs.csv"
    assert main(["calibrate", "--apps", str(apps), "--only", "cg", "--reps", "1", "--procs", "2",
                 "--slurm", str(script), "-o", str(runs_path)]) == 0
    status, output = cluster.submit(script, tmp_path, "--export=ALL,SLURM_MPI_TYPE=none")
    assert status != 0
    assert "did not start one MPI job of 2 processes" in output and "printed its size: 1 1)" in output, output
    assert "--launcher 'srun --mpi=pmi2 -n {P} {cmd}'" in output
    assert not runs_path.with_suffix(".times.csv").exists()


def test_a_slurm_job_runs_the_probes_with_srun(cluster, tmp_path):
    """``perfeq probe --slurm --quick``: perfeq runs inside the job and launches every probe with srun
    (memory on 1 and 2 processes of the node, the ping-pong, the collectives on 2)."""
    from perfeq.runtime.probes.document import load_probes

    script, output = tmp_path / "probe.sh", tmp_path / "probes.json"
    assert main(["probe", "--slurm", str(script), "--quick", "-o", str(output)]) == 0
    status, log = cluster.submit(script, tmp_path)
    assert status == 0, log
    results = load_probes(output)
    assert results.procs_of("read") == [1, 2] and results.curve("pingpong_intra") and results.curve("barrier")
    assert all(c["command"][0].endswith("srun") for c in results.commands)
    assert output.with_suffix(".plots").is_dir()
