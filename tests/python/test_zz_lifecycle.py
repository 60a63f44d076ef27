"""destroy_process_group, then a fresh default group in the same processes (runs last: file name)."""
import os
from datetime import timedelta

import torch
import torch.distributed as dist

from conftest import ensure_world


def test_destroy_and_reinit():
    rank, w = ensure_world()
    dist.destroy_process_group()
    assert not dist.is_initialized()
    # env:// would reuse MASTER_PORT while rank 0's old TCPStore may still be closing; a FileStore avoids that
    path = f"/tmp/torch_fabmpi_reinit_{os.environ.get('MASTER_PORT', 'x')}_{w}"
    store = dist.FileStore(path, w)
    dist.init_process_group("fabmpi", store=store, rank=rank, world_size=w, timeout=timedelta(seconds=60))
    t = torch.tensor([1.0])
    dist.all_reduce(t)
    assert t.item() == w
    g = dist.new_group(list(range(w)))
    dist.all_reduce(t, group=g)
    assert t.item() == w * w
    dist.destroy_process_group()
    if rank == 0:
        try:
            os.unlink(path)
        except OSError:
            pass
