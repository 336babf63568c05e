"""Regenerate the scaling fixtures in this folder (python tests/data/scaling/make_fixtures.py).

The files are synthetic: times drawn from known joint models t = sum_i w_i[code] / r_i[system] u_i
with 2 % multiplicative noise and a fixed seed, so the tests know the true parameters.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

HERE = Path(__file__).parent


def runs_csv(rng: np.random.Generator) -> str:
    """perfeq-runs 1: jacobi at three sizes (t = a n^2/p + b n/sqrt(p)) and cg, on two hosts."""
    lines = [
        "# perfeq-runs 1",
        "# synthetic calibration runs for tests/test_scaling*.py",
        "app,params,procs,threads,rep,time_s,host",
    ]
    speed = {"node-a": 1.0, "node-b": 0.6}
    for host, s in speed.items():
        for n in (256, 512, 1024):
            for procs in (1, 2, 4, 8, 16):
                for rep in range(2):
                    t = (2.0e-6 * n * n / procs + 4.0e-4 * n / np.sqrt(procs)) / s
                    lines.append(
                        f"jacobi,n={n};steps=10,{procs},1,{rep},{t * (1 + 0.02 * rng.standard_normal()):.6g},{host}"
                    )
        for procs in (1, 2, 4, 8, 16):
            for rep in range(2):
                t = (3.0 / procs + 0.05) / s
                lines.append(f"cg,n=1000,{procs},1,{rep},{t * (1 + 0.02 * rng.standard_normal()):.6g},{host}")
    # one broken run: ten times too slow, for the outlier screening
    lines.append("cg,n=1000,8,1,2,4.5,node-a")
    return "\n".join(lines) + "\n"


def npb_csv(rng: np.random.Generator) -> tuple[str, str, str]:
    """A published-results table: four codes, three systems, t = W/peak (w1/r1/p + w2/r2)."""
    work = {"BT": 180.0, "LU": 120.0, "SP": 100.0, "MG": 4.0}
    peak = {"SP2": 0.266, "T3D": 0.150, "Paragon": 0.100}
    w1 = {"BT": 4.5, "LU": 4.0, "SP": 5.3, "MG": 4.6}
    w2 = {"BT": 0.012, "LU": 0.033, "SP": 0.066, "MG": 0.014}
    r1 = {"SP2": 1.0, "T3D": 0.42, "Paragon": 0.40}
    r2 = {"SP2": 1.0, "T3D": 1.9, "Paragon": 1.5}
    procs = {"SP2": (1, 2, 4, 8, 16, 32, 64), "T3D": (4, 8, 16, 32, 64, 128), "Paragon": (8, 16, 32, 64, 128)}
    lines = ["# NPB-like results table (synthetic), seconds", "code,system,p,time"]
    for code in work:
        for system in peak:
            for p in procs[system]:
                t = work[code] / peak[system] * (w1[code] / r1[system] / p + w2[code] / r2[system])
                lines.append(f"{code},{system},{p},{t * (1 + 0.02 * rng.standard_normal()):.6g}")
    work_lines = ["code,work"] + [f"{k},{v:g}" for k, v in work.items()]
    peak_lines = ["system,peak"] + [f"{k},{v:g}" for k, v in peak.items()]
    return "\n".join(lines) + "\n", "\n".join(work_lines) + "\n", "\n".join(peak_lines) + "\n"


def main() -> None:
    rng = np.random.default_rng(20240917)
    (HERE / "runs.csv").write_text(runs_csv(rng))
    table, work, peak = npb_csv(rng)
    (HERE / "npb.csv").write_text(table)
    (HERE / "npb_work.csv").write_text(work)
    (HERE / "npb_peak.csv").write_text(peak)
    (HERE / "one_p.csv").write_text(
        "code,system,p,time\n" + "".join(f"x,a,4,{1.0 + 0.01 * i}\n" for i in range(4))
    )
    (HERE / "equal_times.csv").write_text(
        "code,system,p,time\n" + "".join(f"x,a,{p},2.5\n" for p in (1, 2, 4, 8))
    )
    (HERE / "too_few.csv").write_text(
        "# perfeq-runs 1\napp,params,procs,threads,rep,time_s\nx,n=8,1,1,0,2.0\nx,n=8,2,1,0,1.1\n"
    )
    (HERE / "bad_time.csv").write_text("code,system,p,time\nx,a,1,2.0\nx,a,2,fast\n")


if __name__ == "__main__":
    main()
