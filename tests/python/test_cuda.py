"""CUDA tensors through fabmpi (staged through pinned host memory); skipped where torch has no GPU.

Every rank uses the same GPU (cuda:LOCAL_RANK modulo the device count), so one GPU runs the whole suite.
"""
import os

import pytest
import torch
import torch.distributed as dist
import torch.nn as nn

from conftest import ensure_world

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="torch sees no CUDA device")


def world_on_gpu():
    rank, w = ensure_world()
    local = int(os.environ.get("LOCAL_RANK", os.environ.get("FABMPI_LOCAL_RANK", rank)))
    torch.cuda.set_device(local % torch.cuda.device_count())
    return rank, w, torch.device("cuda", torch.cuda.current_device())


def need(n):
    rank, w, dev = world_on_gpu()
    if w < n:
        pytest.skip(f"needs {n} ranks")
    return rank, w, dev


def test_all_reduce_sum_avg_max():
    rank, w, dev = world_on_gpu()
    t = torch.arange(1000, dtype=torch.float32, device=dev) + rank
    dist.all_reduce(t)
    assert t.device == dev
    assert torch.equal(t.cpu(), torch.arange(1000, dtype=torch.float32) * w + w * (w - 1) / 2)
    t = torch.full((7,), float(rank), device=dev, dtype=torch.float64)
    dist.all_reduce(t, op=dist.ReduceOp.AVG)
    assert torch.allclose(t.cpu(), torch.full((7,), (w - 1) / 2, dtype=torch.float64))
    t = torch.tensor([rank, -rank], device=dev, dtype=torch.int64)
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    assert t.tolist() == [w - 1, 0]


def test_broadcast_and_reduce():
    rank, w, dev = world_on_gpu()
    t = torch.arange(12, device=dev, dtype=torch.float16).reshape(3, 4) if rank == 0 else \
        torch.zeros(3, 4, device=dev, dtype=torch.float16)
    dist.broadcast(t, 0)
    assert torch.equal(t.cpu(), torch.arange(12, dtype=torch.float16).reshape(3, 4))
    r = torch.full((5,), float(rank + 1), device=dev)
    dist.reduce(r, dst=w - 1)
    if rank == w - 1:
        assert torch.equal(r.cpu(), torch.full((5,), w * (w + 1) / 2))


def test_all_gather_forms():
    rank, w, dev = world_on_gpu()
    outs = [torch.zeros(3, device=dev) for _ in range(w)]
    dist.all_gather(outs, torch.full((3,), float(rank), device=dev))
    for r, o in enumerate(outs):
        assert torch.equal(o.cpu(), torch.full((3,), float(r)))
    flat = torch.empty(2 * w, device=dev, dtype=torch.bfloat16)
    dist.all_gather_into_tensor(flat, torch.full((2,), float(rank), device=dev, dtype=torch.bfloat16))
    assert flat.cpu().tolist() == [float(r) for r in range(w) for _ in range(2)]


def test_reduce_scatter_tensor():
    rank, w, dev = world_on_gpu()
    inp = torch.arange(4 * w, dtype=torch.float32, device=dev) * (rank + 1)
    out = torch.empty(4, device=dev)
    dist.reduce_scatter_tensor(out, inp)
    expect = torch.arange(4 * w, dtype=torch.float32)[4 * rank:4 * rank + 4] * (w * (w + 1) / 2)
    assert torch.equal(out.cpu(), expect)


def test_all_to_all_single_uneven():
    rank, w, dev = world_on_gpu()
    # rank r sends (d + 1) rows of value 100 r + d to rank d
    in_splits = [d + 1 for d in range(w)]
    inp = torch.cat([torch.full((d + 1, 2), 100.0 * rank + d) for d in range(w)]).to(dev)
    out_splits = [rank + 1] * w
    out = torch.empty(sum(out_splits), 2, device=dev)
    dist.all_to_all_single(out, inp, out_splits, in_splits)
    expect = torch.cat([torch.full((rank + 1, 2), 100.0 * s + rank) for s in range(w)])
    assert torch.equal(out.cpu(), expect)


def test_gather_scatter():
    rank, w, dev = world_on_gpu()
    got = [torch.zeros(2, device=dev) for _ in range(w)] if rank == 0 else None
    dist.gather(torch.full((2,), float(rank), device=dev), got, dst=0)
    if rank == 0:
        assert [g.cpu().tolist() for g in got] == [[float(r)] * 2 for r in range(w)]
    out = torch.zeros(3, device=dev, dtype=torch.int32)
    src = [torch.full((3,), r * 10, dtype=torch.int32, device=dev) for r in range(w)] if rank == 0 else None
    dist.scatter(out, src, src=0)
    assert out.cpu().tolist() == [rank * 10] * 3


def test_send_recv():
    rank, w, dev = need(2)
    if rank == 0:
        dist.send(torch.arange(100, dtype=torch.float32, device=dev), 1, tag=7)
    elif rank == 1:
        t = torch.zeros(100, device=dev)
        dist.recv(t, 0, tag=7)
        assert torch.equal(t.cpu(), torch.arange(100, dtype=torch.float32))


def test_non_contiguous_and_mixed_devices():
    rank, w, dev = world_on_gpu()
    base = torch.arange(12, dtype=torch.float32, device=dev).reshape(3, 4) + rank
    t = base.t()
    assert not t.is_contiguous()
    dist.all_reduce(t)
    assert torch.equal(base.cpu(), torch.arange(12, dtype=torch.float32).reshape(3, 4) * w + w * (w - 1) / 2)
    # CPU input, outputs alternating between the GPU and the host
    outs = [torch.zeros(2, device=dev if r % 2 == 0 else "cpu") for r in range(w)]
    dist.all_gather(outs, torch.full((2,), float(rank)))
    for r, o in enumerate(outs):
        assert o.device == (dev if r % 2 == 0 else torch.device("cpu"))
        assert o.cpu().tolist() == [float(r)] * 2


def test_side_stream_ordering():
    """A collective issued on a side stream sees that stream's earlier kernels; its result is there after wait."""
    rank, w, dev = world_on_gpu()
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        big = torch.ones(1 << 20, device=dev)
        for _ in range(20):  # queued work the staging copy must wait for
            big.mul_(1.0).add_(0.0)
        big.mul_(rank + 1)
        work = dist.all_reduce(big, async_op=True)
        work.wait()
        total = big.sum()
    s.synchronize()
    assert total.item() == (1 << 20) * w * (w + 1) / 2


def test_async_future_then():
    rank, w, dev = world_on_gpu()
    t = torch.full((4,), float(rank), device=dev)
    fut = dist.all_reduce(t, async_op=True).get_future()
    doubled = fut.then(lambda f: f.value()[0] * 2)
    res = doubled.wait()
    assert res.device == dev
    assert res.cpu().tolist() == [float(w * (w - 1))] * 4


def train_shard_on(model, rank, w, dev):
    """test_train.train_shard with the batches moved to the GPU."""
    from test_train import STEPS, PER_RANK, LR, batch
    opt = torch.optim.SGD(model.parameters(), lr=LR)
    for s in range(STEPS):
        x, y = batch(s, w)
        sl = slice(rank * PER_RANK, (rank + 1) * PER_RANK)
        opt.zero_grad()
        nn.functional.mse_loss(model(x[sl].to(dev)), y[sl].to(dev)).backward()
        opt.step()


def test_ddp_cuda_matches_single_process():
    from test_train import make_model, reference
    rank, w, dev = world_on_gpu()
    model = nn.parallel.DistributedDataParallel(make_model().to(dev), device_ids=[dev.index])
    train_shard_on(model, rank, w, dev)
    for p, q in zip(model.module.parameters(), reference(w)):
        assert torch.allclose(p.detach().cpu(), q, atol=1e-5, rtol=0), (p.cpu() - q).abs().max()


def test_fsdp_cuda_matches_single_process():
    from test_train import make_model, reference
    from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
    rank, w, dev = world_on_gpu()
    model = FSDP(make_model().to(dev), device_id=dev)
    train_shard_on(model, rank, w, dev)
    with FSDP.summon_full_params(model):
        got = torch.cat([p.detach().flatten().cpu() for p in model.parameters()])
    want = torch.cat([q.flatten() for q in reference(w)])
    assert torch.allclose(got, want, atol=1e-5, rtol=0), (got - want).abs().max()
