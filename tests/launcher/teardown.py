#!/usr/bin/python3
"""Multi-process tests of the real mpirun: exit status, the one-line message, the time a teardown
takes, and that no process of the job is left (every job carries a unique marker in its command line,
and /proc is scanned for it afterwards).

  teardown.py --mpirun PATH --probe PROG [--only NAME...]

PROG follows pmi_probe's interface: `PROG MODE [VICTIM] [marker]` with MODE ok|exit3|exit0|segv|abort7|sleep
(tests/launcher/pmi_probe.cpp speaks PMI directly; tests/env/mpi_probe.c does the same through libmpi).
Standard library only (Debian's /usr/bin/python3).
"""
import argparse
import os
import re
import signal
import subprocess
import sys
import time
import uuid

ARGS = None
FAILURES = []


def marker():
    return "fabmpi-test-" + uuid.uuid4().hex[:12]


def procs_with(mark):
    """PIDs (not ours) whose command line or environment mentions mark."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmd = f.read()
        except OSError:
            continue
        if mark.encode() in cmd:
            found.append(int(entry))
    return found


def rank_pids(mark, program):
    """{rank: pid} of the running ranks of the job marked `mark` (by RANK in their environment)."""
    pids = {}
    for pid in procs_with(mark):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv0 = f.read().split(b"\0")[0].decode()
            if os.path.basename(argv0) != os.path.basename(program):
                continue
            with open(f"/proc/{pid}/environ", "rb") as f:
                env = dict(e.split(b"=", 1) for e in f.read().split(b"\0") if b"=" in e)
            pids[int(env[b"RANK"])] = pid
        except (OSError, KeyError, ValueError):
            continue
    return pids


def check(name, ok, detail=""):
    if ok:
        print(f"  ok   {name}")
    else:
        print(f"  FAIL {name} {detail}")
        FAILURES.append(f"{name}: {detail}")


def run(args, timeout=60, input_bytes=None, env=None):
    """Runs mpirun to completion; returns (rc, stdout, stderr, seconds)."""
    start = time.monotonic()
    full_env = dict(os.environ)
    full_env.update(env or {})
    p = subprocess.run([ARGS.mpirun] + args, input=input_bytes if input_bytes is not None else b"",
                       capture_output=True, timeout=timeout, env=full_env)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace"), time.monotonic() - start


def assert_no_leftovers(name, mark):
    deadline = time.monotonic() + 1.0
    left = procs_with(mark)
    while left and time.monotonic() < deadline:
        time.sleep(0.05)
        left = procs_with(mark)
    check(f"{name}: no process left", not left, f"left: {left}")
    for pid in left:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def one_line(stderr, pattern):
    lines = [l for l in stderr.splitlines() if l.startswith("mpirun: ")]
    return len(lines) == 1 and re.search(pattern, lines[0]) is not None, lines


# ---- cases ---------------------------------------------------------------------------------------

def case_ranks_ok():
    for n in (1, 2, 4, 8):
        mark = marker()
        rc, out, err, secs = run(["-np", str(n), ARGS.probe, "ok", "1", mark])
        ranks = sorted(int(m.group(1)) for m in re.finditer(rf"^probe rank (\d+) size {n}\b.* ok$", out, re.M))
        check(f"np={n}: every rank reports rank and size", rc == 0 and ranks == list(range(n)),
              f"rc={rc} out={out!r} err={err!r}")
        assert_no_leftovers(f"np={n}", mark)


def case_self_inflicted(mode, expect_rc, pattern, np_=4):
    mark = marker()
    rc, out, err, secs = run(["-np", str(np_), ARGS.probe, mode, "1", mark])
    good, lines = one_line(err, pattern)
    check(f"{mode}: exit status {expect_rc}", rc == expect_rc, f"rc={rc} stderr={err!r}")
    check(f"{mode}: one line naming the rank", good, f"lines={lines}")
    check(f"{mode}: torn down quickly ({secs:.2f}s)", secs < 6.0)
    assert_no_leftovers(mode, mark)


def start_job(np_, mode, mark, extra=()):
    p = subprocess.Popen([ARGS.mpirun, *extra, "-np", str(np_), ARGS.probe, mode, "-1", mark],
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 20
    pids = {}
    while time.monotonic() < deadline:
        pids = rank_pids(mark, ARGS.probe)
        if len(pids) == np_:
            break
        time.sleep(0.05)
    time.sleep(0.5)  # let them connect to PMI and reach their fence/sleep
    return p, pids


def case_kill9():
    mark = marker()
    p, pids = start_job(3, "sleep", mark)
    check("kill -9: all ranks started", len(pids) == 3, f"pids={pids}")
    if 1 not in pids:
        p.kill()
        p.communicate()
        return
    t0 = time.monotonic()
    os.kill(pids[1], signal.SIGKILL)
    out, err = p.communicate(timeout=30)
    secs = time.monotonic() - t0
    err = err.decode(errors="replace")
    good, lines = one_line(err, rf"^mpirun: rank 1 \(pid {pids[1]}\) killed by signal 9 \(Killed\)")
    check("kill -9: exit status 137", p.returncode == 137, f"rc={p.returncode} err={err!r}")
    check("kill -9: one line naming rank 1 and its pid", good, f"lines={lines}")
    check(f"kill -9: job ended within 2 s ({secs:.2f}s)", secs < 2.5)
    assert_no_leftovers("kill -9", mark)


def case_sigint():
    mark = marker()
    p, pids = start_job(4, "sleep", mark)
    check("SIGINT: all ranks started", len(pids) == 4, f"pids={pids}")
    t0 = time.monotonic()
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=30)
    secs = time.monotonic() - t0
    err = err.decode(errors="replace")
    good, lines = one_line(err, r"^mpirun: received signal 2 \(Interrupt\); terminating the job")
    check("SIGINT: exit status 130", p.returncode == 130, f"rc={p.returncode} err={err!r}")
    check("SIGINT: one line", good, f"lines={lines}")
    check(f"SIGINT: job ended within 2 s ({secs:.2f}s)", secs < 2.5)
    assert_no_leftovers("SIGINT", mark)


def case_sigterm_ignored():
    """A rank that ignores SIGTERM is killed after FABMPI_ABORT_TIMEOUT."""
    mark = marker()
    script = f"trap '' TERM INT; echo ready; sleep 30; : {mark}"
    t0 = time.monotonic()
    rc, out, err, secs = run(["--timeout", "1", "-np", "2", "sh", "-c", script],
                             env={"FABMPI_ABORT_TIMEOUT": "1"})
    check("stubborn rank: exit status 124", rc == 124, f"rc={rc} err={err!r}")
    check(f"stubborn rank: killed after the abort timeout ({secs:.2f}s)", 1.5 < secs < 4.5)
    assert_no_leftovers("stubborn rank", mark)


def case_timeout():
    mark = marker()
    rc, out, err, secs = run(["--timeout", "2", "-np", "2", ARGS.probe, "sleep", "-1", mark])
    good, lines = one_line(err, r"timed out after 2 seconds")
    check("--timeout: non-zero exit (124)", rc == 124, f"rc={rc} err={err!r}")
    check("--timeout: says so", good, f"lines={lines}")
    check(f"--timeout: ended on time ({secs:.2f}s)", 1.9 < secs < 4.5)
    assert_no_leftovers("--timeout", mark)


def case_non_mpi():
    rc, out, err, _ = run(["-np", "2", "hostname"])
    check("non-MPI program (hostname) runs", rc == 0 and len(out.splitlines()) == 2 and err == "",
          f"rc={rc} out={out!r} err={err!r}")
    rc, out, err, _ = run(["-np", "2", "sh", "-c", "exit $((RANK + 4))"])
    check("non-MPI non-zero exit is reported", rc in (4, 5) and "exited with code" in err, f"rc={rc} err={err!r}")
    rc, out, err, _ = run(["-np", "2", "/nonexistent/prog"])
    check("missing program: 127 and a clear message",
          rc == 127 and "mpirun: cannot execute '/nonexistent/prog': No such file or directory" in err,
          f"rc={rc} err={err!r}")
    plain = f"/tmp/fabmpi-not-executable-{os.getpid()}"
    with open(plain, "w") as f:
        f.write("not a program\n")
    os.chmod(plain, 0o644)
    rc, out, err, _ = run(["-np", "1", plain])
    os.unlink(plain)
    check("non-executable program: 126", rc == 126 and "Permission denied" in err, f"rc={rc} err={err!r}")


def case_tag_output():
    rc, out, err, _ = run(["--tag-output", "-np", "3", "sh", "-c", "echo line one; echo err >&2; printf partial"])
    lines = out.splitlines()
    want = sorted(f"[{r}] {s}" for r in range(3) for s in ("line one", "partial"))
    check("--tag-output: every stdout line prefixed", rc == 0 and sorted(lines) == want, f"out={out!r}")
    check("--tag-output: stderr too", sorted(err.splitlines()) == [f"[{r}] err" for r in range(3)], f"err={err!r}")


def case_lines_not_mixed():
    code = ("import os,sys\nr=os.environ['RANK']\n"
            "for i in range(300):\n"
            "    os.write(1, ('rank%s-' % r).encode()); os.write(1, ('x' * (i % 50)).encode()); os.write(1, ('-%d\\n' % i).encode())\n")
    rc, out, err, _ = run(["-np", "4", "/usr/bin/python3", "-c", code], timeout=120)
    lines = out.splitlines()
    bad = [l for l in lines if not re.fullmatch(r"rank[0-3]-x*-\d+", l)]
    check("output: 1200 whole lines, none mixed", rc == 0 and len(lines) == 1200 and not bad,
          f"rc={rc} lines={len(lines)} bad={bad[:3]}")


def case_stdin():
    rc, out, err, _ = run(["-np", "2", "sh", "-c", 'read x; echo "$RANK got [$x]"'], input_bytes=b"hello rank zero\n")
    check("stdin goes to rank 0 only", rc == 0 and sorted(out.splitlines()) == ["0 got [hello rank zero]", "1 got []"],
          f"out={out!r}")
    big = b"".join(b"%d\n" % i for i in range(200000))
    rc, out, err, _ = run(["-np", "2", "sh", "-c", 'if [ $RANK = 0 ]; then wc -c; fi'], input_bytes=big)
    check("stdin: large input arrives whole", rc == 0 and out.split() == [str(len(big))], f"out={out!r}")


def case_environment():
    rc, out, err, _ = run(["-np", "4", "sh", "-c",
                           'echo $RANK $WORLD_SIZE $LOCAL_RANK $LOCAL_WORLD_SIZE $MPI_LOCALRANKID $MPI_LOCALNRANKS '
                           '$PMI_RANK $PMI_SIZE $MASTER_ADDR $MASTER_PORT ${PMI_FD:+fd}'])
    rows = sorted(l.split() for l in out.splitlines())
    ok = rc == 0 and len(rows) == 4
    ports = set()
    for r, row in enumerate(rows):
        ok = ok and row[:8] == [str(r), "4", str(r), "4", str(r), "4", str(r), "4"] and row[10] == "fd"
        ok = ok and row[8] == "127.0.0.1" and row[9].isdigit() and int(row[9]) > 0
        ports.add(row[9] if len(row) > 9 else None)
    check("environment: PMI, locality and torchrun variables", ok and len(ports) == 1, f"out={out!r}")
    rc, out, err, _ = run(["-x", "FOO", "-x", "BAR=two", "-genv", "BAZ", "three", "-np", "1", "sh", "-c",
                           'echo "$FOO $BAR $BAZ"'], env={"FOO": "one"})
    check("-x VAR, -x VAR=VAL, -genv VAR VAL", out.strip() == "one two three", f"out={out!r} err={err!r}")
    rc, out, err, _ = run(["-wdir", "/tmp", "-np", "1", "pwd"])
    check("-wdir", out.strip() == "/tmp", f"out={out!r}")
    rc, out, err, _ = run(["-wdir", "/nonexistent-dir", "-np", "1", "pwd"])
    check("-wdir to a missing directory fails clearly", rc != 0 and "cannot change to directory" in err, f"err={err!r}")
    rc, out, err, _ = run(["-np", "1", "sh", "-c", "echo ${PMI_PORT:-none} ${PMI_ID:-none}"],
                          env={"PMI_PORT": "elsewhere:1", "PMI_ID": "9"})
    check("inherited PMI_PORT/PMI_ID are not passed on", out.strip() == "none none", f"out={out!r}")


def case_binding():
    rc, out, err, _ = run(["--bind-to", "core", "--report-bindings", "-np", "2", "sh", "-c",
                           "grep Cpus_allowed_list /proc/self/status"])
    reports = [l for l in err.splitlines() if "bound to" in l]
    check("--bind-to core --report-bindings", rc == 0 and len(reports) == 2 and len(out.splitlines()) == 2,
          f"rc={rc} out={out!r} err={err!r}")
    # Each rank sees one core in its own affinity; FABMPI_NODE_CPUS tells it what the node's ranks share,
    # so that two ranks on two cores do not take themselves for oversubscribed.
    rc, out, err, _ = run(["--bind-to", "core", "-np", "2", "sh", "-c", "echo cpus=$FABMPI_NODE_CPUS"])
    counts = re.findall(r"^cpus=(\d+)$", out, re.M)
    check("--bind-to core passes FABMPI_NODE_CPUS", rc == 0 and len(counts) == 2 and counts[0] == counts[1] and
          int(counts[0]) >= min(2, os.cpu_count() or 1), f"rc={rc} out={out!r} err={err!r}")
    rc, out, err, _ = run(["--report-bindings", "-np", "1", "true"])
    check("--report-bindings without binding", rc == 0 and "not bound" in err, f"err={err!r}")


def case_help():
    rc, out, err, _ = run(["--help-params"])
    check("--help-params lists the tunables", rc == 0 and "FABMPI_ABORT_TIMEOUT" in out and "FABMPI_LOG" in out,
          f"out={out[:200]!r}")
    rc, out, err, _ = run(["--help"])
    check("--help", rc == 0 and "--tag-output" in out and "--timeout" in out)
    rc, out, err, _ = run(["--bogus", "x"])
    check("unknown option is an error", rc != 0 and "unknown option '--bogus'" in err, f"err={err!r}")
    # Through ssh when it is installed, else the agent cannot run at all: a failure naming the host either way.
    rc, out, err, _ = run(["--host", "some-other-host.invalid", "-np", "1", "true"])
    check("an unreachable host fails the job and is named", rc != 0 and "some-other-host.invalid" in err,
          f"err={err!r}")


CASES = {
    "ranks": case_ranks_ok,
    "segv": lambda: case_self_inflicted("segv", 139, r"^mpirun: rank 1 \(pid \d+\) killed by signal 11 \(Segmentation fault\)"),
    "exit3": lambda: case_self_inflicted("exit3", 3, r"^mpirun: rank 1 \(pid \d+\) exited with code 3 before MPI_Finalize; terminating the job$"),
    "exit0": lambda: case_self_inflicted("exit0", 1, r"^mpirun: rank 1 \(pid \d+\) exited with code 0 before MPI_Finalize"),
    "abort7": lambda: case_self_inflicted("abort7", 7, r"^mpirun: rank 1 \(pid \d+\) aborted the job with code 7$"),
    "kill9": case_kill9,
    "sigint": case_sigint,
    "stubborn": case_sigterm_ignored,
    "timeout": case_timeout,
    "nonmpi": case_non_mpi,
    "tag": case_tag_output,
    "lines": case_lines_not_mixed,
    "stdin": case_stdin,
    "env": case_environment,
    "binding": case_binding,
    "help": case_help,
}
# Cases that need nothing but mpirun (run once, with the PMI probe), as opposed to the probe-driven ones.
LAUNCHER_ONLY = {"stubborn", "nonmpi", "tag", "lines", "stdin", "env", "binding", "help"}


def main():
    global ARGS
    parser = argparse.ArgumentParser()
    parser.add_argument("--mpirun", required=True)
    parser.add_argument("--probe", required=True)
    parser.add_argument("--only", nargs="*", help="case names (default: all)")
    parser.add_argument("--probe-cases-only", action="store_true",
                        help="skip the cases that test mpirun alone (for a second program)")
    ARGS = parser.parse_args()
    names = ARGS.only or list(CASES)
    if ARGS.probe_cases_only:
        names = [n for n in names if n not in LAUNCHER_ONLY]
    for name in names:
        print(f"[{name}]", flush=True)
        CASES[name]()
        sys.stdout.flush()
    if FAILURES:
        print(f"{len(FAILURES)} failure(s):")
        for f in FAILURES:
            print("  " + f)
        return 1
    print("all passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
