"""Every op x every dtype x every reduce op, checked against values computed locally for all ranks."""
import functools

import pytest
import torch
import torch.distributed as dist

from conftest import ensure_world

R = dist.ReduceOp
DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int8, torch.uint8, torch.int16,
          torch.int32, torch.int64, torch.bool]
OPS = {"SUM": R.SUM, "PRODUCT": R.PRODUCT, "MIN": R.MIN, "MAX": R.MAX, "AVG": R.AVG, "BAND": R.BAND,
       "BOR": R.BOR, "BXOR": R.BXOR}
FLOATS = (torch.float32, torch.float64, torch.float16, torch.bfloat16)


def supported(dtype, op):
    if op == "AVG":
        return dtype in FLOATS
    if op in ("BAND", "BOR", "BXOR"):
        return dtype not in FLOATS
    return True


def data(rank, n, dtype, op):
    """Rank `rank`'s input of n elements: small values so every reduction is exact in every dtype."""
    i = torch.arange(n)
    if dtype == torch.bool:
        return ((i + rank) % 3 == 0)
    if op == "PRODUCT":
        v = 1 + (i + rank) % 2  # 1 or 2: at most 2**4
    elif op in ("BAND", "BOR", "BXOR"):
        v = (i * 7 + rank * 5) % 16
    else:
        v = (i + 3 * rank) % 7 + 1
    return v.to(dtype)


def ref_reduce(tensors, op):
    dtype = tensors[0].dtype
    if dtype == torch.bool:
        if op in ("SUM", "MAX", "BOR"):
            return functools.reduce(torch.logical_or, tensors)
        if op in ("PRODUCT", "MIN", "BAND"):
            return functools.reduce(torch.logical_and, tensors)
        return functools.reduce(torch.logical_xor, tensors)
    wide = [t.to(torch.float64) if dtype in FLOATS else t.to(torch.int64) for t in tensors]
    s = torch.stack(wide)
    if op == "SUM":
        out = s.sum(0)
    elif op == "AVG":
        out = s.sum(0) / len(tensors)
    elif op == "PRODUCT":
        out = s.prod(0)
    elif op == "MIN":
        out = s.min(0).values
    elif op == "MAX":
        out = s.max(0).values
    elif op == "BAND":
        out = functools.reduce(torch.bitwise_and, wide)
    elif op == "BOR":
        out = functools.reduce(torch.bitwise_or, wide)
    else:
        out = functools.reduce(torch.bitwise_xor, wide)
    return out.to(dtype)


def close(a, b):
    if a.dtype in (torch.float16, torch.bfloat16):
        return torch.allclose(a.float(), b.float(), rtol=1e-2, atol=1e-2)
    if a.dtype in FLOATS:
        return torch.allclose(a, b)
    return torch.equal(a, b)


def expect_unsupported(fn, opname):
    with pytest.raises((TypeError, RuntimeError, ValueError)) as e:
        fn()
    assert "fabmpi" in str(e.value) and opname in str(e.value)


@pytest.mark.parametrize("op", list(OPS))
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_all_reduce(dtype, op):
    rank, w = ensure_world()
    t = data(rank, 5, dtype, op)
    if not supported(dtype, op):
        return expect_unsupported(lambda: dist.all_reduce(t, OPS[op]), "allreduce")
    dist.all_reduce(t, OPS[op])
    assert close(t, ref_reduce([data(r, 5, dtype, op) for r in range(w)], op))


@pytest.mark.parametrize("op", list(OPS))
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_reduce(dtype, op):
    rank, w = ensure_world()
    dst = w - 1
    t = data(rank, 4, dtype, op)
    if not supported(dtype, op):
        return expect_unsupported(lambda: dist.reduce(t, dst, OPS[op]), "reduce")
    dist.reduce(t, dst, OPS[op])
    if rank == dst:
        assert close(t, ref_reduce([data(r, 4, dtype, op) for r in range(w)], op))
    else:
        assert torch.equal(t, data(rank, 4, dtype, op))


@pytest.mark.parametrize("op", list(OPS))
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_reduce_scatter(dtype, op):
    rank, w = ensure_world()
    full = [data(r, 3 * w, dtype, op) for r in range(w)]
    ins = list(full[rank].chunk(w))
    out = torch.zeros(3, dtype=dtype)
    if not supported(dtype, op):
        return expect_unsupported(lambda: dist.reduce_scatter(out, ins, OPS[op]), "reduce_scatter")
    dist.reduce_scatter(out, ins, OPS[op])
    assert close(out, ref_reduce(full, op).chunk(w)[rank])


@pytest.mark.parametrize("op", list(OPS))
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_reduce_scatter_tensor(dtype, op):
    rank, w = ensure_world()
    full = [data(r, 2 * w, dtype, op) for r in range(w)]
    out = torch.zeros(2, dtype=dtype)
    if not supported(dtype, op):
        return expect_unsupported(lambda: dist.reduce_scatter_tensor(out, full[rank], OPS[op]),
                                  "_reduce_scatter_base")
    dist.reduce_scatter_tensor(out, full[rank], OPS[op])
    assert close(out, ref_reduce(full, op).chunk(w)[rank])


def val(rank, n, dtype, base=0):
    v = (torch.arange(n) + 10 * rank + base) % 50
    return (v % 2 == 1) if dtype == torch.bool else v.to(dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_broadcast(dtype):
    rank, w = ensure_world()
    for root in range(w):
        t = val(rank, 6, dtype)
        dist.broadcast(t, root)
        assert torch.equal(t, val(root, 6, dtype))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_all_gather(dtype):
    rank, w = ensure_world()
    outs = [torch.zeros(4, dtype=dtype) for _ in range(w)]
    dist.all_gather(outs, val(rank, 4, dtype))
    for r in range(w):
        assert torch.equal(outs[r], val(r, 4, dtype))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_all_gather_into_tensor(dtype):
    rank, w = ensure_world()
    out = torch.zeros(w * 3, dtype=dtype)
    dist.all_gather_into_tensor(out, val(rank, 3, dtype))
    assert torch.equal(out, torch.cat([val(r, 3, dtype) for r in range(w)]))
    out2 = torch.zeros(w, 3, dtype=dtype)  # 2-D output form
    dist.all_gather_into_tensor(out2, val(rank, 3, dtype))
    assert torch.equal(out2.flatten(), out)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_gather(dtype):
    rank, w = ensure_world()
    dst = w // 2
    outs = [torch.zeros(5, dtype=dtype) for _ in range(w)] if rank == dst else None
    dist.gather(val(rank, 5, dtype), outs, dst=dst)
    if rank == dst:
        for r in range(w):
            assert torch.equal(outs[r], val(r, 5, dtype))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_scatter(dtype):
    rank, w = ensure_world()
    src = w - 1
    ins = [val(r, 3, dtype, base=7) for r in range(w)] if rank == src else None
    out = torch.zeros(3, dtype=dtype)
    dist.scatter(out, ins, src=src)
    assert torch.equal(out, val(rank, 3, dtype, base=7))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_all_to_all(dtype):
    rank, w = ensure_world()
    ins = [val(rank, 2, dtype, base=i) for i in range(w)]
    outs = [torch.zeros(2, dtype=dtype) for _ in range(w)]
    dist.all_to_all(outs, ins)
    for r in range(w):
        assert torch.equal(outs[r], val(r, 2, dtype, base=rank))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_all_to_all_single(dtype):
    rank, w = ensure_world()
    inp = torch.cat([val(rank, 2, dtype, base=i) for i in range(w)])
    out = torch.zeros(2 * w, dtype=dtype)
    dist.all_to_all_single(out, inp)
    assert torch.equal(out, torch.cat([val(r, 2, dtype, base=rank) for r in range(w)]))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_send_recv(dtype):
    rank, w = ensure_world()
    if w == 1:
        pytest.skip("needs 2 ranks")
    nxt, prv = (rank + 1) % w, (rank - 1) % w
    out = torch.zeros(4, dtype=dtype)
    reqs = [dist.isend(val(rank, 4, dtype), nxt), dist.irecv(out, prv)]
    for q in reqs:
        q.wait()
    assert torch.equal(out, val(prv, 4, dtype))
