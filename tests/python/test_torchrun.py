"""torchrun (no PMI): needs fabmpi's MPIX_Init_with_store; without it the error must say so, not hang."""
import os
import socket
import subprocess
import sys
import textwrap

import pytest
import torch.distributed as dist

import torch_fabmpi
from conftest import ensure_world

HERE = os.path.dirname(os.path.abspath(__file__))
PYDIR = os.path.join(HERE, "..", "..", "python")

SCRIPT = textwrap.dedent("""
    import torch, torch.distributed as dist, torch_fabmpi
    dist.init_process_group("fabmpi")
    t = torch.tensor([float(dist.get_rank())])
    dist.all_reduce(t)
    assert t.item() == sum(range(dist.get_world_size())), t
    print("TORCHRUN_OK", dist.get_rank(), flush=True)
    dist.destroy_process_group()
""")


# MPI_COMM_WORLD's split contacts only some pairs; fabmpi looks a peer's address up in the store on first
# contact, so pairs that first talk after the default group (and torch's reference to its store) is gone
# check that the store adapter outlives it (MPIX_Init_with_store: callbacks valid until MPI_Finalize).
LATE_CONTACT_SCRIPT = textwrap.dedent("""
    import gc, sys, torch, torch.distributed as dist, torch_fabmpi
    dist.init_process_group("fabmpi")
    rank, w = dist.get_rank(), dist.get_world_size()
    assert torch_fabmpi._C.bootstrap() == "store", torch_fabmpi._C.bootstrap()
    dist.destroy_process_group()
    gc.collect()
    dist.init_process_group("fabmpi", store=dist.FileStore(sys.argv[1], w), rank=rank, world_size=w)
    for step in range(1, w):  # every pair, in both directions
        to, frm = (rank + step) % w, (rank - step) % w
        out = torch.zeros(1)
        reqs = [dist.isend(torch.tensor([float(rank * 100 + to)]), to), dist.irecv(out, frm)]
        for q in reqs:
            q.wait()
        assert out.item() == frm * 100 + rank, (step, out)
    print("LATE_CONTACT_OK", rank, flush=True)
    dist.destroy_process_group()
""")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_torchrun(tmp_path, nproc, text=SCRIPT, args=()):
    script = tmp_path / "train.py"
    script.write_text(text)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PMI_", "PMIX_", "MPI_LOCAL", "HYDRA_", "OMPI_", "FABMPI_RANK", "FABMPI_SIZE"))
           and k not in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT")}
    env["PYTHONPATH"] = PYDIR + os.pathsep + env.get("PYTHONPATH", "")
    cmd = [sys.executable, "-m", "torch.distributed.run", "--redirects", "1", "--tee", "1",
           f"--nproc_per_node={nproc}", f"--master_port={free_port()}", str(script), *args]
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)


def only_single_rank():
    rank, w = ensure_world()
    if w != 1:
        pytest.skip("spawns its own processes; run once, in the 1-rank pass")


def test_torchrun_store_bootstrap(tmp_path):
    only_single_rank()
    if not torch_fabmpi.has_store_bootstrap():
        pytest.skip("MPI library lacks MPIX_Init_with_store (fabmpi extension): " +
                    torch_fabmpi.mpi_library_version().splitlines()[0])
    r = run_torchrun(tmp_path, 2)
    assert r.returncode == 0, r.stdout + r.stderr
    assert (r.stdout + r.stderr).count("TORCHRUN_OK") >= 2


def test_torchrun_first_contact_after_destroy(tmp_path):
    only_single_rank()
    if not torch_fabmpi.has_store_bootstrap():
        pytest.skip("MPI library lacks MPIX_Init_with_store (fabmpi extension)")
    r = run_torchrun(tmp_path, 4, LATE_CONTACT_SCRIPT, [str(tmp_path / "filestore")])
    assert r.returncode == 0, r.stdout + r.stderr
    assert (r.stdout + r.stderr).count("LATE_CONTACT_OK") == 4, r.stdout + r.stderr


def test_torchrun_without_extension_fails_clearly(tmp_path):
    only_single_rank()
    if torch_fabmpi.has_store_bootstrap():
        pytest.skip("the MPI library has the store bootstrap")
    r = run_torchrun(tmp_path, 2)
    assert r.returncode != 0
    assert "MPIX_Init_with_store" in r.stdout + r.stderr
