#!/usr/bin/python3
"""mpirun with ranks on "other hosts": --host/--hostfile naming hosts that are not this machine, started
through --launch-agent. fake_ssh.sh stands in for ssh (runs the command here, in its own session, with
FAKE_SSH_HOST set), so placement, the node map, the rank proxies, stdin, exit codes and teardown are
checked without a second machine.

  remote_hosts.py --mpirun PATH --probe PROG --agent FAKE_SSH

Standard library only (Debian's /usr/bin/python3).
"""
import argparse
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from teardown import procs_with  # noqa: E402  (PIDs whose command line carries a marker)

ARGS = None
FAILURES = []


def check(cond, what):
    if not cond:
        FAILURES.append(what)
        print("FAIL:", what, flush=True)


def marked_procs(mark):
    return procs_with(mark)


def no_leftovers(mark, what, wait=5.0):
    deadline = time.time() + wait
    while marked_procs(mark) and time.time() < deadline:
        time.sleep(0.1)
    left = marked_procs(mark)
    check(not left, f"{what}: processes left behind: {left}")


def mpirun(*args, stdin=None, timeout=60):
    cmd = [ARGS.mpirun, "--launch-agent", ARGS.agent] + list(args)
    return subprocess.run(cmd, input=stdin, capture_output=True, text=True, timeout=timeout)


def probe_lines(out):
    lines = {}
    for line in out.splitlines():
        m = re.match(r"rank (\d+) host (\S+) node_size (\d+) sum (\d+) ring (\S+) local_rank (\S+)", line)
        if m:
            lines[int(m.group(1))] = m.groups()[1:]
    return lines


def test_placement():
    # Slots fill in order: ranks 0,1 on nodeA, 2,3 on nodeB; a fifth wraps to nodeA.
    for np, expect in ((4, ["nodeA", "nodeA", "nodeB", "nodeB"]), (5, ["nodeA", "nodeA", "nodeB", "nodeB", "nodeA"])):
        r = mpirun("--host", "nodeA:2,nodeB:2", "-np", str(np), ARGS.probe)
        check(r.returncode == 0, f"np {np} over two hosts: exit {r.returncode}: {r.stderr}")
        lines = probe_lines(r.stdout)
        check(sorted(lines) == list(range(np)), f"np {np}: ranks that reported: {sorted(lines)}")
        total = np * (np - 1) // 2
        for rank, (host, node_size, s, ring, local_rank) in lines.items():
            check(host == expect[rank], f"np {np}: rank {rank} ran on {host}, expected {expect[rank]}")
            check(int(node_size) == expect.count(host), f"np {np}: rank {rank} node size {node_size}")
            check(int(s) == total and ring == "ok", f"np {np}: rank {rank}: sum {s}, ring {ring}")
            same = [r for r in range(np) if expect[r] == host]
            check(int(local_rank) == same.index(rank), f"np {np}: rank {rank} LOCAL_RANK {local_rank}")


def test_mixed_and_hostfile():
    # This machine's name runs ranks here (no agent); the others through it. A hostfile says the same.
    with tempfile.NamedTemporaryFile("w", suffix=".hosts", delete=False) as f:
        f.write("# two hosts\nlocalhost slots=1\nnodeB slots=2\n")
        hostfile = f.name
    try:
        for how in (["--host", "localhost:1,nodeB:2"], ["--hostfile", hostfile]):
            r = mpirun(*how, ARGS.probe)
            check(r.returncode == 0, f"{how[0]}: exit {r.returncode}: {r.stderr}")
            lines = probe_lines(r.stdout)
            check([lines.get(i, ("?",))[0] for i in range(3)] == ["-", "nodeB", "nodeB"],
                  f"{how[0]}: hosts {lines}")
            check(all(v[3] == "ok" and int(v[2]) == 3 for v in lines.values()), f"{how[0]}: results {lines}")
    finally:
        os.unlink(hostfile)


def test_slurm_allocation():
    # Inside an allocation with no hosts named, mpirun takes Slurm's nodes and task counts (here two
    # "nodes" with 2 and 1 tasks); FABMPI_LAUNCH_AGENT keeps srun out of it.
    env = dict(os.environ, SLURM_JOB_NODELIST="fake[1-2]", SLURM_TASKS_PER_NODE="2,1",
               FABMPI_LAUNCH_AGENT=ARGS.agent)
    r = subprocess.run([ARGS.mpirun, ARGS.probe], env=env, capture_output=True, text=True, timeout=60)
    lines = probe_lines(r.stdout)
    check(r.returncode == 0 and [lines.get(i, ("?",))[0] for i in range(3)] == ["fake1", "fake1", "fake2"],
          f"Slurm allocation: exit {r.returncode}, {lines}, {r.stderr!r}")


def test_directory():
    with tempfile.TemporaryDirectory() as here:
        cmd = [ARGS.mpirun, "--launch-agent", ARGS.agent, "--host", "nodeA", "-np", "1", "pwd"]
        r = subprocess.run(cmd, cwd=here, capture_output=True, text=True, timeout=60)
        check(r.stdout.strip() == os.path.realpath(here), f"remote rank's directory: {r.stdout!r} (mpirun in {here})")
        r = subprocess.run(cmd[:1] + ["--wdir", "/"] + cmd[1:], cwd=here, capture_output=True, text=True, timeout=60)
        check(r.stdout.strip() == "/", f"remote rank with --wdir /: {r.stdout!r}")


def test_stdin_and_tags():
    r = mpirun("--host", "nodeA", "-np", "1", "cat", stdin="line one\nline two\n")
    check(r.returncode == 0 and r.stdout == "line one\nline two\n", f"stdin to a remote rank 0: {r.stdout!r} {r.stderr!r}")
    r = mpirun("--tag-output", "--host", "nodeA,nodeB", "-np", "2", ARGS.probe)
    tagged = [l for l in r.stdout.splitlines() if re.match(r"\[\d\] rank \d", l)]
    check(r.returncode == 0 and len(tagged) == 2, f"--tag-output with remote ranks: {r.stdout!r}")


def test_failures():
    mark = "fabmpi-test-" + uuid.uuid4().hex[:12]
    start = time.time()
    r = mpirun("--host", "nodeA,nodeB", "-np", "2", "sh", "-c",
               f'if [ "$RANK" = 1 ]; then exit 3; fi; sleep 30 # {mark}')
    took = time.time() - start
    check(r.returncode == 3, f"remote rank exits 3: mpirun exit {r.returncode}")
    check("rank 1 (on nodeB) exited with code 3" in r.stderr, f"remote exit message: {r.stderr!r}")
    check(took < 10, f"teardown after a remote rank failed took {took:.1f} s")
    no_leftovers(mark, "remote rank exits 3")

    r = mpirun("--host", "nodeA,nodeB", "-np", "2", ARGS.probe, "abort", "7", "1")
    check(r.returncode == 7, f"MPI_Abort(7) on a remote rank: mpirun exit {r.returncode}: {r.stderr!r}")
    check("aborted the job with code 7" in r.stderr, f"abort message: {r.stderr!r}")

    r = subprocess.run([ARGS.mpirun, "--launch-agent", "false", "--host", "nodeA", "-np", "1", ARGS.probe],
                       capture_output=True, text=True, timeout=60)
    check(r.returncode == 1 and "the launch agent exited with code 1 before the rank started" in r.stderr,
          f"failing agent: exit {r.returncode}: {r.stderr!r}")


def test_mpirun_killed():
    # The proxies end their ranks when mpirun's connection closes: SIGTERM (teardown) and SIGKILL
    # (mpirun gone without a word) both leave nothing behind.
    for sig in (signal.SIGTERM, signal.SIGKILL):
        mark = "fabmpi-test-" + uuid.uuid4().hex[:12]
        p = subprocess.Popen([ARGS.mpirun, "--launch-agent", ARGS.agent, "--host", "nodeA,nodeB", "-np", "2",
                              "sh", "-c", f"sleep 30 # {mark}"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        deadline = time.time() + 10
        while len(marked_procs(mark)) < 4 and time.time() < deadline:  # mpirun, agents, proxies, ranks
            time.sleep(0.1)
        time.sleep(0.3)
        p.send_signal(sig)
        p.wait(timeout=30)
        if sig == signal.SIGTERM:
            check(p.returncode == 128 + sig, f"SIGTERM to mpirun: exit {p.returncode}")
        no_leftovers(mark, f"mpirun killed by {sig.name}")


def main():
    global ARGS
    parser = argparse.ArgumentParser()
    parser.add_argument("--mpirun", required=True)
    parser.add_argument("--probe", required=True)
    parser.add_argument("--agent", required=True)
    ARGS = parser.parse_args()
    for name in ("mpirun", "probe", "agent"):  # some cases run from another directory
        setattr(ARGS, name, os.path.abspath(getattr(ARGS, name)))
    for test in (test_placement, test_mixed_and_hostfile, test_slurm_allocation, test_directory, test_stdin_and_tags, test_failures, test_mpirun_killed):
        test()
    print(f"remote_hosts: {len(FAILURES)} failure(s)")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
