"""The error hierarchy of perfeq: one subclass per pipeline stage.

Errors carry a one-line message, ideally starting with ``file:line[:col]:``.  They are caught once,
in :func:`perfeq.cli.main`, and printed as ``perfeq: error: <message>``.  ``exit_status`` is 2 for
bad input (the user can fix it) and 1 for failures while doing the work.
"""

from __future__ import annotations


class PerfeqError(Exception):
    """Base class of every error perfeq reports to the user."""

    exit_status = 1

    def __init__(self, message: str, *, location: str | None = None):
        self.location = location
        super().__init__(f"{location}: {message}" if location else message)


class UsageError(PerfeqError):
    """Bad command-line arguments or input files the user gave."""

    exit_status = 2


class InstrumentError(PerfeqError):
    """The C source cannot be parsed or instrumented (``prog.c:17:9: ...``)."""

    exit_status = 2


class BuildError(PerfeqError):
    """Compiling or linking the instrumented program failed."""


class RunError(PerfeqError):
    """Running a program (instrumented or plain) failed."""


class TraceError(PerfeqError):
    """A trace file is malformed (``prog.trace:17: ...``)."""

    exit_status = 2


class ModelError(PerfeqError):
    """The symbolic model cannot be built or evaluated."""


class FitError(PerfeqError):
    """The regression of machine costs cannot be done (too few runs, empty columns, ...)."""

    exit_status = 2


class Interrupted(PerfeqError):
    """The user stopped the work (Ctrl-C); the message says what was kept and how to go on."""

    exit_status = 130


class RankError(PerfeqError):
    """Machine ranking from benchmark tables cannot be done."""

    exit_status = 2
