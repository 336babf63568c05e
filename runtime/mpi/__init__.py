"""perfeq.runtime.mpi: the MPI call table (``calls``) and the generator of the PMPI wrappers (``wrappers``)."""
