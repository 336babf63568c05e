"""The joint product model of Strohmaier 1997 (Eqs. 12-14): t = sum_i (w_i^c / r_i^s) u_i(p).

One work parameter w_i^c per code and one power parameter r_i^s per system for each characteristic
function, fitted to all codes and systems at once by nonlinear least squares, with r_i = 1 for a
reference system (the product's one free normalisation) and asymptotic standard errors (Table 5).
Called by :func:`perfeq.fitting.scaling.analysis.analyse_observations`.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy.optimize import least_squares

from perfeq.errors import FitError, UsageError
from perfeq.fitting.scaling.functions import CharacteristicFunction, model_label
from perfeq.fitting.scaling.observations import ScalingObservations

# Relative singular value of the (column-scaled) Jacobian under which parameters are not identifiable.
IDENTIFIABILITY_TOLERANCE = 1e-9
_ALTERNATING_ITERATIONS = 30


@dataclass(frozen=True)
class JointParameter:
    """One parameter of Table 5: ``kind`` is "power" (r_i^system) or "work" (w_i^code)."""

    kind: str
    name: str
    function: str
    index: int
    value: float
    stderr: float
    fixed: bool

    @property
    def symbol(self) -> str:
        return f"{'r' if self.kind == 'power' else 'w'}{self.index}[{self.name}]"


@dataclass(frozen=True, eq=False)
class JointFit:
    """A fitted joint model.  ``work``/``power`` are arrays (functions x codes / systems).

    Values are on the transformed scale: ``work`` is relative to the operation count W_c and
    ``power`` to the peak rate when those were given, and both only as ratios (one r_i is 1).
    ``points`` holds every observation with its prediction, for residual plots.  ``individual_sse``
    and ``individual_parameters`` describe the individual fits with the same functions (Table 4),
    NaN and None when those were not made.
    """

    characteristic: tuple[CharacteristicFunction, ...]
    reference_system: str
    codes: tuple[str, ...]
    systems: tuple[str, ...]
    work: np.ndarray
    work_stderr: np.ndarray
    power: np.ndarray
    power_stderr: np.ndarray
    sse: float
    sst: float
    n_obs: int
    n_parameters: int
    max_relative_error: float
    mean_relative_error: float
    individual_sse: float
    individual_parameters: int | None
    identifiable: bool
    converged: bool
    points: pd.DataFrame = field(repr=False)
    work_of_code: Mapping[str, float] = field(repr=False)
    peak_of_system: Mapping[str, float] = field(repr=False)
    notes: tuple[str, ...] = ()

    @property
    def functions(self) -> tuple[str, ...]:
        return tuple(function.label for function in self.characteristic)

    @property
    def label(self) -> str:
        return model_label(self.functions)

    @property
    def r_squared(self) -> float:
        return 1.0 - self.sse / self.sst

    @property
    def residual_mean_square(self) -> float:
        return self.sse / (self.n_obs - self.n_parameters)

    @property
    def individual_r_squared(self) -> float:
        return 1.0 - self.individual_sse / self.sst

    def parameters(self) -> list[JointParameter]:
        """All parameters, systems first then codes, function by function (the paper's Table 5)."""
        result = []
        for i, function in enumerate(self.functions):
            for s, system in enumerate(self.systems):
                result.append(JointParameter("power", system, function, i + 1, float(self.power[i, s]),
                                             float(self.power_stderr[i, s]), system == self.reference_system))
            for c, code in enumerate(self.codes):
                result.append(JointParameter("work", code, function, i + 1, float(self.work[i, c]),
                                             float(self.work_stderr[i, c]), False))
        return result

    def delta(self, code: str, system: str) -> np.ndarray:
        """delta_i^{s,c} = w_i^c / r_i^s (Eq. 14), on the transformed scale."""
        return self.work[:, self.codes.index(code)] / self.power[:, self.systems.index(system)]

    def predict_time(
        self, code: str, system: str, p: float | np.ndarray, n: float | np.ndarray | None = None
    ) -> np.ndarray:
        """Predicted run time in seconds of ``code`` on ``system`` with ``p`` processors (size ``n``)."""
        if code not in self.codes or system not in self.systems:
            raise UsageError(
                f"no joint parameters for {code} on {system}; fitted: codes {', '.join(self.codes)}, "
                f"systems {', '.join(self.systems)}"
            )
        delta = self.delta(code, system)
        normalised = sum(d * function(p, n) for d, function in zip(delta, self.characteristic, strict=True))
        return np.asarray(normalised * self.work_of_code[code] / self.peak_of_system[system])


def fit_joint_models(
    observations: ScalingObservations,
    design: pd.DataFrame,
    functions: Sequence[CharacteristicFunction],
    *,
    terms: int,
    reference_system: str | None = None,
    individual_totals: Mapping[tuple[str, ...], tuple[float, int]] | None = None,
) -> tuple[JointFit, ...]:
    """Fit the joint model for every choice of ``terms`` functions; best (lowest SSE) first.

    ``individual_totals`` maps function labels to (SSE, parameter count) of the individual fits
    with the same functions, for the comparison of Table 4.
    """
    fits = []
    for combo in itertools.combinations(functions, terms):
        total = (individual_totals or {}).get(tuple(f.label for f in combo))
        fits.append(
            fit_joint_model(
                observations, design, combo, reference_system=reference_system, individual_total=total
            )
        )
    return tuple(sorted(fits, key=lambda fit: (not fit.identifiable, fit.sse)))


def fit_joint_model(
    observations: ScalingObservations,
    design: pd.DataFrame,
    functions: Sequence[CharacteristicFunction],
    *,
    reference_system: str | None = None,
    individual_total: tuple[float, int] | None = None,
) -> JointFit:
    """Fit t' = sum_i (w_i^c / r_i^s) X_i by least squares, with r_i = 1 on the reference system.

    ``design`` holds the columns X_i = u_i(p, n) * p_factor (see
    :func:`perfeq.fitting.scaling.analysis.design_matrix`).  Starts from alternating linear least
    squares (the model is linear in w for fixed r and in 1/r for fixed w), then refines with
    ``scipy.optimize.least_squares`` in (w, g = 1/r).  Standard errors come from s^2 (J^T J)^-1,
    carried over to r by the delta method.
    """
    label = model_label(f.label for f in functions)
    systems = tuple(observations.systems)
    reference = _reference_system(observations.frame, systems, reference_system)
    problem = _JointProblem.build(observations, design, functions, reference, label)
    result = problem.solve()
    work, inverse_power = problem.unpack(result.x)
    sse = float(result.fun @ result.fun)
    residual_mean_square = sse / (problem.n_obs - problem.n_parameters)
    covariance, identifiable = _covariance(problem.jacobian(result.x), residual_mean_square)
    work_stderr, power, power_stderr = problem.standard_errors(covariance, inverse_power)
    frame = observations.frame
    response = frame["response"].to_numpy(dtype=float)
    predicted = (problem.y + result.fun) / problem.weight
    relative_error = np.abs(predicted - response) / response
    points = frame[["code", "system", "p", "n", "time", "response", "line"]].assign(
        predicted=predicted,
        residual=response - predicted,
        relative_error=relative_error,
    )
    return JointFit(
        characteristic=tuple(functions),
        reference_system=reference,
        codes=problem.codes,
        systems=systems,
        work=work / problem.column_scale[:, None],
        work_stderr=work_stderr / problem.column_scale[:, None],
        power=power,
        power_stderr=power_stderr,
        sse=sse,
        sst=float(problem.y @ problem.y),
        n_obs=problem.n_obs,
        n_parameters=problem.n_parameters,
        max_relative_error=float(relative_error.max()),
        mean_relative_error=float(relative_error.mean()),
        individual_sse=individual_total[0] if individual_total else float("nan"),
        individual_parameters=individual_total[1] if individual_total else None,
        identifiable=identifiable,
        converged=bool(result.success),
        points=points.reset_index(drop=True),
        work_of_code=frame.groupby("code")["work"].first().to_dict(),
        peak_of_system=frame.groupby("system")["peak"].first().to_dict(),
        notes=_joint_notes(label, result, identifiable),
    )


@dataclass(frozen=True, eq=False)
class _JointProblem:
    """The weighted least-squares problem of one joint model in theta = (w, g = 1/r of the free systems).

    ``X`` holds the weighted design columns scaled to unit RMS (``column_scale``), ``y`` the weighted
    responses; row i belongs to code ``code_index[i]`` and system ``system_index[i]``.
    """

    X: np.ndarray
    y: np.ndarray
    weight: np.ndarray
    column_scale: np.ndarray
    codes: tuple[str, ...]
    code_index: np.ndarray
    system_index: np.ndarray
    n_systems: int
    free: list[int]  # systems whose g is fitted: all but the reference

    @classmethod
    def build(
        cls,
        observations: ScalingObservations,
        design: pd.DataFrame,
        functions: Sequence[CharacteristicFunction],
        reference: str,
        label: str,
    ) -> _JointProblem:
        """The problem for ``functions``; FitError for a function zero at every run or too few runs."""
        frame = observations.frame
        codes, systems = tuple(observations.codes), tuple(observations.systems)
        code_index = frame["code"].map({name: i for i, name in enumerate(codes)}).to_numpy()
        system_index = frame["system"].map({name: i for i, name in enumerate(systems)}).to_numpy()
        weight = frame["weight"].to_numpy(dtype=float)
        weighted = design[[f.label for f in functions]].to_numpy(dtype=float) * weight[:, None]
        column_scale = np.sqrt(np.mean(weighted**2, axis=0))
        if not np.all(column_scale > 0):
            raise FitError(f"{observations.source}: joint model {label}: a function is zero at every run")
        free = [s for s in range(len(systems)) if systems[s] != reference]
        problem = cls(weighted / column_scale, frame["response"].to_numpy(dtype=float) * weight, weight,
                      column_scale, codes, code_index, system_index, len(systems), free)
        if problem.n_obs <= problem.n_parameters:
            raise FitError(
                f"{observations.source}: joint model {label} has {problem.n_parameters} parameters "
                f"({problem.n_functions} x ({len(codes)} codes + {len(systems)} systems - 1)) but only "
                f"{problem.n_obs} runs; add runs or use fewer functions"
            )
        return problem

    @property
    def n_obs(self) -> int:
        return self.X.shape[0]

    @property
    def n_functions(self) -> int:
        return self.X.shape[1]

    @property
    def n_work(self) -> int:
        return self.n_functions * len(self.codes)

    @property
    def n_parameters(self) -> int:
        return self.n_work + self.n_functions * len(self.free)

    def unpack(self, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """w (functions x codes) and g (functions x systems, 1 on the reference) from theta."""
        work = theta[: self.n_work].reshape(self.n_functions, len(self.codes))
        inverse_power = np.ones((self.n_functions, self.n_systems))
        inverse_power[:, self.free] = theta[self.n_work :].reshape(self.n_functions, len(self.free))
        return work, inverse_power

    def residuals(self, theta: np.ndarray) -> np.ndarray:
        work, inverse_power = self.unpack(theta)
        return (
            np.sum(self.X * work[:, self.code_index].T * inverse_power[:, self.system_index].T, axis=1) - self.y
        )

    def jacobian(self, theta: np.ndarray) -> np.ndarray:
        work, inverse_power = self.unpack(theta)
        n_codes, n_free = len(self.codes), len(self.free)
        J = np.zeros((self.n_obs, self.n_parameters))
        rows = np.arange(self.n_obs)
        for i in range(self.n_functions):
            J[rows, i * n_codes + self.code_index] = self.X[:, i] * inverse_power[i, self.system_index]
            for position, s in enumerate(self.free):
                chosen = self.system_index == s
                J[chosen, self.n_work + i * n_free + position] = (
                    self.X[chosen, i] * work[i, self.code_index[chosen]]
                )
        return J

    def solve(self):
        """scipy's Levenberg-Marquardt result, started from alternating least squares."""
        start = _alternating_start(
            self.X, self.y, self.code_index, self.system_index, len(self.codes), self.n_systems, self.free
        )
        return least_squares(self.residuals, start, jac=self.jacobian, method="lm", x_scale="jac", ftol=1e-12,
                             xtol=1e-12, gtol=1e-12, max_nfev=200 * (self.n_parameters + 1))

    def standard_errors(
        self, covariance: np.ndarray, inverse_power: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Standard errors of w (scaled columns), r = 1/g and of r (delta method) from theta's covariance."""
        variances = np.diag(covariance)
        work_stderr = np.sqrt(variances[: self.n_work]).reshape(self.n_functions, len(self.codes))
        inverse_stderr = np.zeros((self.n_functions, self.n_systems))
        free_stderr = np.sqrt(variances[self.n_work :]).reshape(self.n_functions, len(self.free))
        inverse_stderr[:, self.free] = free_stderr
        with np.errstate(divide="ignore", invalid="ignore"):
            power = 1.0 / inverse_power
            power_stderr = inverse_stderr / inverse_power**2  # delta method for r = 1/g
        return work_stderr, power, power_stderr


def _joint_notes(label: str, result, identifiable: bool) -> tuple[str, ...]:
    notes = []
    if not result.success:
        notes.append(f"joint model {label}: least squares did not converge ({result.message})")
    if not identifiable:
        notes.append(
            f"joint model {label}: parameters are not all identifiable from these runs; "
            "standard errors are not given"
        )
    return tuple(notes)


def _reference_system(frame: pd.DataFrame, systems: Sequence[str], requested: str | None) -> str:
    """The requested system, else the one with the most runs (ties: first by name)."""
    if requested is not None:
        if requested not in systems:
            raise UsageError(
                f"--reference-system {requested}: not in the runs; systems: {', '.join(systems)}"
            )
        return requested
    counts = frame["system"].value_counts()
    return min(systems, key=lambda name: (-counts.get(name, 0), name))


def _alternating_start(
    X: np.ndarray,
    y: np.ndarray,
    code_index: np.ndarray,
    system_index: np.ndarray,
    n_codes: int,
    n_systems: int,
    free: Sequence[int],
) -> np.ndarray:
    """Starting values by alternating least squares on w (fixed g) and g (fixed w)."""
    n_functions = X.shape[1]
    work = np.zeros((n_functions, n_codes))
    inverse_power = np.ones((n_functions, n_systems))
    for _ in range(_ALTERNATING_ITERATIONS):
        for c in range(n_codes):
            rows = code_index == c
            A = X[rows] * inverse_power[:, system_index[rows]].T
            work[:, c] = np.linalg.lstsq(A, y[rows], rcond=None)[0]
        for s in free:
            rows = system_index == s
            A = X[rows] * work[:, code_index[rows]].T
            inverse_power[:, s] = np.linalg.lstsq(A, y[rows], rcond=None)[0]
    return np.concatenate([work.ravel(), inverse_power[:, list(free)].ravel()])


def _covariance(J: np.ndarray, residual_mean_square: float) -> tuple[np.ndarray, bool]:
    """s^2 (J^T J)^-1 via the SVD of the column-scaled Jacobian; NaN when J is rank deficient."""
    scale = np.sqrt(np.sum(J**2, axis=0))
    scale[scale == 0] = 1.0
    _, singular, Vt = np.linalg.svd(J / scale, full_matrices=False)
    if singular[-1] <= singular[0] * IDENTIFIABILITY_TOLERANCE:
        return np.full((J.shape[1], J.shape[1]), np.nan), False
    inverse = (Vt.T / singular**2) @ Vt
    return inverse / np.outer(scale, scale) * residual_mean_square, True
