"""torch_fabmpi: the "fabmpi" torch.distributed backend, over fabmpi or any MPICH-ABI MPI.

    import torch_fabmpi            # registers the backend
    dist.init_process_group("fabmpi")

Rank and world size come from torch's usual environment (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT), as set
by fabmpi's mpirun and by torchrun. Under a launcher that sets only PMI variables (MPICH's mpiexec.hydra,
Slurm), importing this module fills them in from PMI_RANK/PMI_SIZE (and MPI_LOCALRANKID/MPI_LOCALNRANKS) and,
when MASTER_ADDR/MASTER_PORT are missing, initialises MPI and broadcasts rank 0's host and a free port.
Without PMI (torchrun), MPI is bootstrapped through torch's store with fabmpi's MPIX_Init_with_store.
"""
import atexit
import os
import socket
from datetime import timedelta

import torch
import torch.distributed as dist

from . import _config
from . import _C

BACKEND = "fabmpi"
__all__ = ["BACKEND", "ProcessGroupFabmpi", "has_store_bootstrap", "mpi_library_version", "fill_env_from_mpi"]
ProcessGroupFabmpi = _C.ProcessGroupFabmpi


def has_store_bootstrap():
    """True when the MPI library provides MPIX_Init_with_store (fabmpi does; MPICH does not)."""
    return bool(_C.has_store_bootstrap())


def mpi_library_version():
    return _C.library_version()


def _free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("", 0))
        return s.getsockname()[1]


def fill_env_from_mpi():
    """Sets RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR and MASTER_PORT when a PMI launcher
    started us and they are missing. Setting MASTER_* initialises MPI (a broadcast on MPI_COMM_WORLD)."""
    if not _config.launched_by_mpi():
        return
    pairs = (("RANK", _config.mpi_rank()), ("WORLD_SIZE", _config.mpi_size()),
             ("LOCAL_RANK", _config.mpi_local_rank()), ("LOCAL_WORLD_SIZE", _config.mpi_local_size()))
    for name, value in pairs:
        if value is not None and not os.environ.get(name):
            os.environ[name] = value
    if os.environ.get("MASTER_ADDR") and os.environ.get("MASTER_PORT"):
        return
    if "RANK" not in os.environ or "WORLD_SIZE" not in os.environ:
        return
    _init_mpi(None, False, int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"]), timedelta(minutes=30))
    host = socket.gethostname()
    mine = f"{host} {_free_port()}" if _C.world_rank() == 0 else ""
    root_host, port = _C.bcast_string(mine, 0).split()
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1" if root_host == host else root_host)
    os.environ.setdefault("MASTER_PORT", port)


def _init_mpi(store, use_store, rank, size, timeout):
    _C.init_mpi(store, use_store, rank, size,
                local_rank=_config.env_int("LOCAL_RANK"),
                local_size=_config.env_int("LOCAL_WORLD_SIZE"),
                node_id=_config.env_int("GROUP_RANK"),
                timeout_ms=int(timeout.total_seconds() * 1000))


def _create(dist_backend_opts, pg_options=None):
    """Creator for Backend.register_backend(extended_api=True); called on group members only."""
    o = dist_backend_opts
    ranks = list(o.global_ranks_in_group or [])
    if not _C.initialized():
        use_store = o.group_size > 1 and not _config.launched_by_mpi()
        if use_store and not has_store_bootstrap():
            raise RuntimeError(
                "fabmpi: not started by an MPI launcher (no PMI_* variables) and the MPI library in use ("
                + _C.library_version().splitlines()[0].strip()
                + ") has no MPIX_Init_with_store to bootstrap through torch's store; launch with mpirun, "
                "or run on fabmpi's libmpi (docs/torch.md)")
        _init_mpi(o.store, use_store, o.group_rank, o.group_size, o.timeout)
    timeout_ms = int(o.timeout.total_seconds() * 1000)
    return _C.create_group(o.group_rank, o.group_size, ranks, timeout_ms, str(o.group_id))


def _register():
    if BACKEND.upper() in getattr(dist.Backend, "_plugins", {}):
        return
    if int(torch.__version__.split(".")[0]) >= 2:
        # CUDA tensors are staged through pinned host memory by the backend (docs/torch.md)
        dist.Backend.register_backend(BACKEND, _create, extended_api=True, devices=["cpu", "cuda"])
    else:
        dist.Backend.register_backend(BACKEND, _create, extended_api=True)


_register()
if _config.AUTO_ENV:
    fill_env_from_mpi()
atexit.register(_C.shutdown)
