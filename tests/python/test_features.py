"""The issue's seed examples, uneven sizes, coalesced ops, p2p, async work, errors, groups, objects, timeouts."""
import os
import time
from datetime import timedelta

import pytest
import torch
import torch.distributed as dist

from conftest import ensure_world

TORCH_MAJOR = int(torch.__version__.split(".")[0])


def need(n):
    rank, w = ensure_world()
    if w < n:
        pytest.skip(f"needs {n} ranks")
    return rank, w


# ----------------------------------------------------------------------------- seed examples (4 ranks)

def test_seed_broadcast_3x3():
    rank, w = need(2)
    t = torch.arange(9, dtype=torch.float32).reshape(3, 3) if rank == 0 else torch.zeros(3, 3)
    dist.broadcast(t, 0)
    assert torch.equal(t, torch.arange(9, dtype=torch.float32).reshape(3, 3))


def test_seed_gather():
    rank, w = need(2)
    t = torch.tensor([float(rank * w + i) for i in range(w)])
    outs = [torch.zeros(w) for _ in range(w)] if rank == 0 else None
    dist.gather(t, outs, dst=0)
    if rank == 0:
        assert [o.tolist() for o in outs] == [[float(r * w + i) for i in range(w)] for r in range(w)]
        if w == 4:
            assert outs[3].tolist() == [12.0, 13.0, 14.0, 15.0]


def test_seed_reduce_sum_to_1():
    rank, w = need(2)
    t = torch.tensor([float(rank)])  # local_rank == rank on one node
    dist.reduce(t, dst=1, op=dist.ReduceOp.SUM)
    if rank == 1:
        assert t.item() == sum(range(w))  # 6 at 4 ranks


def test_seed_scatter():
    rank, w = need(2)
    ins = [torch.tensor([float(i)]) for i in range(w)] if rank == 0 else None
    out = torch.zeros(1)
    dist.scatter(out, ins, src=0)
    assert out.item() == float(rank)


def test_seed_all_reduce():
    rank, w = ensure_world()
    t = torch.tensor([float(rank)])
    dist.all_reduce(t)
    assert t.item() == sum(range(w))


def test_seed_all_gather():
    rank, w = ensure_world()
    outs = [torch.zeros(1) for _ in range(w)]
    dist.all_gather(outs, torch.tensor([float(rank)]))
    assert [o.item() for o in outs] == [float(r) for r in range(w)]


def test_seed_reduce_scatter():
    rank, w = ensure_world()
    ins = [torch.full((2,), float(rank * 10 + i)) for i in range(w)]
    out = torch.zeros(2)
    dist.reduce_scatter(out, ins)
    assert out.tolist() == [float(sum(r * 10 + rank for r in range(w)))] * 2  # 60+4*rank at 4 ranks


def test_seed_all_to_all():
    rank, w = ensure_world()
    ins = [torch.full((2,), float(rank * 10 + i)) for i in range(w)]
    outs = [torch.zeros(2) for _ in range(w)]
    dist.all_to_all(outs, ins)
    assert [o.tolist() for o in outs] == [[float(r * 10 + rank)] * 2 for r in range(w)]


# ----------------------------------------------------------------------------- uneven sizes

def test_uneven_all_gather():
    rank, w = ensure_world()
    outs = [torch.zeros(r + 1) for r in range(w)]
    dist.all_gather(outs, torch.full((rank + 1,), float(rank)))
    for r in range(w):
        assert torch.equal(outs[r], torch.full((r + 1,), float(r)))


def test_uneven_gather_scatter():
    rank, w = ensure_world()
    outs = [torch.zeros(r + 2) for r in range(w)] if rank == 0 else None
    dist.gather(torch.full((rank + 2,), float(rank)), outs, dst=0)
    if rank == 0:
        for r in range(w):
            assert torch.equal(outs[r], torch.full((r + 2,), float(r)))
    ins = [torch.arange(r + 1, dtype=torch.float64) for r in range(w)] if rank == 0 else None
    out = torch.zeros(rank + 1, dtype=torch.float64)
    dist.scatter(out, ins, src=0)
    assert torch.equal(out, torch.arange(rank + 1, dtype=torch.float64))


def test_uneven_reduce_scatter():
    rank, w = ensure_world()
    ins = [torch.ones(i + 1) * (rank + 1) for i in range(w)]
    out = torch.zeros(rank + 1)
    dist.reduce_scatter(out, ins)
    assert torch.equal(out, torch.full((rank + 1,), float(w * (w + 1) // 2)))


def test_all_to_all_single_splits():
    rank, w = ensure_world()
    # rank r sends (j + 1) rows to rank j; each row has 2 elements whose value encodes (sender, receiver)
    in_splits = [j + 1 for j in range(w)]
    inp = torch.cat([torch.full((j + 1, 2), float(rank * 100 + j)) for j in range(w)])
    out_splits = [rank + 1] * w
    out = torch.zeros(sum(out_splits), 2)
    dist.all_to_all_single(out, inp, out_splits, in_splits)
    assert torch.equal(out, torch.cat([torch.full((rank + 1, 2), float(r * 100 + rank)) for r in range(w)]))


# ----------------------------------------------------------------------------- coalesced, non-contiguous

def test_all_reduce_coalesced():
    rank, w = ensure_world()
    ts = [torch.full((2, 2), float(rank)), torch.full((3,), float(rank + 1))]
    dist.all_reduce_coalesced(ts)
    assert torch.equal(ts[0], torch.full((2, 2), float(sum(range(w)))))
    assert torch.equal(ts[1], torch.full((3,), float(sum(range(1, w + 1)))))


def test_all_gather_coalesced():
    rank, w = ensure_world()
    ins = [torch.full((2,), float(rank)), torch.full((1, 3), float(-rank))]
    outs = [[torch.zeros(2), torch.zeros(1, 3)] for _ in range(w)]
    # torch 1.13 warns that the API is experimental (UserWarning), 2.x that it is deprecated (FutureWarning)
    with pytest.warns((UserWarning, FutureWarning)):
        dist.all_gather_coalesced(outs, ins)
    for r in range(w):
        assert torch.equal(outs[r][0], torch.full((2,), float(r)))
        assert torch.equal(outs[r][1], torch.full((1, 3), float(-r)))


def test_coalesced_tensor_forms():
    rank, w = ensure_world()
    pg = dist.distributed_c10d._get_default_group()
    if TORCH_MAJOR >= 2:  # the default group wraps the backend; these are the backend's own methods
        pg = pg._get_backend(torch.device("cpu"))
    ins = [torch.full((2,), float(rank)), torch.full((3,), float(rank + 1))]
    outs = [torch.zeros(2 * w), torch.zeros(3 * w)]
    pg.allgather_into_tensor_coalesced(outs, ins).wait()
    assert torch.equal(outs[0], torch.arange(w, dtype=torch.float32).repeat_interleave(2))
    rs_out = [torch.zeros(2)]
    pg.reduce_scatter_tensor_coalesced(rs_out, [torch.ones(2 * w)], dist.ReduceOp.SUM).wait()
    assert torch.equal(rs_out[0], torch.full((2,), float(w)))


@pytest.mark.skipif(not hasattr(dist, "_coalescing_manager") or TORCH_MAJOR < 2,
                    reason="torch 2.x's coalescing manager calls the backend's coalesced virtuals")
def test_coalescing_manager():
    rank, w = ensure_world()
    outs = [torch.zeros(2 * w), torch.zeros(3 * w, dtype=torch.float64)]
    with dist._coalescing_manager():
        dist.all_gather_into_tensor(outs[0], torch.full((2,), float(rank)))
        dist.all_gather_into_tensor(outs[1], torch.full((3,), float(-rank), dtype=torch.float64))
    assert torch.equal(outs[0], torch.arange(w, dtype=torch.float32).repeat_interleave(2))
    assert torch.equal(outs[1], -torch.arange(w, dtype=torch.float64).repeat_interleave(3))
    rs = [torch.zeros(2), torch.zeros(1)]
    with dist._coalescing_manager():
        dist.reduce_scatter_tensor(rs[0], torch.arange(2 * w, dtype=torch.float32))
        dist.reduce_scatter_tensor(rs[1], torch.ones(w))
    assert torch.equal(rs[0], torch.arange(2 * rank, 2 * rank + 2, dtype=torch.float32) * w)
    assert torch.equal(rs[1], torch.full((1,), float(w)))


def test_non_contiguous():
    rank, w = ensure_world()
    base = torch.arange(12, dtype=torch.float32).reshape(3, 4) + rank
    t = base.t()  # 4x3 view, not contiguous
    assert not t.is_contiguous()
    dist.all_reduce(t)
    assert torch.equal(base, (torch.arange(12, dtype=torch.float32).reshape(3, 4) * w + sum(range(w))))
    outs = [torch.zeros(3, 2).t() for _ in range(w)]
    dist.all_gather(outs, torch.full((3, 2), float(rank)).t())
    for r in range(w):
        assert torch.equal(outs[r], torch.full((2, 3), float(r)))
    b = torch.zeros(4, 4)[:, 1]
    if rank == 0:
        b.fill_(5.0)
    dist.broadcast(b, 0)
    assert torch.equal(b, torch.full((4,), 5.0))


# ----------------------------------------------------------------------------- p2p and async work

def test_recv_any_source():
    rank, w = need(2)
    if rank == 0:
        seen = set()
        for _ in range(w - 1):
            t = torch.zeros(1)
            src = dist.recv(t)
            assert t.item() == float(src) * 3
            seen.add(src)
        assert seen == set(range(1, w))
    else:
        dist.send(torch.tensor([float(rank) * 3]), 0)


def test_async_work_and_future():
    rank, w = ensure_world()
    t = torch.ones(1000)
    work = dist.all_reduce(t, async_op=True)
    fut = work.get_future()
    work.wait()
    assert work.is_completed() and work.is_success()
    assert torch.equal(fut.wait()[0], torch.full((1000,), float(w)))
    assert torch.equal(t, torch.full((1000,), float(w)))
    # several in flight at once, waited in reverse order
    ts = [torch.full((10,), float(i)) for i in range(5)]
    works = [dist.all_reduce(x, async_op=True) for x in ts]
    for wk in reversed(works):
        wk.wait()
    for i, x in enumerate(ts):
        assert torch.equal(x, torch.full((10,), float(i * w)))
    bw = dist.barrier(async_op=True)
    bw.wait()


def test_future_then():
    rank, w = ensure_world()
    t = torch.ones(4)
    fut = dist.all_reduce(t, async_op=True).get_future().then(lambda f: f.value()[0] * 2)
    assert torch.equal(fut.wait(), torch.full((4,), 2.0 * w))


# ----------------------------------------------------------------------------- errors

def test_error_dtype_mismatch():
    rank, w = ensure_world()
    pg = dist.distributed_c10d._get_default_group()  # torch's Python layer checks this too; test ours
    with pytest.raises(TypeError, match="fabmpi: allgather: dtype mismatch"):
        pg.allgather([[torch.zeros(2, dtype=torch.int32) for _ in range(w)]], [torch.zeros(2)])


def test_error_size_mismatch():
    rank, w = ensure_world()
    with pytest.raises(ValueError, match="fabmpi: _allgather_base"):
        dist.all_gather_into_tensor(torch.zeros(w * 2 + 1), torch.zeros(2))
    with pytest.raises(ValueError, match="fabmpi: allgather"):
        dist.all_gather([torch.zeros(3) for _ in range(w)], torch.zeros(2))


def test_error_unsupported_dtype_and_device():
    rank, w = ensure_world()
    q = torch.quantize_per_tensor(torch.zeros(2), 0.1, 0, torch.qint8)
    if TORCH_MAJOR >= 2:
        # torch 2.x dispatches on the tensor's backend first: quantized and sparse CPU tensors reach the
        # backend's allreduce_sparse or no kernel at all; either way the error names what was refused
        with pytest.raises((RuntimeError, TypeError), match="(?i)quantized|QInt8"):
            dist.broadcast(q, 0)
        with pytest.raises((RuntimeError, TypeError), match="(?i)sparse"):
            dist.all_reduce(torch.zeros(2).to_sparse())
        return
    with pytest.raises(TypeError, match="fabmpi: broadcast: unsupported dtype QInt8"):
        dist.broadcast(q, 0)
    with pytest.raises(RuntimeError, match="fabmpi: allreduce: sparse tensors are not supported"):
        dist.all_reduce(torch.zeros(2).to_sparse())


def test_error_int_avg():
    rank, w = ensure_world()
    with pytest.raises(TypeError, match="AVG is not supported for Long"):
        dist.all_reduce(torch.ones(2, dtype=torch.int64), op=dist.ReduceOp.AVG)


# ----------------------------------------------------------------------------- groups

def test_new_group_overlapping_concurrent():
    rank, w = ensure_world()
    a_ranks = list(range(0, max(1, w - 1)))          # [0 .. w-2]
    b_ranks = list(range(min(1, w - 1), w))          # [1 .. w-1]
    ga = dist.new_group(a_ranks)
    gb = dist.new_group(b_ranks)
    works, ts = [], {}
    if rank in a_ranks:
        ts["a"] = torch.tensor([float(rank + 1)])
        works.append(dist.all_reduce(ts["a"], group=ga, async_op=True))
    if rank in b_ranks:
        ts["b"] = torch.tensor([float(10 * (rank + 1))])
        works.append(dist.all_reduce(ts["b"], group=gb, async_op=True))
    for wk in works:
        wk.wait()
    if "a" in ts:
        assert ts["a"].item() == sum(r + 1 for r in a_ranks)
    if "b" in ts:
        assert ts["b"].item() == sum(10 * (r + 1) for r in b_ranks)
    # group-relative ranks and p2p inside a group
    if rank in b_ranks and len(b_ranks) >= 2:
        assert dist.get_rank(gb) == b_ranks.index(rank)
        outs = [torch.zeros(1) for _ in b_ranks]
        dist.all_gather(outs, torch.tensor([float(rank)]), group=gb)
        assert [o.item() for o in outs] == [float(r) for r in b_ranks]
    dist.barrier()
    dist.destroy_process_group(ga)
    dist.destroy_process_group(gb)


def test_new_group_singletons_and_non_members():
    rank, w = ensure_world()
    groups = [dist.new_group([r]) for r in range(w)]  # every rank creates all, only members build comms
    t = torch.tensor([float(rank)])
    dist.all_reduce(t, group=groups[rank])
    assert t.item() == float(rank)
    assert dist.get_world_size(groups[rank]) == 1
    dist.barrier()


# ----------------------------------------------------------------------------- objects

def test_object_collectives():
    rank, w = ensure_world()
    obj = {"rank": rank, "payload": "x" * (rank * 7)}
    gathered = [None] * w
    dist.all_gather_object(gathered, obj)
    assert gathered == [{"rank": r, "payload": "x" * (r * 7)} for r in range(w)]
    lst = [{"a": 1}, [2, 3], "four"] if rank == 0 else [None, None, None]
    dist.broadcast_object_list(lst, src=0)
    assert lst == [{"a": 1}, [2, 3], "four"]
    out = [None] * w if rank == 0 else None
    dist.gather_object(("g", rank), out, dst=0)
    if rank == 0:
        assert out == [("g", r) for r in range(w)]
    recv = [None]
    dist.scatter_object_list(recv, [f"s{r}" * (r + 1) for r in range(w)] if rank == 0 else None, src=0)
    assert recv[0] == f"s{rank}" * (rank + 1)


# ----------------------------------------------------------------------------- timeouts

def test_timeout_recv_raises():
    rank, w = ensure_world()
    g = dist.new_group(list(range(w)), timeout=timedelta(seconds=1.5))
    if rank == 0:
        t0 = time.monotonic()
        with pytest.raises(RuntimeError, match="fabmpi: recv.*timed out"):
            dist.recv(torch.zeros(1), src=w - 1, group=g)  # nobody sends
        assert time.monotonic() - t0 < 30
    dist.barrier()
    dist.destroy_process_group(g)


def test_timeout_collective_raises_then_peers_catch_up():
    rank, w = need(2)
    g = dist.new_group([0, 1], timeout=timedelta(seconds=1.5))
    if rank == 0:
        with pytest.raises(RuntimeError, match="fabmpi: allreduce: timed out"):
            dist.all_reduce(torch.ones(1), group=g)
        with pytest.raises(RuntimeError, match="can no longer run collectives"):
            dist.all_reduce(torch.ones(1), group=g)
    elif rank == 1:
        time.sleep(3.0)  # joins late, so rank 0's abandoned allreduce can still complete underneath
        dist.all_reduce(torch.ones(1), group=g)
    dist.barrier()


def test_wait_with_timeout_argument():
    rank, w = need(2)
    if rank == 0:
        work = dist.irecv(torch.zeros(1), src=1)
        with pytest.raises(RuntimeError, match="wait\\(\\) timed out"):
            work.wait(timeout=timedelta(milliseconds=200))
        dist.barrier()
        work.wait()
    else:
        dist.barrier()
        if rank == 1:
            dist.send(torch.ones(1), 0)


# ----------------------------------------------------------------------------- how MPI was started

def test_bootstrap_and_half_types():
    """The path actually taken: store bootstrap under torchrun, PMI under an MPI launcher; native MPIX half
    types on fabmpi unless FABMPI_TORCH_NATIVE_HALF says otherwise (run.sh runs the half tests both ways)."""
    import torch_fabmpi
    from torch_fabmpi import _C, _config
    rank, w = ensure_world()
    assert _C.world_size() == w
    expected = "store" if w > 1 and not _config.launched_by_mpi() else "init"
    assert _C.bootstrap() == expected
    setting = os.environ.get("FABMPI_TORCH_NATIVE_HALF", "auto") or "auto"
    on_fabmpi = torch_fabmpi.mpi_library_version().startswith("fabmpi")
    if setting == "auto":
        native = {"float16": on_fabmpi, "bfloat16": on_fabmpi}
    else:
        toks = setting.split(",")
        native = {"float16": bool({"all", "f16", "fp16", "float16"} & set(toks)),
                  "bfloat16": bool({"all", "bf16", "bfloat16"} & set(toks))}
    got = _C.half_types()
    assert got == {k: ("MPIX_C_FLOAT16" if k == "float16" else "MPIX_BFLOAT16") if v else "user op"
                   for k, v in native.items()}
