#!/usr/bin/python3
"""Runs fatal_error under mpirun for each kind of bad argument and checks the job's end: non-zero exit,
exactly one fabmpi error line naming rank, function, reason and error class, torn down within a few
seconds, and no process of the job (nor its shared-memory segment) left behind."""
import os, subprocess, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from job_leftovers import dead_segments, leftover_problems  # noqa: E402

mpirun, prog = sys.argv[1], sys.argv[2]
cases = [  # (argument, np, function, class, words expected in the reason)
    ("rank", 3, "MPI_Send", "MPI_ERR_RANK", "invalid rank 9"),
    ("count", 2, "MPI_Send", "MPI_ERR_COUNT", "count"),
    ("type", 2, "MPI_Send", "MPI_ERR_TYPE", "MPI_DATATYPE_NULL"),
    ("root", 4, "MPI_Bcast", "MPI_ERR_ROOT", "root"),
    ("op", 2, "MPI_Allreduce", "MPI_ERR_OP", "MPI_OP_NULL"),
    ("comm", 1, "MPI_Barrier", "MPI_ERR_COMM", "MPI_COMM_NULL"),
    ("preinit", 2, "MPI_Comm_rank", "MPI_ERR_OTHER", "before MPI_Init"),
    ("provider", 2, "MPI_Send", "MPI_ERR_OTHER", 'provider "net"'),
    ("collregion", 3, "MPI_Send", "MPI_ERR_RANK", "invalid rank 9"),
]
failures = 0
for arg, np, func, cls, words in cases:
    segments_before = dead_segments()
    marker = f"fabmpi-fatal-{os.getpid()}-{arg}"
    env = dict(os.environ, FABMPI_TEST_MARKER=marker)
    start = time.time()
    p = subprocess.run([mpirun, "-np", str(np), prog, arg], capture_output=True, text=True, timeout=60, env=env)
    took = time.time() - start
    culprit = 1 if np > 1 else 0
    lines = [l for l in (p.stdout + p.stderr).splitlines() if l.startswith("fabmpi: rank")]
    problems = []
    if p.returncode == 0:
        problems.append("exit status 0")
    if len(lines) != 1:
        problems.append(f"{len(lines)} fabmpi error lines")
    elif not all(s in lines[0] for s in (f"rank {culprit}:", func, cls, words)):
        problems.append(f"message lacks rank/function/class/reason: {lines[0]!r}")
    if took > 15:
        problems.append(f"took {took:.1f} s")
    problems += leftover_problems(marker, segments_before)
    status = "ok" if not problems else "FAIL"
    failures += bool(problems)
    print(f"{status}: {arg} (np {np}, exit {p.returncode}, {took:.2f} s) {'; '.join(problems)}")
    if problems:
        print(p.stdout[-2000:], p.stderr[-2000:])
sys.exit(1 if failures else 0)
