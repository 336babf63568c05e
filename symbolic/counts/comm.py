"""Communication counts of MPI call sites as expressions (symbolic stage, paper 3.2).

Part of perfeq.symbolic.counts (:class:`CommCounts`, a mixin of
:class:`~perfeq.symbolic.counts.core.CountModel`, and the message functions model files use).
A point-to-point call is one message; a collective sends the messages of its algorithm from this
rank (binomial trees, recursive doubling, rings: perfeq.symbolic.messages holds them, the MPI call table names them).
A call whose count is an array over the ranks (MPI_Alltoallv's sendcounts[]) is data: its bytes
are the fitted elements of the array times the type size and the others' share
(:func:`summed_bytes`), else measured per call.
The per-rank message functions of the table are attached to sympy functions, so expressions stay
symbolic in P and the rank and evaluate with numpy.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

import numpy as np
import sympy as sp
from sympy.utilities.lambdify import implemented_function

from perfeq.arguments import canonical_lvalue
from perfeq.instrument.descriptors import CommDescriptor
from perfeq.runtime.mpi.calls import MPI_CALLS
from perfeq.symbolic.cexpr import TYPE_SIZES, Unresolved, to_sympy
from perfeq.symbolic.communicators import communicator, size_symbols
from perfeq.symbolic.counts.base import (
    FIT_TOLERANCE,
    CountBase,
    Fallback,
    _number,
    _rational,
    chain_predicates,
    per_process_ratio,
    rank_predicate,
)
from perfeq.symbolic.messages import OTHERS_SHARE, MessageModel, model_of, relative_rank, summed_messages
from perfeq.symbolic.resolve import Resolver, UnitView
from perfeq.symbolic.symbols import PROC_NULL, RANK, P

MPI_TYPE_SIZES = {
    "MPI_DOUBLE": 8, "MPI_FLOAT": 4, "MPI_INT": 4, "MPI_LONG": 8, "MPI_LONG_LONG": 8, "MPI_CHAR": 1,
    "MPI_BYTE": 1, "MPI_UNSIGNED": 4, "MPI_UNSIGNED_LONG": 8, "MPI_SHORT": 2, "MPI_2INT": 8,
    "MPI_DOUBLE_INT": 12, "MPI_LONG_DOUBLE": 16, "MPI_C_BOOL": 1, "MPI_INT64_T": 8, "MPI_INT32_T": 4,
    "MPI_UINT64_T": 8, "MPI_UINT32_T": 4, "MPI_INT16_T": 2, "MPI_UINT16_T": 2, "MPI_INT8_T": 1, "MPI_UINT8_T": 1,
    "MPI_LONG_LONG_INT": 8, "MPI_UNSIGNED_LONG_LONG": 8, "MPI_UNSIGNED_CHAR": 1, "MPI_SIGNED_CHAR": 1,
    "MPI_UNSIGNED_SHORT": 2, "MPI_C_FLOAT_COMPLEX": 8, "MPI_C_DOUBLE_COMPLEX": 16,
}


@lru_cache(maxsize=1)
def _models() -> dict[str, MessageModel]:
    """Each distinct message model, named by the kind of the first call that uses it (bcast, ...)."""
    named: dict[str, MessageModel] = {}
    for call in MPI_CALLS.values():
        if not any(m is model_of(call.name) for m in named.values()):
            named[call.kind] = model_of(call.name)
    return named


def _key(model: MessageModel) -> str:
    return next(key for key, m in _models().items() if m is model)


@lru_cache(maxsize=None)
def message_functions(model_name: str) -> dict[str, sp.Function]:
    """sympy functions of (P, v) for messages sent, blocks sent, critical path; and rank averages."""
    model = _models()[model_name]
    sent = np.vectorize(lambda p, v: model.sent(int(p), int(v)), otypes=[float])
    blocks = np.vectorize(lambda p, v: model.blocks(int(p), int(v)), otypes=[float])
    critical = np.vectorize(lambda p: model.critical(int(p)), otypes=[float])
    avg_sent = np.vectorize(lambda p: sum(model.sent(int(p), v) for v in range(int(p))) / int(p), otypes=[float])
    avg_blocks = np.vectorize(lambda p: sum(model.blocks(int(p), v) for v in range(int(p))) / int(p),
                              otypes=[float])
    return {
        "sent": implemented_function(f"mpi_sent_{model_name}", sent),
        "blocks": implemented_function(f"mpi_blocks_{model_name}", blocks),
        "critical": implemented_function(f"mpi_critical_{model_name}", critical),
        "avg_sent": implemented_function(f"mpi_avgsent_{model_name}", avg_sent),
        "avg_blocks": implemented_function(f"mpi_avgblocks_{model_name}", avg_blocks),
    }


def all_message_functions() -> dict[str, sp.Function]:
    """Every implemented message function by name (to restore them when a model file is read)."""
    out = {}
    for call in MPI_CALLS.values():
        for fn in message_functions(_key(model_of(call.name))).values():
            out[str(fn)] = fn
    return out


def comm_counts(comm: CommDescriptor, resolver: Resolver, records: list, nbytes: sp.Expr | None = None
                ) -> tuple[sp.Expr, sp.Expr, sp.Expr, list[str]]:
    """(messages sent, bytes sent, critical-path messages) of ONE call of ``comm`` on one rank.

    ``records`` are the run's MPI records of this site (for the datatype size and fallbacks).
    ``nbytes``: the bytes of one call's block when the caller has them (fitted array counts,
    :func:`summed_bytes`); else from the count argument, or measured.
    Returns also notes on what was approximated.
    """
    notes: list[str] = []
    spec = MPI_CALLS.get(comm.call)
    if spec is None:
        return sp.Integer(0), sp.Integer(0), sp.Integer(0), [f"{comm.call} is not modeled"]
    fns = message_functions(_key(model_of(spec.name)))
    if nbytes is None:
        nbytes = (_measured_summed_bytes(comm, spec, records, notes) if spec.count_sum
                  else _block_bytes(comm, resolver, records, notes))
    size, rank = P, RANK
    if comm.comm:
        try:
            size, rank = communicator(comm.comm, resolver)
        except Unresolved as exc:
            notes.append(f"communicator {comm.comm} not sized ({exc}): its size taken as P")
    if rank is None:  # a rank within a group built from a list of ranks: averaged over them
        return fns["avg_sent"](size), fns["avg_blocks"](size) * nbytes, fns["critical"](size), notes
    if spec.root is not None:
        try:
            root = to_sympy(comm.root, resolver) if comm.root else sp.Integer(0)
            if root.free_symbols - {P, RANK} - size_symbols(resolver):
                raise Unresolved("the root changes inside a loop")
            v = sp.Mod(rank - root, size)
            return fns["sent"](size, v), fns["blocks"](size, v) * nbytes, fns["critical"](size), notes
        except Unresolved as exc:
            notes.append(f"root {comm.root} not symbolic ({exc}): per-rank messages averaged over ranks")
            return fns["avg_sent"](size), fns["avg_blocks"](size) * nbytes, fns["critical"](size), notes
    return fns["sent"](size, rank), fns["blocks"](size, rank) * nbytes, fns["critical"](size), notes


def type_size(datatype: str | None) -> sp.Integer | None:
    """The size of an MPI datatype named in the source (``MPI_DOUBLE``), None when unknown."""
    if not datatype:
        return None
    if datatype in MPI_TYPE_SIZES:
        return sp.Integer(MPI_TYPE_SIZES[datatype])
    if datatype.removeprefix("MPI_").lower() in TYPE_SIZES:
        return sp.Integer(TYPE_SIZES[datatype.removeprefix("MPI_").lower()])
    return None


def datatype_bytes(datatype: str | None, resolver: Resolver, depth: int = 0) -> sp.Expr | None:
    """The size in bytes of an MPI datatype: a basic one by name; a derived one from its
    construction in the unit (``MPI_Type_vector(ny, 1, nx + 2, MPI_DOUBLE, &column)``: ny * 1 * 8),
    in the function of the call if it builds the type there.  None when it cannot be told."""
    basic = type_size(datatype.strip()) if datatype else None
    name = canonical_lvalue(datatype) if datatype and basic is None else None
    if basic is not None or name is None or depth > 4:
        return basic
    if name in resolver.unit.macros:  # #define MPI_DTYPE MPI_DOUBLE
        return datatype_bytes(resolver.unit.macros[name], resolver, depth + 1)
    built = [t for t in resolver.unit.data.datatypes if t.name == name]
    here = [t for t in built if t.function == resolver.function]
    function = resolver.unit.functions[resolver.function]
    if not here and name in function.params:  # a parameter: the type its one caller in the unit passes
        sites = [c for c in resolver.unit.data.calls if c.callee == function.name]
        position = function.params.index(name)
        if len(sites) != 1 or position >= len(sites[0].args):
            return None
        site = sites[0]
        return datatype_bytes(site.args[position], resolver.elsewhere(resolver.unit, site.function, site.loop, site.line),
                              depth + 1)
    if len(here or built) != 1:
        return None  # not built in this unit, or built in several places
    made = (here or built)[0]
    at = resolver.elsewhere(resolver.unit, made.function, made.loop, made.line)
    args = made.args
    old_type = args[-2] if len(args) >= 2 else None  # the type it is made of, before the new handle
    try:
        if made.constructor == "MPI_Type_contiguous" and len(args) == 3:
            elements = to_sympy(args[0], at)
        elif made.constructor in ("MPI_Type_vector", "MPI_Type_hvector", "MPI_Type_create_hvector",
                                  "MPI_Type_create_indexed_block", "MPI_Type_create_hindexed_block") and len(args) == 5:
            elements = to_sympy(args[0], at) * to_sympy(args[1], at)  # count x block length
        elif made.constructor in ("MPI_Type_create_resized", "MPI_Type_dup"):  # same data, another extent
            elements = sp.Integer(1)
            old_type = args[0]
        elif made.constructor == "MPI_Type_create_subarray" and len(args) == 7:
            ndims = to_sympy(args[0], at)
            if not ndims.is_Integer:
                return None
            elements = sp.Mul(*(to_sympy(f"({args[2]})[{i}]", at) for i in range(int(ndims))))
        else:
            return None
    except Unresolved:
        return None
    old = datatype_bytes(old_type, at, depth + 1)
    size = None if old is None else sp.sympify(elements * old)
    if size is None or size.free_symbols - {P, RANK, *size_symbols(resolver)}:
        return None  # (built from another function's parameters)
    return size


def summed_bytes(comm: CommDescriptor, elements: sp.Expr, resolver: Resolver | None = None) -> sp.Expr:
    """Bytes one call of an array-count call site sends, from the elements of the whole array.

    The blocks for the other ranks, if every rank's block is the same: the type size times
    floor(elements * (P - 1) / P) (whole bytes on every rank).  Unresolved when the datatype's
    size is not known from its name or (with ``resolver``, at the call) from its construction.
    """
    size = type_size(comm.datatype)
    if size is None and resolver is not None:
        size = datatype_bytes(comm.datatype, resolver)  # a resized subarray of a block (Jacobi3D's scatter)
    if size is None:
        raise Unresolved(f"size of {comm.datatype}")
    return size * _others_blocks(elements)


def _others_blocks(elements: sp.Expr) -> sp.Expr:
    """floor(elements * (P - 1) / P): the elements of an array count for the other ranks, if every
    rank's block is the same."""
    return sp.floor(elements * sp.sympify(OTHERS_SHARE, locals={"P": P}))


def sending_records(spec, records: list) -> list:
    """The records of ranks that send blocks in ``spec``'s model (all ranks, or a scatterv's root)."""
    return [rec for rec in records if model_of(spec.name).blocks(*relative_rank(rec.comm_size, rec.comm_rank, rec.root)) > 0]


def _array_records(spec, records: list) -> list:
    """The records of the ranks whose array count is the whole array (every rank's, or only a
    scatterv's root's): their elements are the array's sum on one process too, where the root
    sends nothing (a P = 1 run tells sum(counts) = P from a constant 2 on two processes)."""
    if spec.count_sum == "root":
        return [rec for rec in records if rec.comm_size and rec.is_root]
    return records


def _measured_summed_bytes(comm: CommDescriptor, spec, records: list, notes: list[str]) -> sp.Expr:
    """An array count not fitted: the bytes the sending ranks sent per call, as measured."""
    sending = sending_records(spec, records)
    calls = sum(r.calls for r in sending)
    if calls:
        notes.append(f"count {comm.count} is an array (data) not fitted to the problem size (no form fits "
                     f"its elements, or the size of {comm.datatype} is unknown): measured bytes per call")
        return sp.Rational(sum(r.bytes for r in sending), calls)
    if any(r.calls for r in records):  # P = 1: nothing to send
        return sp.Integer(0)
    notes.append(f"count {comm.count} not symbolic and never called")
    return sp.Integer(0)


def _block_bytes(comm: CommDescriptor, resolver: Resolver, records: list, notes: list[str]) -> sp.Expr:
    calls = sum(r.calls for r in records)
    elements = sum(r.elements for r in records)
    measured_bytes = sum(r.bytes for r in records)
    size = datatype_bytes(comm.datatype, resolver)  # a derived type's size from its construction
    if size is None:
        size = sp.Rational(measured_bytes, elements) if elements else type_size(comm.datatype)
        if size is not None and comm.count is not None:
            notes.append(f"the size of datatype {comm.datatype} is not symbolic: {size} bytes per element, "
                         "as measured")
    if comm.count is None:
        return sp.Integer(0)
    try:
        count = to_sympy(comm.count, resolver)
        if size is None:
            raise Unresolved(f"size of {comm.datatype}")
        return count * size
    except Unresolved as exc:
        if calls:
            notes.append(f"count {comm.count} not symbolic ({exc}): measured bytes per call")
            return sp.Rational(measured_bytes, calls)
        notes.append(f"count {comm.count} not symbolic and never called")
        return sp.Integer(0)


def _partnered(run, node, comm: CommDescriptor) -> list:
    """The call site's records on every rank of ``run`` in context ``node``, but for the sends to
    MPI_PROC_NULL (recorded with communicator size 0: no message)."""
    return [rec for r in range(run.nranks) for rec in node.mpi.get(r, {}).get(comm.id, []) if rec.comm_size != 0]


class CommCounts(CountBase):
    """The communication counts of a context's MPI call sites, checked against the run's."""

    def _comm(self, ctx, unit: UnitView, comm: CommDescriptor) -> tuple[sp.Expr, sp.Expr, sp.Expr]:
        """(messages sent, bytes sent, critical-path messages) of one MPI call site, summed.

        Messages are exact (the call's algorithm in P and the rank).  Bytes too, when the count is
        symbolic; a count that is an array over the ranks (MPI_Alltoallv's sendcounts[]) is data,
        and its elements per call are fitted to a form of the problem size (:meth:`_array_bytes`);
        those bytes are checked within the fit's tolerance, not exactly.
        """
        resolver = Resolver(unit, comm.function, comm.loop, comm.line, self.param_symbols)
        records = _partnered(self.run, ctx, comm)
        if not any(rec.calls for rec in records):  # never called in the first run (P = 1): sizes from one where it ran
            records = self._records_where_called(ctx, comm) or records
        where = self._where(unit, comm)
        share = self._partner_share(ctx, unit, comm)
        fitted, fit_note = self._array_bytes(ctx, comm, resolver)
        if fitted is None:
            fitted, fit_note = self._data_bytes(ctx, comm, resolver)
        result, reason = self._modelled_comm(ctx, unit, comm, resolver, records, fitted, fit_note, share)
        if result is None and fitted is None:  # a count the callee has, that its caller passed as data
            fitted, fit_note = self._data_bytes(ctx, comm, resolver, passed=True)
            if fitted is not None:
                result, _ = self._modelled_comm(ctx, unit, comm, resolver, records, fitted, fit_note, share)
        if result is not None:
            return result
        per_call = self._measured_per_call(ctx, unit, comm, records, share)
        if per_call is not None:
            self.fallbacks.append(Fallback(where, "measured", "communication", f"{reason}: messages and bytes per "
                                           "call as measured, times the calls modelled"))
            return per_call
        measured = summed_messages(rec for r in range(self.run.nranks) for rec in ctx.mpi.get(r, {}).get(comm.id, []))
        self.fallbacks.append(Fallback(where, "measured", "communication", reason))
        return tuple(sp.Rational(getattr(measured, key), self.run.nranks) for key in ("sent", "bytes_sent", "critical"))

    def _measured_per_call(self, ctx, unit: UnitView, comm: CommDescriptor, records: list,
                           share: sp.Expr) -> tuple | None:
        """(sent, bytes, critical) per call as ``records`` measured them (the first run's, or one
        where the site ran), times the calls of the site's block as modelled: a send whose partner
        or size is data scales with the calls and vanishes where its block does (on one process, a
        buffer flushed to another rank).  Not checked against the run: the calls are the block's,
        whose own model the self-check holds to the runs.  None without calls or a block."""
        calls = sum(rec.calls for rec in records)
        if not calls or comm.block is None:
            return None
        total = summed_messages(records)
        try:
            return tuple(self.total(ctx, unit, comm.block, share * sp.Rational(getattr(total, key), calls))
                         for key in ("sent", "bytes_sent", "critical"))
        except Unresolved:
            return None

    def _modelled_comm(self, ctx, unit: UnitView, comm: CommDescriptor, resolver: Resolver, records: list,
                       fitted: sp.Expr | None, fit_note: str, share: sp.Expr) -> tuple[tuple | None, str]:
        """The call site's (sent, bytes, critical) summed over the context, when they reproduce the
        run (bytes within the fit's tolerance when ``fitted`` bytes per call are given); else None
        and the reason.  The notes of what was approximated are kept only for a result."""
        where = self._where(unit, comm)
        sent, nbytes, critical, notes = comm_counts(comm, resolver, records, nbytes=fitted)
        sent, nbytes, critical = (share * w for w in (sent, nbytes, critical))  # (sends to MPI_PROC_NULL)
        try:
            result = tuple(self.total(ctx, unit, comm.block, w) for w in (sent, nbytes, critical))
        except Unresolved as exc:
            return None, str(exc)
        tolerance = 1e-6 if fitted is None else FIT_TOLERANCE
        if not self._check_comm(ctx, comm, result, bytes_tolerance=tolerance) \
                and not self._check_per_call(ctx, comm, (sent, nbytes), tolerance):
            return None, "the symbolic messages do not reproduce the measured ones"
        for note in notes:
            self.fallbacks.append(Fallback(where, "measured", "communication", note))
        if fit_note:
            self.fallbacks.append(Fallback(where, "fit", "communication", fit_note))
        return result, ""

    def _partner_share(self, ctx, unit: UnitView, comm: CommDescriptor) -> sp.Expr:
        """The share of a send site's calls that had a partner: 1, unless some call sent to
        ``MPI_PROC_NULL`` (the edges of a non-periodic Cartesian grid: ``MPI_Cart_shift`` gives the
        first rank no left neighbour); then a condition on the rank when each rank always or never
        had one (rank != 0 on a chain), else the share as a function of P (a + b / P), else the
        first run's share; named in the fallbacks."""
        if MPI_CALLS.get(comm.call) is None or MPI_CALLS[comm.call].c_null is None:
            return sp.Integer(1)
        outcomes, shares, alike, seen = [], [], True, []  # per run: (P, {rank: partnered}), (P, share), run
        for run, node in self._same_context(ctx):
            decided, real, every = {}, 0, 0
            for r in range(run.nranks):
                recs = node.mpi.get(r, {}).get(comm.id, [])
                calls, partnered = sum(x.calls for x in recs), sum(x.calls for x in recs if x.comm_size != 0)
                if calls:
                    alike = alike and partnered in (0, calls)
                    decided[r], real, every = partnered == calls, real + partnered, every + calls
            if every:
                seen.append(run)
                outcomes.append((run.nranks, decided))
                shares.append((run.nranks, sp.Rational(real, every)))
        if all(share == 1 for _, share in shares):
            return sp.Integer(1)
        where = self._where(unit, comm)
        static = self._peer_share(unit, comm, list(zip(seen, outcomes, strict=True))) if alike else None
        if static is not None:
            return static
        predicate = rank_predicate(outcomes, chain_predicates()) if alike else None
        if predicate is not None:
            self.fallbacks.append(Fallback(where, "fit", "communication", f"some calls sent to MPI_PROC_NULL (no "
                                           f"message): a partner on the ranks where {predicate}, in the {len(outcomes)} runs"))
            return sp.Piecewise((1, predicate), (0, True))
        by_procs = per_process_ratio(shares)
        if by_procs is not None:
            self.fallbacks.append(Fallback(where, "measured-ratio", "communication",
                                           f"some calls sent to MPI_PROC_NULL (no message): the share with a partner, "
                                           f"{by_procs[1]}"))
            return by_procs[0]
        self.fallbacks.append(Fallback(where, "measured-ratio", "communication", f"some calls sent to MPI_PROC_NULL "
                                       f"(no message): the first run's share with a partner, {shares[0][1]}"))
        return shares[0][1]

    def _peer_share(self, unit: UnitView, comm: CommDescriptor, outcomes: list) -> sp.Expr | None:
        """Where the send's partner is a rank, from the partner's value: ``MPI_Cart_shift``'s
        neighbour on a Cartesian grid (perfeq.symbolic.communicators.cart_neighbour), ``rank > 0 ?
        rank - 1 : MPI_PROC_NULL``: Piecewise((1, where), (0, True)) when it gives every rank of
        every run its outcome (``outcomes``: (run, (P, {rank: partnered}))); else None."""
        if not comm.peer:
            return None
        resolver = Resolver(unit, comm.function, comm.loop, comm.line, self.param_symbols)
        try:
            value = sp.piecewise_fold(to_sympy(comm.peer, resolver))
        except (Unresolved, TypeError, ValueError):
            return None
        if not isinstance(value, sp.Piecewise) or value.free_symbols - {P, RANK} - set(self.size_symbols):
            return None
        share = sp.Piecewise(*((sp.Integer(0 if piece == PROC_NULL else 1), cond) for piece, cond in value.args))
        if not isinstance(share, sp.Piecewise) or len(share.args) != 2 or share.args[1] != (0, True):
            return None
        for run, (_, decided) in outcomes:
            for r, outcome in decided.items():
                if (share.subs(self.values(run, r)) == 1) != outcome:
                    return None
        return share

    def _records_where_called(self, ctx, comm: CommDescriptor) -> list:
        """The call site's records in the first run holding this context where the site was called."""
        for run, node in self._same_context(ctx):
            records = _partnered(run, node, comm)
            if any(rec.calls for rec in records):
                return records
        return []

    def _array_bytes(self, ctx, comm: CommDescriptor, resolver: Resolver) -> tuple[sp.Expr | None, str]:
        """Bytes per call of a call site whose count is an array over the ranks, scaled with the size.

        The wrapper records the elements of the whole array (this rank's data, e.g. its n / P
        keys) and the bytes of the blocks for the other ranks.  The elements per call of the
        sending ranks, averaged over them, are fitted like a trip count (:meth:`_fit`, over every
        run that holds this context); the bytes are then the type size times
        floor(elements * (P - 1) / P), the others' share when the blocks are equal, which is
        approximate when the blocks are data (partition sizes).  Returns the bytes and the note
        for the model's fallbacks; None when the count is not an array, no form fits or the
        datatype's size is unknown (then: measured bytes per call).
        """
        spec = MPI_CALLS.get(comm.call)
        if spec is None or spec.count_sum is None:
            return None, ""
        samples = []  # (symbol values, elements per call of a rank holding the array) of every run with this context
        for run, node in self._same_context(ctx):
            sending = _array_records(spec, _partnered(run, node, comm))
            calls = sum(rec.calls for rec in sending)
            if calls:
                samples.append((self.values(run, 0), _rational(Fraction(sum(rec.elements for rec in sending), calls))))
        fitted, note = self._fit(samples) if samples else (None, "")
        if fitted is None:
            return None, ""
        try:
            nbytes = summed_bytes(comm, fitted, resolver)
            size_note = ""
        except Unresolved:
            size, size_note = self._fitted_type_size(ctx, comm, spec, fitted)
            if size is None:
                return None, ""
            nbytes = size * _others_blocks(fitted)
        return nbytes, (f"count {comm.count} is an array (data): its elements per call {samples[0][1]} = "
                        f"{fitted}{note}{size_note}; bytes sent per call = {nbytes}, the blocks for the other "
                        "ranks if all blocks were equal")

    def _fitted_type_size(self, ctx, comm: CommDescriptor, spec, elements: sp.Expr) -> tuple[sp.Expr | None, str]:
        """The size of an array count's datatype when it is data (a subarray of sizes a function
        computed through pointers: Jacobi3D's scatter): the bytes per element the sending ranks sent,
        fitted like a trip count over the runs where they sent (at least two)."""
        samples = []
        for run, node in self._same_context(ctx):
            sending = sending_records(spec, _partnered(run, node, comm))
            calls = sum(rec.calls for rec in sending)
            values = self.values(run, 0)
            blocks = _number(_others_blocks(elements), values)
            if calls and blocks:
                samples.append((values, _rational(Fraction(sum(rec.bytes for rec in sending), calls) / Fraction(blocks))))
        if len(samples) < 2:
            return None, ""
        fitted, note = self._fit(samples)
        if fitted is None:
            return None, ""
        return fitted, f"; the size of {comm.datatype} is data: {samples[0][1]} bytes = {fitted}{note}"

    def _data_bytes(self, ctx, comm: CommDescriptor, resolver: Resolver, passed: bool = False
                    ) -> tuple[sp.Expr | None, str]:
        """Bytes of one call's block when its count is data, not an array (a buffer's length a
        packing function returned: CoMD's halo exchange sends the atoms it packed): the bytes per
        call, over the ranks that called it, fitted like a trip count over every run that holds
        this context.  ``passed``: the count is symbolic here (a parameter, ``sendLen``) but its
        caller passed data for it.  None when the count is symbolic (unless ``passed``) or absent,
        or no form fits."""
        spec = MPI_CALLS.get(comm.call)
        if spec is None or spec.count_sum is not None or comm.count is None:
            return None, ""
        reason = "its caller passed data for it"
        if not passed:
            try:
                to_sympy(comm.count, resolver)
                if comm.datatype is None or datatype_bytes(comm.datatype, resolver) is not None:
                    return None, ""
                reason = f"the size of datatype {comm.datatype} is data"
            except Unresolved as exc:
                reason = str(exc)
        samples = []
        for run, node in self._same_context(ctx):
            records = [rec for rec in _partnered(run, node, comm) if rec.calls]
            calls = sum(rec.calls for rec in records)
            if calls:
                samples.append((self.values(run, 0), _rational(Fraction(sum(rec.bytes for rec in records), calls))))
        if len(samples) < 2:
            return None, ""
        fitted, note = self._fit(samples)
        if fitted is None:
            return None, ""
        return fitted, (f"count {comm.count} is data ({reason}): its bytes per call {samples[0][1]} = {fitted}{note}")

    def _check_per_call(self, ctx, comm: CommDescriptor, per_call: tuple, bytes_tolerance: float) -> bool:
        """Whether the messages (exactly) and bytes (within ``bytes_tolerance``) of one call
        reproduce what each rank's calls sent on average, when the totals do not: the calls are
        then the block's, whose count the model fitted (a halo exchange in a loop that runs until
        it converges: its bytes were frozen at the training runs' per call, -36 % at 8x, though its
        count is the size), and the self-check holds that count to the runs.  Per-call values that
        hold a loop's variable are not checked (False)."""
        checked = False
        for r in range(self.run.nranks):
            records = ctx.mpi.get(r, {}).get(comm.id, [])
            calls = sum(rec.calls for rec in records)
            if not calls:
                continue
            counts = summed_messages(records)
            values = self.values(self.run, r)
            sent, nbytes = _number(per_call[0], values), _number(per_call[1], values)
            if sent is None or nbytes is None:
                return False
            if (abs(sent * calls - counts.sent) > 1e-6 * max(1.0, counts.sent)
                    or abs(nbytes * calls - counts.bytes_sent) > bytes_tolerance * max(1.0, counts.bytes_sent)):
                return False
            checked = True
        return checked

    def _check_comm(self, ctx, comm: CommDescriptor, result: tuple, bytes_tolerance: float = 1e-6) -> bool:
        """Whether the messages (exactly) and bytes (within ``bytes_tolerance``, relative)
        reproduce the run's, summed over ranks."""
        want_sent = want_bytes = got_sent = got_bytes = 0.0
        for r in range(self.run.nranks):
            counts = summed_messages(ctx.mpi.get(r, {}).get(comm.id, []))
            values = self.values(self.run, r)
            one_sent, one_bytes = _number(result[0], values), _number(result[1], values)
            if one_sent is None or one_bytes is None:
                return False
            want_sent, want_bytes = want_sent + counts.sent, want_bytes + counts.bytes_sent
            got_sent, got_bytes = got_sent + one_sent, got_bytes + one_bytes
        return (abs(got_sent - want_sent) <= 1e-6 * max(1.0, want_sent)
                and abs(got_bytes - want_bytes) <= bytes_tolerance * max(1.0, want_bytes))
