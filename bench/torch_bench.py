"""all_reduce and all_gather_into_tensor, float32, 4 KiB .. 64 MiB: fabmpi vs gloo in the same run.

    mpiexec.hydra -n 4 /usr/bin/python3 bench/torch_bench.py [--max-bytes N] [--iters K] [--budget S]

Both groups live in one process: the default group is fabmpi; a gloo group over the same ranks is made
with new_group(backend="gloo"). Each size is timed over --iters iterations (after one warm-up) and the
median is reported. The whole run stops growing sizes once --budget seconds are spent.
"""
import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import torch_fabmpi  # noqa: E402,F401


def timed(fn, iters, group):
    fn()
    dist.barrier(group=group)
    samples = []
    for _ in range(iters):
        t0 = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t0)
    # the slowest rank decides
    t = torch.tensor([statistics.median(samples)], dtype=torch.float64)
    dist.all_reduce(t, op=dist.ReduceOp.MAX, group=group)
    return t.item()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--min-bytes", type=int, default=4 << 10)
    ap.add_argument("--max-bytes", type=int, default=64 << 20)
    ap.add_argument("--iters", type=int, default=5)
    ap.add_argument("--budget", type=float, default=120.0, help="seconds")
    a = ap.parse_args()

    dist.init_process_group("fabmpi")
    rank, w = dist.get_rank(), dist.get_world_size()
    groups = {"fabmpi": dist.group.WORLD, "gloo": dist.new_group(backend="gloo")}
    if rank == 0:
        print(f"# {w} ranks, float32, median of {a.iters}; times in ms, bus bandwidth in GB/s")
        print(f"{'op':<24}{'bytes':>10}  {'fabmpi ms':>10}{'gloo ms':>10}  {'fabmpi GB/s':>12}{'gloo GB/s':>10}")
    try:
        dist.all_gather_into_tensor(torch.empty(w), torch.ones(1), group=groups["gloo"])
        gloo_has_base = True
    except RuntimeError:
        gloo_has_base = False
        if rank == 0:
            print("# gloo has no _allgather_base here: its all_gather_into_tensor column uses all_gather into views")
    start = time.monotonic()
    size = a.min_bytes
    while size <= a.max_bytes:
        n = size // 4
        for op in ("all_reduce", "all_gather_into_tensor"):
            res = {}
            for name, g in groups.items():
                if op == "all_reduce":
                    x = torch.ones(n)
                    fn = lambda x=x, g=g: dist.all_reduce(x, group=g)  # noqa: E731
                    bus = 2 * (w - 1) / w * size
                else:
                    x, out = torch.ones(max(1, n // w)), torch.empty(max(1, n // w) * w)
                    if name == "gloo" and not gloo_has_base:
                        # gloo in torch 1.13 lacks _allgather_base: all_gather into views of the same buffer
                        views = list(out.chunk(w))
                        fn = lambda x=x, v=views, g=g: dist.all_gather(v, x, group=g)  # noqa: E731
                    else:
                        fn = lambda x=x, out=out, g=g: dist.all_gather_into_tensor(out, x, group=g)  # noqa: E731
                    bus = (w - 1) / w * size
                t = timed(fn, a.iters, g)
                res[name] = (t, bus / t / 1e9 if t > 0 else 0.0)
            if rank == 0:
                print(f"{op:<24}{size:>10}  {res['fabmpi'][0] * 1e3:>10.3f}{res['gloo'][0] * 1e3:>10.3f}  "
                      f"{res['fabmpi'][1]:>12.3f}{res['gloo'][1]:>10.3f}", flush=True)
        spent = torch.tensor([time.monotonic() - start])
        dist.broadcast(spent, 0)
        if spent.item() > a.budget:
            if rank == 0:
                print(f"# stopping: time budget of {a.budget:.0f} s spent")
            break
        size *= 4
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
