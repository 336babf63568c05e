"""Fig. 10 of Fleischmann et al. (1994) as a table: n Erlang-2 (rate 1) tasks on 10 processors.

For static and dynamic scheduling: the model's mean (perfeq.fitting.variability), the paper's
formula (eq. (7); section 4.2.2's mu_dyn) and a Monte Carlo check, with relative differences; the
largest model error is printed last.  About 20 s with the default 10^5 draws.

    python benchmarks/variability.py [--draws 100000] [--procs 10] [--comm exp:2]
"""

from __future__ import annotations

import argparse
import sys

from perfeq.fitting.variability.distributions import Communication, erlang
from perfeq.fitting.variability.montecarlo import simulate_dynamic, simulate_static
from perfeq.fitting.variability.scheduling import dynamic_schedule, static_schedule
from perfeq.fitting.variability.specs import parse_task_time

TASKS = (10, 20, 50, 100, 200, 500, 1000)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=100_000)
    parser.add_argument("--procs", type=int, default=10)
    parser.add_argument("--comm", help="communication K1 = K0 of section 4.3 (Fig. 12), e.g. exp:2")
    args = parser.parse_args(argv)
    task = erlang(2, 1.0)
    communication = None
    if args.comm:
        link = parse_task_time(args.comm, "--comm")
        communication = Communication(before=link, after=link)
    print(f"{'schedule':8} {'n':>5} {'model':>10} {'Monte Carlo':>12} {'model err':>10} {'paper':>10} "
          f"{'paper err':>10}  method")
    worst = 0.0
    for schedule, model, simulate in (("static", static_schedule, simulate_static),
                                      ("dynamic", dynamic_schedule, simulate_dynamic)):
        for tasks in TASKS:
            estimate = model(task, tasks, args.procs, communication)
            check = simulate(task, tasks, args.procs, draws=args.draws, seed=tasks, communication=communication)
            error = estimate.mean / check.mean - 1
            worst = max(worst, abs(error))
            print(f"{schedule:8} {tasks:5d} {estimate.mean:10.4f} {check.mean:12.4f} {error * 100:+9.3f}% "
                  f"{estimate.approximation_mean:10.4f} {(estimate.approximation_mean / check.mean - 1) * 100:+9.2f}%  "
                  f"{estimate.method}")
    print(f"largest |model - Monte Carlo| / Monte Carlo: {worst * 100:.3f} %")
    return 0


if __name__ == "__main__":
    sys.exit(main())
