"""Every environment variable torch_fabmpi's Python side reads, in one place (see docs/torch.md)."""
import os

# Variables that say "a process manager with PMI started us": MPI_Init can then find its peers by itself.
PMI_MARKERS = ("PMI_RANK", "PMI_FD", "PMI_PORT", "PMIX_RANK", "OMPI_COMM_WORLD_RANK", "FABMPI_RANK")

# FABMPI_TORCH_AUTO_ENV=0 disables filling RANK/WORLD_SIZE/LOCAL_RANK/MASTER_ADDR/MASTER_PORT from MPI/PMI.
AUTO_ENV = os.environ.get("FABMPI_TORCH_AUTO_ENV", "1") != "0"


def launched_by_mpi():
    return any(k in os.environ for k in PMI_MARKERS)


def _first(*names):
    for n in names:
        v = os.environ.get(n)
        if v is not None and v != "":
            return v
    return None


def mpi_rank():
    return _first("FABMPI_RANK", "PMI_RANK", "PMIX_RANK", "OMPI_COMM_WORLD_RANK")


def mpi_size():
    return _first("FABMPI_SIZE", "PMI_SIZE", "OMPI_COMM_WORLD_SIZE")


def mpi_local_rank():
    return _first("MPI_LOCALRANKID", "OMPI_COMM_WORLD_LOCAL_RANK")


def mpi_local_size():
    return _first("MPI_LOCALNRANKS", "OMPI_COMM_WORLD_LOCAL_SIZE")


def env_int(name, default=-1):
    v = os.environ.get(name)
    try:
        return int(v) if v not in (None, "") else default
    except ValueError:
        return default
