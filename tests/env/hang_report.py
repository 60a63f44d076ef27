#!/usr/bin/python3
"""Hang reports: deadlocked programs (hang_report.c) under mpirun --timeout, and with FABMPI_HANG_REPORT.
Each case checks the exit status (124), that every rank's report names its MPI function and what it waits
for (source, tag, communicator, sizes), that the job ended on time, and that no process is left."""
import os, re, subprocess, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from job_leftovers import dead_segments, leftover_problems  # noqa: E402

mpirun, prog = sys.argv[1], sys.argv[2]
# (mode, extra environment, mpirun timeout, lines each expected somewhere in stderr)
cases = [
    ("recv", {}, 3, ["fabmpi: rank 0: hang report: mpirun's --timeout", "rank 0: hang report", "in MPI_Recv",
                     "rank 0:   receive from rank 1, tag 5 on MPI_COMM_WORLD: no matching message",
                     "rank 1:   receive from rank 0, tag 5 on MPI_COMM_WORLD",
                     "rank 0:   waiting on world ranks: 1",
                     "mpirun: deadlock: rank 0 waits for rank 1, which waits for rank 0"]),
    ("unexpected", {}, 3, ["rank 0:   receive from rank 1, tag 8 on MPI_COMM_WORLD",
                           "rank 0:   message from rank 1, tag 9 on MPI_COMM_WORLD (4 bytes) arrived and is not received",
                           "rank 1:   receive from rank 0, tag 10 on MPI_COMM_WORLD"]),
    ("rendezvous", {}, 3, ["rank 0: hang report", "in MPI_Send",
                           "rank 0:   send of 1048576 bytes to world rank 1, tag 3 on MPI_COMM_WORLD: announced",
                           "rank 1:   message from rank 0, tag 3 on MPI_COMM_WORLD (1048576 bytes) arrived"]),
    ("rendezvous", {"FABMPI_NETMOD": "tcp"}, 4, ["rank 0:   send of 1048576 bytes to world rank 1, tag 3",
                                                 "rank 1:   receive from rank 0, tag 4 on MPI_COMM_WORLD"]),
    ("collective", {"FABMPI_ALLREDUCE_ALGORITHM": "recursive_doubling"}, 3,
     ["rank 0: hang report", "in MPI_Allreduce",
      "rank 0:   collective allreduce (recursive_doubling) on MPI_COMM_WORLD, rank 0 of 2: in progress",
      "rank 1:   message from rank 0, tag 0 on MPI_COMM_WORLD (collective traffic)",
      "mpirun: deadlock: rank 0 waits for rank 1, which waits for rank 0"]),
    ("neighbor", {}, 3, ["rank 0: hang report", "in MPI_Neighbor_alltoall",
                         "rank 0:   receive from rank 1, tag 0 on ring (collective traffic)",
                         "rank 0:   collective MPI_Neighbor_alltoall on ring, rank 0 of 2: in progress",
                         "rank 1:   receive from rank 0, tag 11 on MPI_COMM_WORLD"]),
    ("shm_collective", {}, 3, ["rank 0: hang report", "in MPI_Allreduce",
                               "rank 0:   shared-memory collective on MPI_COMM_WORLD: waiting for rank 1 of it",
                               "rank 1:   receive from rank 0, tag 7 on MPI_COMM_WORLD",
                               "mpirun: deadlock: rank 0 waits for rank 1, which waits for rank 0"]),
    ("polling", {}, 3, ["rank 0: hang report", "in MPI_Test",
                        "rank 0:   receive from rank 1, tag 6 on MPI_COMM_WORLD",
                        "rank 1:   receive from rank 0, tag 6 on MPI_COMM_WORLD"]),
    # mpirun names the rank that printed nothing: it was not waiting in MPI.
    ("computing", {}, 3, ["rank 0:   receive from rank 1, tag 1 on MPI_COMM_WORLD",
                          "mpirun: rank 1 printed no hang report: not waiting in MPI",
                          "mpirun: rank 0 waits for rank 1, which is not waiting in MPI (computing, or blocked outside MPI)"]),
    # An erroneous program: MPI_Finalize cannot complete a send nobody receives; rank 1 waits for rank 0 in
    # the closing barrier, which only mpirun sees (one report, from rank 0).
    ("unmatched", {}, 3, ["rank 0: hang report", "in MPI_Finalize",
                          "rank 0:   send of 1048576 bytes to world rank 1, tag 2 on MPI_COMM_WORLD: announced",
                          "mpirun: rank 1 waits in the job-wide barrier of MPI_Init or MPI_Finalize for rank 0",
                          "mpirun: rank 0 waits for rank 1, which waits in MPI_Init's or MPI_Finalize's job-wide barrier"]),
    # Without --timeout's deadline: after 1 s without progress, and the job goes on (ended by the timeout).
    ("recv", {"FABMPI_HANG_REPORT": "1"}, 4, ["no progress for 1.0 s (FABMPI_HANG_REPORT=1); in MPI_Recv",
                                               "rank 1:   receive from rank 0, tag 5 on MPI_COMM_WORLD"]),
]

failures = 0
for mode, extra, timeout, expected in cases:
    marker = f"fabmpi-hang-{os.getpid()}-{mode}"
    segments_before = dead_segments()
    env = dict(os.environ, FABMPI_TEST_MARKER=marker, **extra)
    start = time.time()
    p = subprocess.run([mpirun, "--timeout", str(timeout), "-np", "2", prog, mode], capture_output=True, text=True,
                       timeout=60, env=env)
    took = time.time() - start
    problems = []
    if p.returncode != 124:
        problems.append(f"exit status {p.returncode}, expected 124")
    for text in expected:
        if text not in p.stderr:
            problems.append(f"missing {text!r}")
    if "timed out after" not in p.stderr:
        problems.append("no timeout line from mpirun")
    reports = len(re.findall(r"^fabmpi: rank \d+: hang report", p.stderr, re.M))
    if reports != (1 if mode in ("unmatched", "computing") else 2):
        problems.append(f"{reports} hang reports, expected one per rank")
    if took > timeout + 5:
        problems.append(f"took {took:.1f} s")
    problems += leftover_problems(marker, segments_before)
    name = mode + "".join(f" {k}={v}" for k, v in extra.items())
    if problems:
        failures += 1
        print(f"FAIL {name}: {'; '.join(problems)}\n--- stderr:\n{p.stderr}---")
    else:
        print(f"ok   {name} ({took:.1f} s)")

# mpirun's part: a rank that reached MPI_Finalize waits in the PMI barrier for one that never will.
p = subprocess.run([mpirun, "--timeout", "3", "-np", "3", prog, "finalize"], capture_output=True, text=True, timeout=60)
want = "mpirun: ranks 0,2 wait in the job-wide barrier of MPI_Init or MPI_Finalize for rank 1"
want2 = "mpirun: rank 1 waits for rank 0, which waits in MPI_Init's or MPI_Finalize's job-wide barrier"
if p.returncode != 124 or want not in p.stderr or want2 not in p.stderr:
    failures += 1
    print(f"FAIL finalize barrier: rc={p.returncode}\n--- stderr:\n{p.stderr}---")
else:
    print("ok   finalize barrier")
print(f"{len(cases) + 1 - failures} passed, {failures} failed")
sys.exit(1 if failures else 0)
