"""perfeq.runtime.probes: the machine probes of ``perfeq probe`` (MAPS- and PMB-like, Snavely et al.).

Small C/MPI programs shipped as package data (``probe.h``, ``memory.c``, ``compute.c``,
``network.c``), compiled with the user's ``mpicc`` (``build``); what to run and with which
arguments (``plan``); their JSON lines read into curves with medians and spreads (``curves``); and
the versioned file of the results, ``perfeq-probes`` (``document``, docs/probes.md).  Launching the
programs and plotting their curves are the workflow's and the analysis room's.
"""
