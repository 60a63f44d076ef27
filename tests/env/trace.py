#!/usr/bin/python3
"""Timelines (FABMPI_TRACE, mpirun --trace): the merged file is valid Chrome-trace JSON with every rank,
each rank's calls in order (MPI_Init first, MPI_Finalize last), MPI_Pcontrol(0..1) leaves a gap, a second
thread gets its own track; FABMPI_TRACE alone writes one file per rank; a program that never finalizes
MPI yields a clear mpirun message and a valid (empty) file; no temporary directory is left behind."""
import glob, json, os, subprocess, sys, tempfile

mpirun, prog = sys.argv[1], sys.argv[2]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def calls(events, pid, tid=None):
    return [e for e in events if e.get("ph") == "X" and e["pid"] == pid and (tid is None or e["tid"] == tid)]


def check_rank(events, rank, size, threads):
    mine = calls(events, rank, 0)
    names = [e["name"] for e in mine]
    check(names[:1] == ["MPI_Init_thread"], f"rank {rank}: first call {names[:1]}")
    check(names[-1:] == ["MPI_Finalize"], f"rank {rank}: last call {names[-1:]}")
    check(names.count("MPI_Barrier") == 4, f"rank {rank}: {names.count('MPI_Barrier')} barriers recorded, expected 4")
    if size > 1:
        check(names.count("MPI_Send") == 1 and names.count("MPI_Recv") == 1, f"rank {rank}: send/recv {names}")
        send = next(e for e in mine if e["name"] == "MPI_Send")
        recv = next(e for e in mine if e["name"] == "MPI_Recv")
        check(send.get("args", {}).get("peer") == (rank + 1) % size and send["args"]["tag"] == 0
              and send["args"]["bytes"] == 4, f"rank {rank}: send args {send.get('args')}")
        check(recv.get("args", {}).get("peer") == (rank - 1) % size and recv["args"]["bytes"] == 4,
              f"rank {rank}: recv args {recv.get('args')}")
        check(send["args"]["context"] == recv["args"]["context"], f"rank {rank}: contexts differ")
    barrier = next(e for e in mine if e["name"] == "MPI_Barrier")
    check(barrier.get("args", {}).get("bytes") == 0 and "root" not in barrier["args"], f"rank {rank}: {barrier}")
    bcast = [e for e in mine if e["name"] == "MPI_Bcast"]
    check(len(bcast) == 1 and bcast[0].get("args", {}).get("root") == size - 1 and bcast[0]["args"]["bytes"] == 4,
          f"rank {rank}: {bcast}")
    allreduce = [e for e in mine if e["name"] == "MPI_Allreduce"]
    check(len(allreduce) == 1 and allreduce[0].get("args", {}).get("bytes") == 4, f"rank {rank}: {allreduce}")
    starts = [e["ts"] for e in mine]
    check(starts == sorted(starts), f"rank {rank}: calls out of order")
    check(all(e["dur"] >= 0 for e in mine), f"rank {rank}: negative duration")
    for a, b in zip(mine, mine[1:]):
        check(a["ts"] + a["dur"] <= b["ts"] + 0.001, f"rank {rank}: {a['name']} overlaps {b['name']}")
    helper = calls(events, rank, 1)
    if threads:
        check([e["name"] for e in helper] == ["MPI_Allreduce"] * 3, f"rank {rank}: helper thread {helper}")
    else:
        check(not helper, f"rank {rank}: unexpected second track")
    meta = [e for e in events if e.get("ph") == "M" and e["pid"] == rank and e["name"] == "process_name"]
    check(len(meta) == 1 and meta[0]["args"]["name"].startswith(f"rank {rank} of {size}"), f"rank {rank}: {meta}")


with tempfile.TemporaryDirectory() as d:
    before = set(glob.glob("/tmp/fabmpi-trace.*"))
    for np_, threads in ((1, False), (3, False), (2, True)):
        out = os.path.join(d, f"np{np_}.json")
        args = [mpirun, "-np", str(np_), "--trace", out, prog] + (["threads"] if threads else [])
        r = subprocess.run(args, capture_output=True, text=True, timeout=60)
        check(r.returncode == 0, f"np {np_}: exit {r.returncode}: {r.stderr[-500:]}")
        check(r.stderr == "", f"np {np_}: stderr {r.stderr!r}")
        with open(out) as f:
            events = json.load(f)["traceEvents"]
        check({e["pid"] for e in events} == set(range(np_)), f"np {np_}: ranks {sorted({e['pid'] for e in events})}")
        for rank in range(np_):
            check_rank(events, rank, np_, threads)

    # FABMPI_TRACE directly: one file per rank, nothing merged.
    prefix = os.path.join(d, "direct")
    env = dict(os.environ, FABMPI_TRACE=prefix)
    r = subprocess.run([mpirun, "-np", "2", prog], capture_output=True, text=True, timeout=60, env=env)
    check(r.returncode == 0, f"FABMPI_TRACE: exit {r.returncode}")
    for rank in range(2):
        with open(f"{prefix}.{rank}.json") as f:
            check_rank(json.load(f)["traceEvents"], rank, 2, False)

    # A program without MPI: mpirun says which ranks wrote nothing; the file is still valid JSON.
    out = os.path.join(d, "none.json")
    r = subprocess.run([mpirun, "-np", "2", "--trace", out, "/bin/true"], capture_output=True, text=True, timeout=60)
    check(r.returncode == 0, f"/bin/true: exit {r.returncode}")
    check("--trace: 2 of 2 ranks wrote no timeline" in r.stderr, f"/bin/true: stderr {r.stderr!r}")
    with open(out) as f:
        check(json.load(f)["traceEvents"] == [], "/bin/true: events in an empty timeline")
    check(set(glob.glob("/tmp/fabmpi-trace.*")) == before, "temporary trace directory left in /tmp")

print(f"trace: {len(failures)} failures" if failures else "trace: ok")
sys.exit(1 if failures else 0)
