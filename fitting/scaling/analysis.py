"""Statistical scaling models of measured run times (Strohmaier 1997, "Statistical Performance Modeling").

For every (code, system) pair, fits every model t = sum_i delta_i u_i(p) built from one to
``max_terms`` characteristic functions (:mod:`perfeq.fitting.scaling.individual`, the paper's Tables
2-3) and, on request, the joint product model of :mod:`perfeq.fitting.scaling.joint` (Tables 4-5).  Input is a pandas DataFrame (:func:`analyse_scaling`), so calibration runs can be
analysed without going through a file; :mod:`perfeq.fitting.scaling.report` prints the result.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from perfeq.errors import FitError, UsageError
from perfeq.fitting.scaling.data import location
from perfeq.fitting.scaling.functions import CharacteristicFunction, parse_functions
from perfeq.fitting.scaling.individual import IndividualAnalysis, fit_individual_models
from perfeq.fitting.scaling.joint import JointFit, fit_joint_models
from perfeq.fitting.scaling.observations import ScalingObservations, prepare_observations


@dataclass(frozen=True)
class ScalingOptions:
    """What to fit; the defaults follow the paper (two-function models, times scaled by p)."""

    functions: str | tuple[str, ...] | None = None
    max_terms: int = 2
    p_scaling: bool = True
    outlier_factor: float = 10.0
    aggregate: str = "none"
    weighting: str = "none"
    codes: tuple[str, ...] | None = None
    systems: tuple[str, ...] | None = None
    skip_sparse: bool = False
    joint: bool = False
    reference_system: str | None = None


@dataclass(frozen=True, eq=False)
class ScalingReport:
    """Everything the scaling analysis found, ready for :mod:`perfeq.fitting.scaling.report`."""

    observations: ScalingObservations
    functions: tuple[CharacteristicFunction, ...]
    options: ScalingOptions
    individual: IndividualAnalysis | None
    joint: tuple[JointFit, ...] = ()
    notes: tuple[str, ...] = field(default=())


def analyse_scaling(
    frame: pd.DataFrame,
    options: ScalingOptions = ScalingOptions(),
    *,
    work: Mapping[str, float] | None = None,
    peak: Mapping[str, float] | None = None,
    source: str = "<data>",
) -> ScalingReport:
    """Run the whole analysis on a DataFrame of runs.

    Parameters
    ----------
    frame
        Columns ``code, system, p, time`` (seconds), optionally ``n`` (problem size), ``work``,
        ``peak`` and ``line``.  Build it from a runs table with
        :func:`perfeq.fitting.scaling.data.scaling_frame_from_runs`.
    options
        Functions, number of terms, transformations, joint model.
    work, peak
        Operation count per code and peak rate per system for the scale transformation (Eq. 11).
    source
        Name used in error messages (a file name).

    Returns
    -------
    ScalingReport
    """
    observations = prepare_observations(
        frame,
        work=work,
        peak=peak,
        codes=options.codes,
        systems=options.systems,
        p_scaling=options.p_scaling,
        outlier_factor=options.outlier_factor,
        aggregate=options.aggregate,
        weighting=options.weighting,
        source=source,
    )
    return analyse_observations(observations, options)


def analyse_observations(
    observations: ScalingObservations, options: ScalingOptions = ScalingOptions()
) -> ScalingReport:
    """Fit individual (and joint) models to prepared observations."""
    functions = parse_functions(options.functions, with_size=observations.has_size)
    if not 1 <= options.max_terms <= 3:
        raise UsageError(f"--max-terms {options.max_terms}: give 1, 2 or 3")
    notes = list(observations.notes)
    if observations.has_size and not any(f.uses_size for f in functions):
        notes.append("the runs have several problem sizes but no function uses n")
    design = design_matrix(observations, functions)
    pairs_to_fit, pair_notes = check_pairs(
        observations, min(options.max_terms, len(functions)), options.skip_sparse
    )
    notes.extend(pair_notes)
    if not pairs_to_fit and not options.joint:
        raise FitError(
            f"{observations.source}: no (code, system) pair has enough runs for individual fits; "
            "add runs or fit only the joint model (--joint)"
        )
    individual = (
        fit_individual_models(observations, design, pairs_to_fit, options.max_terms) if pairs_to_fit else None
    )
    joint: tuple[JointFit, ...] = ()
    if options.joint:
        joint = fit_joint_models(
            observations,
            design,
            functions,
            terms=min(options.max_terms, len(functions)),
            reference_system=options.reference_system,
            individual_totals=_totals_by_functions(individual),
        )
        notes.extend(note for fit in joint for note in fit.notes)
    return ScalingReport(
        observations=observations,
        functions=functions,
        options=options,
        individual=individual,
        joint=joint,
        notes=tuple(notes),
    )


def design_matrix(
    observations: ScalingObservations, functions: Sequence[CharacteristicFunction]
) -> pd.DataFrame:
    """One column per function: u_i(p, n) * p_factor, labelled by the function's text."""
    frame = observations.frame
    p = frame["p"].to_numpy(dtype=float)
    n = frame["n"].to_numpy(dtype=float)
    columns = {}
    for function in functions:
        if function.uses_size and not observations.has_size:
            raise UsageError(
                f"--functions: '{function.label}' uses n, but the runs have no problem size; "
                "pass --size-param NAME (runs CSV) or give an n column (results table)"
            )
        values = function(p, n) * frame["p_factor"].to_numpy(dtype=float)
        bad = ~np.isfinite(values)
        if bad.any():
            row = frame.loc[bad].iloc[0]
            size = f", n={row['n']:g}" if function.uses_size else ""
            raise UsageError(
                f"{location(observations.source, row['line'])}: --functions: '{function.label}' "
                f"is not finite at p={row['p']:g}{size}"
            )
        columns[function.label] = values
    return pd.DataFrame(columns, index=frame.index)


def check_pairs(
    observations: ScalingObservations, terms: int, skip_sparse: bool
) -> tuple[list[tuple[str, str]], list[str]]:
    """The (code, system) pairs that support individual fits of ``terms`` functions.

    Raises FitError for all-equal times, and for pairs with one processor count or too few runs
    unless ``skip_sparse`` (then those pairs are left to the joint model and named in the notes).
    """
    frame = observations.frame
    source = observations.source
    if frame["time"].nunique() == 1 and len(frame) > 1:
        raise FitError(
            f"{source}: all {len(frame)} times are equal ({frame['time'].iloc[0]:g} s); "
            "a scaling fit needs times that change with p"
        )
    needed = terms + 1
    pairs, notes = [], []
    for (code, system), group in frame.groupby(["code", "system"], sort=True):
        where = f"{location(source, group['line'].iloc[0])}: {code} on {system}"
        points = group[["p", "n"]].drop_duplicates()
        problem, advice = None, "add runs, lower --max-terms, or pass --skip-sparse"
        if len(points) < 2:
            problem = (
                f"all {len(group)} run(s) use p={group['p'].iloc[0]:g}; fitting how time scales "
                "needs at least two processor counts"
            )
            advice = "add runs with another processor count, or pass --skip-sparse"
        elif len(group) < needed:
            problem = (
                f"{len(group)} runs are fewer than the {needed} needed to fit {terms}-function "
                "models with an error estimate"
            )
        elif group["time"].nunique() == 1:
            raise FitError(
                f"{where}: all {len(group)} times are equal ({group['time'].iloc[0]:g} s); "
                "leave the pair out with --codes/--systems"
            )
        if problem is None:
            pairs.append((code, system))
        elif skip_sparse:
            notes.append(f"{code} on {system}: no individual fits ({problem})")
        else:
            raise FitError(f"{where}: {problem}; {advice}")
    return pairs, notes


def _totals_by_functions(individual: IndividualAnalysis | None) -> dict[tuple[str, ...], tuple[float, int]]:
    if individual is None:
        return {}
    return {total.functions: (total.sse, total.n_parameters) for total in individual.totals if total.complete}
