#!/usr/bin/env python3
"""Compare fabmpi with MPICH and Open MPI on the bench/ programs.

Builds the portable MPI programs with each MPI's own mpicc (separate build
directories), runs every configuration (MPI x np x repetition) with a timeout
and a process-group kill, parses the `metric=... size=... value=...` lines, and
writes a Markdown report (median, min and spread per MPI; the reference MPI's
speed relative to the best of the others), a JSON file with every raw value,
and, when matplotlib is importable, PNG plots per metric family.

Standard library only (matplotlib optional). See bench/README.md.
"""

import argparse
import datetime
import json
import math
import os
import platform
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
MPI_PROGRAMS = ["osu_style", "coll", "init_finalize"]
COLLECTIVES = ["barrier", "bcast", "reduce", "allreduce", "allgather", "gather", "scatter",
               "reduce_scatter_block", "alltoall"]
FI_PROVIDERS = ["shm", "net", "tcp;ofi_rxm"]  # net: what fabmpi uses between nodes where libfabric has it


def log(msg):
    print(msg, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------
# MPI implementations


class Mpi:
    """How to compile and launch with one MPI implementation."""

    def __init__(self, name, mpicc, launcher, np_flag, extra, tcp_args, tcp_env, oversub_args=(),
                 version_cmd=None):
        self.name = name
        self.mpicc = mpicc
        self.launcher = launcher
        self.np_flag = np_flag
        self.extra = list(extra)
        self.tcp_args = list(tcp_args)
        self.tcp_env = dict(tcp_env)
        self.oversub_args = list(oversub_args)
        self.version_cmd = version_cmd
        self.version = "?"

    def command(self, np, tcp, prog_argv, ncores, rt=0):
        # --rt: the launcher and the ranks at SCHED_FIFO priority `rt`, only when every rank has a core
        # (a busy-polling real-time rank would starve a rank sharing its core), and not over tcp: MPICH's
        # UCX tcp transport relies on a helper thread that a spinning SCHED_FIFO rank never lets run
        # (seen: both ranks spinning forever in MPI_Init).
        prefix = ["chrt", "-f", str(rt)] if rt and np <= ncores and not tcp else []
        cmd = prefix + [self.launcher] + self.extra
        if np > ncores:
            cmd += self.oversub_args
        if tcp:
            cmd += self.tcp_args
        return cmd + [self.np_flag, str(np)] + prog_argv

    def env(self, tcp):
        env = dict(os.environ)
        if tcp:
            env.update(self.tcp_env)
        return env

    def describe(self, tcp, ncores, rt=0):
        cmd = self.command(4, tcp, ["PROG"], ncores, rt)
        envs = " ".join("%s=%s" % (k, shlex.quote(v)) for k, v in sorted(self.tcp_env.items())) if tcp else ""
        return (envs + " " if envs else "") + " ".join(shlex.quote(c) for c in cmd)


def known_mpis(args):
    prefix = os.path.abspath(args.fabmpi_prefix)
    fab = Mpi("fabmpi", os.path.join(prefix, "bin", "mpicc"), os.path.join(prefix, "bin", "mpirun"), "-np",
              shlex.split(args.fabmpi_args), [], {"FABMPI_NETMOD": "tcp"},
              version_cmd=[os.path.join(prefix, "bin", "mpirun"), "--version"])
    # Debian's MPICH 4.0.2 is ch4:ucx (see `mpichversion`). Intra-node traffic
    # goes through UCX's shared-memory transports unless UCX is restricted to
    # tcp; MPIR_CVAR_NOLOCAL=1 also turns off MPICH's own locality shortcuts.
    mpich = Mpi("mpich", "mpicc.mpich", "mpiexec.hydra", "-n", [],
                ["-genv", "MPIR_CVAR_NOLOCAL", "1", "-genv", "UCX_TLS", "tcp,self"],
                {"MPIR_CVAR_NOLOCAL": "1", "UCX_TLS": "tcp,self"},
                version_cmd=["mpichversion"])
    # Open MPI 4.1: pml ob1 + btl vader (shared memory) by default here; pml ucx
    # only claims Mellanox devices. TCP: ob1 with btl tcp,self.
    ompi = Mpi("openmpi", "mpicc.openmpi", "mpirun.openmpi", "-np", ["--allow-run-as-root", "--oversubscribe"],
               ["--mca", "pml", "ob1", "--mca", "btl", "tcp,self"], {},
               oversub_args=["--mca", "mpi_yield_when_idle", "1"],
               version_cmd=["mpirun.openmpi", "--version"])
    return {"fabmpi": fab, "mpich": mpich, "openmpi": ompi}


def which(path):
    if os.sep in path:
        return path if os.path.isfile(path) and os.access(path, os.X_OK) else None
    return shutil.which(path)


# --------------------------------------------------------------------------
# Running with timeouts


CURRENT_PGID = None


def on_signal(signum, frame):
    """SIGTERM/SIGINT/SIGHUP: take the running benchmark down with us."""
    if CURRENT_PGID is not None:
        kill_group(CURRENT_PGID, signal.SIGKILL)
    log("interrupted by signal %d; killed the running job" % signum)
    sys.exit(130)


def run(cmd, env=None, timeout=60.0, cwd=None):
    """Run cmd in its own session; on timeout kill the whole process group.

    Returns (rc or None on timeout, stdout, stderr, seconds)."""
    global CURRENT_PGID
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=cwd,
                         start_new_session=True, universal_newlines=True)
    CURRENT_PGID = p.pid
    timed_out = False
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        kill_group(p.pid, signal.SIGTERM)
        try:
            out, err = p.communicate(timeout=3)
        except subprocess.TimeoutExpired:
            kill_group(p.pid, signal.SIGKILL)
            out, err = p.communicate()
    finally:
        # Leave nothing behind, even stray ranks of a run that "finished".
        kill_group(p.pid, signal.SIGKILL)
        CURRENT_PGID = None
    return (None if timed_out else p.returncode), out or "", err or "", time.monotonic() - t0


def kill_group(pgid, sig):
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


METRIC_RE = re.compile(r"^metric=\S+")


def parse_metrics(text):
    """Yield dicts of key=value for each metric line."""
    for line in text.splitlines():
        line = line.strip()
        if not METRIC_RE.match(line):
            continue
        kv = {}
        for tok in line.split():
            if "=" in tok:
                k, v = tok.split("=", 1)
                kv[k] = v
        try:
            kv["size"] = int(kv.get("size", "0"))
            kv["value"] = float(kv["value"])
        except (KeyError, ValueError):
            continue
        yield kv


# --------------------------------------------------------------------------
# Build


def build_all(args, mpis):
    build_root = os.path.abspath(args.build_dir)
    built = {}
    for mpi in mpis:
        d = os.path.join(build_root, mpi.name)
        os.makedirs(d, exist_ok=True)
        ok = True
        for prog in MPI_PROGRAMS:
            out = os.path.join(d, prog)
            cmd = [mpi.mpicc, "-O2", "-std=c99", "-o", out, os.path.join(HERE, prog + ".c")]
            rc, o, e, _ = run(cmd, timeout=args.build_timeout)
            if rc != 0:
                log("notice: %s: building %s failed (%s):\n%s" % (mpi.name, prog, "timeout" if rc is None else rc,
                                                                  (o + e)[-2000:]))
                ok = False
        if ok:
            built[mpi.name] = d
    plain = os.path.join(build_root, "plain")
    os.makedirs(plain, exist_ok=True)
    cc = os.environ.get("CC", "cc")
    extras = {}
    rc, o, e, _ = run([cc, "-O2", "-std=c99", "-o", os.path.join(plain, "memcpy_bw"),
                       os.path.join(HERE, "memcpy_bw.c")], timeout=args.build_timeout)
    if rc == 0:
        extras["memcpy_bw"] = os.path.join(plain, "memcpy_bw")
    else:
        log("notice: memcpy_bw did not build:\n" + (o + e)[-1000:])
    rc, o, e, _ = run([cc, "-O2", "-o", os.path.join(plain, "xcopy_bw"), os.path.join(HERE, "xcopy_bw.c")],
                      timeout=args.build_timeout)
    if rc == 0:
        extras["xcopy_bw"] = os.path.join(plain, "xcopy_bw")
    else:
        log("notice: xcopy_bw did not build:\n" + (o + e)[-1000:])
    rc, o, e, _ = run([cc, "-O2", "-std=c99", "-o", os.path.join(plain, "fi_pingpong"),
                       os.path.join(HERE, "fi_pingpong.c"), "-lfabric"], timeout=args.build_timeout)
    if rc == 0:
        extras["fi_pingpong"] = os.path.join(plain, "fi_pingpong")
    else:
        log("notice: fi_pingpong did not build (libfabric-dev missing?); raw libfabric numbers skipped")
    return built, extras


# --------------------------------------------------------------------------
# Measurement campaign


class Campaign:
    def __init__(self, args):
        self.args = args
        self.records = []    # {mode, np, mpi, rep, metric, size, value}
        self.failures = []   # {mode, np, mpi, rep, prog, why, tail}
        self.runs = 0
        self.deadline = time.monotonic() + args.deadline_min * 60.0
        self.skipped_for_deadline = 0

    def out_of_time(self):
        if time.monotonic() > self.deadline:
            self.skipped_for_deadline += 1
            return True
        return False

    def execute(self, label, cmd, env, mode, np, mpi, rep, prog, expect_metrics, timeout):
        if self.out_of_time():
            return None
        load = os.getloadavg()[0]
        rc, out, err, secs = run(cmd, env=env, timeout=timeout)
        self.runs += 1
        metrics = list(parse_metrics(out))
        why = None
        if rc is None:
            why = "timeout after %.0f s" % timeout
            if metrics and all(any(m["metric"].startswith(x) for m in metrics) for x in expect_metrics):
                why += " after all metrics were printed (hang in MPI_Finalize or exit?)"
        elif rc != 0:
            why = "exit status %d" % rc
        elif "FAILED" in err or "FAILED" in out:
            why = "reported FAILED"
        elif not metrics:
            why = "no metric lines"
        else:
            bad = [m for m in metrics if not math.isfinite(m["value"]) or m["value"] <= 0]
            if bad:
                why = "non-positive or non-finite value: %s size=%d value=%r" % (bad[0]["metric"], bad[0]["size"],
                                                                               bad[0]["value"])
            missing = [x for x in expect_metrics if not any(m["metric"].startswith(x) for m in metrics)]
            if missing and not why:
                why = "missing metrics: " + ",".join(missing)
        status = "ok" if why is None else "FAIL (%s)" % why
        log("  %-44s %6.1fs  %s" % (label, secs, status))
        for m in metrics:
            rec = {"mode": mode, "np": np, "mpi": mpi, "rep": rep, "metric": m["metric"],
                   "size": m["size"], "value": m["value"], "load": load}
            try:  # the machine-state probe around the cell (bench_common.h), when the program ran it
                rec["probe_ns"] = float(m["probe_ns"])
                rec["probe_after_ns"] = float(m["probe_after_ns"])
            except (KeyError, ValueError):
                pass
            self.records.append(rec)
        if why:
            tail = (err.strip().splitlines() or [""])[-8:]
            self.failures.append({"mode": mode, "np": np, "mpi": mpi, "rep": rep, "prog": prog, "why": why,
                                  "tail": "\n".join(tail)})
        return secs


def campaign(args, mpis, built, extras, ncores):
    c = Campaign(args)
    quick = ["--quick"] if args.quick else []
    coll_args = quick if args.quick else ["--sizes", args.coll_sizes]
    tmo = args.timeout
    modes = ["tcp"] if args.tcp else ["shm"]
    if args.both_modes:
        modes = ["shm", "tcp"]
    for mode in modes:
        tcp = mode == "tcp"
        for np in args.np:
            for rep in range(args.reps):
                # Interleave MPIs within a repetition so drift hits all alike, and rotate who goes first
                # from one repetition to the next: a machine that drifts between states over minutes (the
                # tcp exchange flips between ~7 and ~9 us) would otherwise always favour the same MPI.
                for mpi in mpis[rep % len(mpis):] + mpis[:rep % len(mpis)]:
                    if mpi.name not in built:
                        continue
                    d = built[mpi.name]
                    env = mpi.env(tcp)
                    tag = "%s %s np=%d rep=%d" % (mode, mpi.name, np, rep)
                    cmd = mpi.command(np, tcp, [os.path.join(d, "init_finalize"), str(np)], ncores, args.rt)
                    secs = c.execute(tag + " init_finalize", cmd, env, mode, np, mpi.name, rep, "init_finalize",
                                     ["init_us"], tmo)
                    if secs is not None and not any(f["rep"] == rep and f["mpi"] == mpi.name and f["np"] == np
                                                    and f["mode"] == mode and f["prog"] == "init_finalize"
                                                    for f in c.failures):
                        c.records.append({"mode": mode, "np": np, "mpi": mpi.name, "rep": rep,
                                          "metric": "launch_wall_ms", "size": 0, "value": secs * 1e3})
                    cmd = mpi.command(np, tcp, [os.path.join(d, "osu_style")] + quick + args.osu_args, ncores, args.rt)
                    c.execute(tag + " osu_style", cmd, env, mode, np, mpi.name, rep, "osu_style",
                              ["pingpong_latency_us", "bw_MBps", "bibw_MBps"], tmo)
                    if np == 2 and not tcp and not args.no_alloc_mem:
                        # The same tests with buffers from MPI_Alloc_mem, from 64 KiB (below that every MPI
                        # copies through its own shared memory, whatever the buffer).
                        am_args = ["--alloc-mem"] + (quick if args.quick else ["--min-size", "65536"])
                        cmd = mpi.command(np, tcp, [os.path.join(d, "osu_style")] + am_args + args.osu_args, ncores,
                                          args.rt)
                        c.execute(tag + " osu_style --alloc-mem", cmd, env, mode, np, mpi.name, rep, "osu_style",
                                  ["pingpong_latency_alloc_mem_us", "bw_alloc_mem_MBps", "bibw_alloc_mem_MBps"], tmo)
                    if np == 2 and not tcp and not args.no_shift:
                        # The same tests with the receiver's buffers 16 bytes further into their pages than
                        # the sender's (two malloc'd buffers often are): glibc's and the kernel's rep movsb
                        # copies run 5-20x slower at such distances on AMD CPUs (docs/performance.md).
                        sh_args = ["--shift", "16"] + (quick if args.quick else ["--min-size", "4096", "--max-size", "1m"])
                        cmd = mpi.command(np, tcp, [os.path.join(d, "osu_style")] + sh_args + args.osu_args, ncores,
                                          args.rt)
                        c.execute(tag + " osu_style --shift 16", cmd, env, mode, np, mpi.name, rep, "osu_style",
                                  ["pingpong_latency_shifted_us", "bw_shifted_MBps", "bibw_shifted_MBps"], tmo)
                    cmd = mpi.command(np, tcp, [os.path.join(d, "coll")] + coll_args + args.coll_args, ncores, args.rt)
                    c.execute(tag + " coll", cmd, env, mode, np, mpi.name, rep, "coll",
                              [x + "_latency_us" for x in COLLECTIVES], tmo)
    if not args.no_raw:
        for rep in range(args.reps):
            if "memcpy_bw" in extras:
                c.execute("raw memcpy rep=%d" % rep, [extras["memcpy_bw"]] + quick, None, "raw", 1, "memcpy", rep,
                          "memcpy_bw", ["memcpy_MBps"], tmo)
            if "xcopy_bw" in extras:
                c.execute("raw cross-process copy rep=%d" % rep, [extras["xcopy_bw"]] + quick, None, "raw", 2, "xcopy",
                          rep, "xcopy_bw", ["xcopy_cma_MBps", "xcopy_shared_MBps"], tmo)
            if "fi_pingpong" in extras:
                for prov in FI_PROVIDERS:
                    env = dict(os.environ)
                    env["FI_PROVIDER"] = prov
                    c.execute("raw libfabric %s rep=%d" % (prov, rep),
                              [extras["fi_pingpong"], "--timeout", str(int(tmo))] + quick, env, "raw", 2,
                              "fi:" + prov, rep, "fi_pingpong", ["fi_pingpong_latency_us"], tmo)
    return c


# --------------------------------------------------------------------------
# Report


def lower_is_better(metric):
    return metric.endswith("_us") or metric.endswith("_ms")


def fmt(v):
    if v is None:
        return "—"
    if v >= 1000:
        return "%.0f" % v
    if v >= 100:
        return "%.1f" % v
    if v >= 10:
        return "%.2f" % v
    return "%.3f" % v


def fmt_size(s):
    if s >= 1 << 20 and s % (1 << 20) == 0:
        return "%d MiB" % (s >> 20)
    if s >= 1 << 10 and s % (1 << 10) == 0:
        return "%d KiB" % (s >> 10)
    return "%d B" % s


def summarize(records):
    """{(mode, np, metric): {size: {mpi: [values]}}}"""
    table = {}
    for r in records:
        key = (r["mode"], r["np"], r["metric"])
        table.setdefault(key, {}).setdefault(r["size"], {}).setdefault(r["mpi"], []).append(r["value"])
    return table


# Machine states, from the half round trip of a cache line between ranks 0 and 1 measured around each
# cell (bench_common.h, bench_probe): on the development VM the two vCPUs are at times one physical
# core's two threads (~25 ns), two cores sharing a cache (~55 ns), or farther apart (140-260 ns).
STATES = (("near", 40.0), ("mid", 100.0), ("far", float("inf")))


def state_of(record):
    """The machine state a record was measured in: near/mid/far, "mixed" when it changed during the
    cell, None without a probe."""
    if "probe_ns" not in record:
        return None
    def bucket(ns):
        return next(name for name, limit in STATES if ns < limit)
    before, after = bucket(record["probe_ns"]), bucket(record["probe_after_ns"])
    return before if before == after else "mixed"


def summarize_by_state(records):
    """{(mode, np, metric): {size: {state: {mpi: [values]}}}} over the records with a settled state."""
    table = {}
    for r in records:
        st = state_of(r)
        if st is None or st == "mixed":
            continue
        key = (r["mode"], r["np"], r["metric"])
        table.setdefault(key, {}).setdefault(r["size"], {}).setdefault(st, {}).setdefault(r["mpi"], []).append(
            r["value"])
    return table


def ratio_of(metric, ref_value, other_values):
    if lower_is_better(metric):
        return min(other_values) / ref_value
    return ref_value / max(other_values)


METRIC_ORDER = (["launch_wall_ms", "init_us", "pingpong_latency_us", "bw_MBps", "bibw_MBps",
                 "pingpong_latency_alloc_mem_us", "bw_alloc_mem_MBps", "bibw_alloc_mem_MBps",
                 "pingpong_latency_shifted_us", "bw_shifted_MBps", "bibw_shifted_MBps"]
                + [c + "_latency_us" for c in COLLECTIVES]
                + ["memcpy_MBps", "xcopy_cma_MBps", "xcopy_shared_MBps", "fi_pingpong_latency_us"])


def metric_rank(m):
    return METRIC_ORDER.index(m) if m in METRIC_ORDER else len(METRIC_ORDER)


def write_report(args, path, camp, mpis, built, ncores, ref):
    table = summarize(camp.records)
    by_state = summarize_by_state(camp.records)
    memcpy = {}
    cma = {}
    for (mode, np, metric), bysize in table.items():
        if metric == "memcpy_MBps":
            for size, bympi in bysize.items():
                memcpy[size] = statistics.median(bympi["memcpy"])
        if metric == "xcopy_cma_MBps":
            for size, bympi in bysize.items():
                cma[size] = statistics.median(bympi["xcopy"])
    L = []
    L.append("# fabmpi benchmark comparison")
    L.append("")
    # A report rebuilt from JSON (--from-json) keeps the time of the runs.
    when = getattr(args, "finished", None) or datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    L.append("Generated %s on `%s` (%d cores, %s), by:" % (when, platform.node(), ncores, platform.machine()))
    L.append("")
    argv = getattr(args, "orig_argv", None) or sys.argv
    L.append("    " + " ".join(shlex.quote(a) for a in [os.path.relpath(argv[0], ROOT)] + argv[1:]))
    L.append("")
    la = getattr(args, "loadavg", None)
    if la:
        L.append("Load average (1 min) at start / end of the runs: %.2f / %.2f on %d cores — other work on the "
                 "machine shows up directly in these numbers." % (la[0], la[1], ncores))
        L.append("")
    L.append("%d runs, %d repetitions per configuration; every cell is the per-run value (mean over that run's "
             "iterations), summarized over repetitions as median, min and spread = (max − min) / median." % (
                 camp.runs, args.reps))
    L.append("")
    if getattr(args, "rt", 0):
        L.append("Shared-memory runs with np <= %d cores were launched under `chrt -f %d` (real-time priority for the launcher "
                 "and the ranks of every MPI alike), which keeps other work on the machine from preempting them; "
                 "oversubscribed runs were not." % (ncores, args.rt))
        L.append("")
    L.append("| MPI | version | launch command as run (np=4 shown) |")
    L.append("|---|---|---|")
    for m in mpis:
        state = "" if m.name in built else " (**skipped**)"
        L.append("| %s%s | %s | `%s` |" % (m.name, state, m.version.replace("|", "/"),
                                           m.describe(args.tcp, ncores, getattr(args, "rt", 0))))
    L.append("")
    if getattr(args, "missing_mpis", None):
        L.append("**Not run:** %s. The ratios compare against the MPIs above only (Debian: `apt-get install "
                 "mpich libmpich-dev openmpi-bin libopenmpi-dev`)." % "; ".join(args.missing_mpis))
        L.append("")
    if ref:
        L.append("**ratio** = speed of **%s** relative to the best of the other MPIs at that cell "
                 "(median vs median; > 1 means %s is faster; for latencies best-other / %s, for bandwidths "
                 "%s / best-other). **%s/memcpy** = %s median streaming bandwidth / single-core memcpy "
                 "median at the same size (target ≥ 0.8); **%s/CMA** = the same bandwidth / one `process_vm_readv` "
                 "copy from another process (`xcopy_cma_MBps`: the single-copy path MPICH and Open MPI use on "
                 "a node)." % (ref, ref, ref, ref, ref, ref, ref))
        L.append("")
    L.append("Point to point with more than 2 ranks (`osu_style`): ranks run in pairs (0,1), (2,3)... all at once, "
             "and each value is the slowest pair's (the time until every pair has finished).")
    L.append("")
    L.append("`*_alloc_mem_*` (np=2, shared memory, 64 KiB and up): the same point-to-point tests with both buffers "
             "from `MPI_Alloc_mem` instead of `malloc` (`osu_style --alloc-mem`), memory an MPI may make special for "
             "message passing (MPI-3.1 section 8.2). fabmpi's is shared with the node, so the receiver copies a "
             "large message once, straight out of the sender's buffer. Since its seventeenth session fabmpi also "
             "moves malloc'd send buffers into such memory in place once they have gone by rendezvous 16 times "
             "(`FABMPI_SHM_ADOPT`, 512 KiB and up; `pt2pt/README.md`), which the plain metrics' large sizes show.")
    L.append("")
    L.append("`*_shifted_*` (np=2, shared memory, 4 KiB-1 MiB): the same point-to-point tests with page-aligned "
             "buffers, rank 1's 16 bytes into their pages (`osu_style --shift 16`), as two malloc'd buffers "
             "often lie: on AMD CPUs with FSRM, glibc's memcpy and the kernel's copy for `process_vm_readv` run "
             "5-20x slower when the destination is 1-31 bytes after the source modulo 4096 "
             "(docs/performance.md, twentieth session).")
    L.append("")
    if camp.failures:
        L.append("## Failures")
        L.append("")
        for f in camp.failures:
            L.append("- %s np=%d %s rep %d `%s`: %s" % (f["mode"], f["np"], f["mpi"], f["rep"], f["prog"], f["why"]))
            if f["tail"]:
                for t in f["tail"].splitlines()[-3:]:
                    L.append("  - `%s`" % t.replace("`", "'")[:200])
        L.append("")
    if camp.skipped_for_deadline:
        L.append("**%d runs skipped: --deadline-min reached.**" % camp.skipped_for_deadline)
        L.append("")
    probed = [r for r in camp.records if state_of(r) is not None]
    if probed:
        L.append("## Machine state during the runs")
        L.append("")
        L.append("Around every cell of the np ≤ cores runs, ranks 0 and 1 bounce a cache line outside MPI "
                 "(bench_common.h): the half round trip says where the scheduler had put the two ranks — "
                 "**near** < 40 ns (one physical core's two threads, or one core's caches), **mid** 40–100 ns, "
                 "**far** ≥ 100 ns — and **mixed** when it changed during the cell. Every MPI's small-message "
                 "figures move with it, so the tables also give **same-state ratios**: %s against the best "
                 "other MPI using only the cells each measured in the same state (median vs median), for each "
                 "state both were seen in." % (ref or "the reference"))
        L.append("")
        L.append("| mode | np | MPI | near | mid | far | mixed | probe median (ns) |")
        L.append("|---|---|---|---|---|---|---|---|")
        groups = {}
        for r in probed:
            groups.setdefault((r["mode"], r["np"], r["mpi"]), []).append(r)
        for (mode, np, mpi), rs in sorted(groups.items()):
            counts = {k: 0 for k in ("near", "mid", "far", "mixed")}
            for r in rs:
                counts[state_of(r)] += 1
            L.append("| %s | %d | %s | %d | %d | %d | %d | %.0f |" % (
                mode, np, mpi, counts["near"], counts["mid"], counts["far"], counts["mixed"],
                statistics.median(r["probe_ns"] for r in rs)))
        L.append("")

    keys = sorted(table.keys(), key=lambda k: (metric_rank(k[2]), k[0] != "shm", k[0], k[1]))
    for (mode, np, metric) in keys:
        bysize = table[(mode, np, metric)]
        cols = [m.name for m in mpis if any(m.name in v for v in bysize.values())]
        cols += sorted({x for v in bysize.values() for x in v} - set(cols))
        if mode == "raw":
            title = "## %s (%s)" % (metric, {"memcpy_MBps": "single core",
                                             "xcopy_cma_MBps": "one copy from another process, process_vm_readv",
                                             "xcopy_shared_MBps": "one copy from another process's shared mapping"}
                                    .get(metric, "2 processes"))
        else:
            title = "## %s — %s, np=%d" % (metric, mode, np)
        L.append(title)
        L.append("")
        unit = "lower is better" if lower_is_better(metric) else "higher is better"
        L.append("_%s_" % unit)
        L.append("")
        show_ratio = ref in cols and len(cols) > 1 and mode != "raw"
        show_memcpy = metric in ("bw_MBps", "bw_alloc_mem_MBps") and ref in cols and memcpy
        show_cma = metric in ("bw_MBps", "bw_alloc_mem_MBps") and ref in cols and cma
        states_here = by_state.get((mode, np, metric), {})
        show_state_ratio = show_ratio and bool(states_here)
        head = ["size"]
        for c in cols:
            head += ["%s median" % c, "%s %s" % (c, "min" if lower_is_better(metric) else "max"),
                     "%s spread" % c]
        if show_ratio:
            head.append("ratio")
        if show_state_ratio:
            head.append("same-state ratio")
        if show_memcpy:
            head.append("%s/memcpy" % ref)
        if show_cma:
            head.append("%s/CMA" % ref)
        L.append("| " + " | ".join(head) + " |")
        L.append("|" + "---|" * len(head))
        for size in sorted(bysize):
            row = [fmt_size(size)]
            med = {}
            for c in cols:
                vals = bysize[size].get(c)
                if not vals:
                    row += ["—", "—", "—"]
                    continue
                md = statistics.median(vals)
                med[c] = md
                best = min(vals) if lower_is_better(metric) else max(vals)
                spread = (max(vals) - min(vals)) / md * 100 if md > 0 else 0.0
                row += [fmt(md), fmt(best), "%.0f%%" % spread]
            if show_ratio:
                others = [v for k, v in med.items() if k != ref]
                if ref in med and others and med[ref] > 0:
                    if lower_is_better(metric):
                        row.append("%.2f" % (min(others) / med[ref]))
                    else:
                        row.append("%.2f" % (med[ref] / max(others)))
                else:
                    row.append("—")
            if show_state_ratio:
                parts = []
                for st, _ in STATES:
                    vals = states_here.get(size, {}).get(st, {})
                    others = [statistics.median(v) for k, v in vals.items() if k != ref and v]
                    if vals.get(ref) and others:
                        parts.append("%s %.2f" % (st, ratio_of(metric, statistics.median(vals[ref]), others)))
                row.append(" · ".join(parts) if parts else "—")
            if show_memcpy:
                row.append("%.2f" % (med[ref] / memcpy[size]) if ref in med and size in memcpy else "—")
            if show_cma:
                row.append("%.2f" % (med[ref] / cma[size]) if ref in med and size in cma else "—")
            L.append("| " + " | ".join(row) + " |")
        L.append("")
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        f.write("\n".join(L))
    log("wrote %s" % path)


# --------------------------------------------------------------------------
# Plots


def plot(args, camp, outdir, tag):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception as e:  # noqa: BLE001 - any import problem means "no plots"
        log("notice: matplotlib not available (%s); no plots (try /usr/bin/python3)" % e)
        return []
    table = summarize(camp.records)
    written = []

    def series(metric, mode_filter):
        out = []
        for (mode, np, m), bysize in sorted(table.items(), key=lambda kv: (kv[0][0], kv[0][1])):
            if m != metric or not mode_filter(mode):
                continue
            names = sorted({x for v in bysize.values() for x in v})
            for name in names:
                xs = [s for s in sorted(bysize) if name in bysize[s]]
                ys = [statistics.median(bysize[s][name]) for s in xs]
                label = name if mode == "raw" else "%s %s np=%d" % (name, mode, np)
                out.append((label, xs, ys))
        return out

    def draw(ax, metric, mode_filter, title):
        for label, xs, ys in series(metric, mode_filter):
            xs = [x if x > 0 else 0.5 for x in xs]  # 0 B drawn at 0.5 on the log axis
            ax.plot(xs, ys, marker="o", markersize=3, label=label)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(title, fontsize=9)
        ax.set_xlabel("bytes", fontsize=8)
        ax.grid(True, which="both", alpha=0.3)
        ax.tick_params(labelsize=7)
        if ax.lines:
            ax.legend(fontsize=6)

    families = [
        ("pt2pt", [("pingpong_latency_us", "ping-pong latency (µs)"),
                   ("fi_pingpong_latency_us", "raw libfabric ping-pong (µs)"),
                   ("bw_MBps", "streaming bandwidth (MB/s)"),
                   ("bibw_MBps", "bidirectional bandwidth (MB/s)")]),
        ("alloc_mem", [("pingpong_latency_alloc_mem_us", "ping-pong latency, MPI_Alloc_mem buffers (µs)"),
                       ("bw_alloc_mem_MBps", "streaming bandwidth, MPI_Alloc_mem buffers (MB/s)"),
                       ("bibw_alloc_mem_MBps", "bidirectional bandwidth, MPI_Alloc_mem buffers (MB/s)")]),
        ("shifted", [("pingpong_latency_shifted_us", "ping-pong latency, buffers 16 B apart in their pages (µs)"),
                     ("bw_shifted_MBps", "streaming bandwidth, buffers 16 B apart in their pages (MB/s)"),
                     ("bibw_shifted_MBps", "bidirectional bandwidth, buffers 16 B apart in their pages (MB/s)")]),
        ("coll", [(c + "_latency_us", c + " (µs per call)") for c in COLLECTIVES]),
    ]
    measured = {m for (_, _, m) in table}
    for fam, metrics in families:
        if not any(metric in measured for metric, _ in metrics):
            continue  # e.g. --no-shift / --no-alloc-mem: no empty plot
        n = len(metrics)
        cols = 2 if n <= 4 else 3
        rows = (n + cols - 1) // cols
        fig, axes = plt.subplots(rows, cols, figsize=(5.5 * cols, 3.8 * rows))
        axes = list(axes.flat) if hasattr(axes, "flat") else [axes]
        for ax, (metric, title) in zip(axes, metrics):
            if metric in ("bw_MBps", "bw_alloc_mem_MBps"):
                draw(ax, metric, lambda m: m != "raw", title)
                for label, xs, ys in series("memcpy_MBps", lambda m: m == "raw"):
                    ax.plot(xs, ys, "k--", label="memcpy (1 core)")
                    ax.plot(xs, [0.8 * y for y in ys], "k:", label="0.8 x memcpy")
                for label, xs, ys in series("xcopy_cma_MBps", lambda m: m == "raw"):
                    ax.plot(xs, ys, "c-.", label="one copy, process_vm_readv")
                ax.legend(fontsize=6)
            else:
                draw(ax, metric, lambda m: True, title)
        for ax in axes[n:]:
            ax.axis("off")
        fig.tight_layout()
        p = os.path.join(outdir, "%s_%s.png" % (tag, fam))
        fig.savefig(p, dpi=90)
        plt.close(fig)
        written.append(p)
    # launch wall time: grouped bars
    lw = [(k, v) for k, v in table.items() if k[2] == "launch_wall_ms"]
    if lw:
        fig, ax = plt.subplots(figsize=(6, 3.5))
        labels, vals = [], []
        for (mode, np, _), bysize in sorted(lw):
            for name, vs in sorted(bysize[0].items()):
                labels.append("%s\n%s np=%d" % (name, mode, np))
                vals.append(statistics.median(vs))
        ax.bar(range(len(vals)), vals)
        ax.set_xticks(range(len(vals)))
        ax.set_xticklabels(labels, fontsize=6)
        ax.set_ylabel("ms (median)")
        ax.set_title("mpirun wall time of init_finalize", fontsize=9)
        fig.tight_layout()
        p = os.path.join(outdir, "%s_launch.png" % tag)
        fig.savefig(p, dpi=90)
        plt.close(fig)
        written.append(p)
    for p in written:
        log("wrote %s" % p)
    return written


def plot_or_delegate(args, camp, json_path):
    """Plot here if matplotlib imports, else try the system python3 (Debian's
    python3-matplotlib) on the saved JSON."""
    tag = os.path.splitext(os.path.basename(args.out))[0]
    outdir = os.path.dirname(os.path.abspath(args.out))
    try:
        import matplotlib  # noqa: F401
    except Exception:  # noqa: BLE001
        sys_py = "/usr/bin/python3"
        if os.path.exists(sys_py) and os.path.realpath(sys_py) != os.path.realpath(sys.executable):
            log("notice: no matplotlib in %s; plotting with %s" % (sys.executable, sys_py))
            rc, o, e, _ = run([sys_py, os.path.abspath(__file__), "--from-json", json_path, "--plot-only",
                               "--out", args.out], timeout=120)
            sys.stderr.write(e)
            return
    plot(args, camp, outdir, tag)


def from_json(args, all_mpis, ncores):
    with open(args.from_json) as f:
        data = json.load(f)
    camp = Campaign(args)
    camp.records = data["records"]
    camp.failures = data.get("failures", [])
    camp.runs = data.get("runs", 0)
    args.orig_argv = data.get("argv")
    args.reps = data.get("reps", args.reps)
    args.loadavg = data.get("loadavg")
    args.finished = data.get("finished")
    args.tcp = "--tcp" in (args.orig_argv or [])
    args.rt = data.get("rt", 0)
    tag = os.path.splitext(os.path.basename(args.out))[0]
    if args.plot_only:
        plot(args, camp, os.path.dirname(os.path.abspath(args.out)), tag)
        return 0
    ran = {r["mpi"] for r in camp.records}
    mpis = []
    for name, info in data.get("mpis", {}).items():
        m = all_mpis.get(name)
        if m:
            m.version = info.get("version", "?")
            mpis.append(m)
    ref = args.ref or ("fabmpi" if "fabmpi" in ran else next((m.name for m in mpis if m.name in ran), None))
    write_report(args, args.out, camp, mpis, {m.name for m in mpis if m.name in ran}, ncores, ref)
    if not args.no_plot:
        plot_or_delegate(args, camp, args.from_json)
    return 0


# --------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fabmpi-prefix", default=os.path.join(ROOT, "install"),
                    help="fabmpi install prefix holding bin/mpicc and bin/mpirun (default: install/ at repo root)")
    ap.add_argument("--fabmpi-args", default="", help="extra arguments for fabmpi's mpirun")
    ap.add_argument("--mpis", default="fabmpi,mpich,openmpi", help="comma list (default: %(default)s)")
    ap.add_argument("--ref", default=None,
                    help="MPI whose ratio to the best other is reported (default: fabmpi if it ran, else the "
                         "first MPI that ran)")
    ap.add_argument("--np", default=None, help="comma list of process counts (default: 2,4; quick: 2)")
    ap.add_argument("--reps", type=int, default=3, help="runs per configuration (default: %(default)s)")
    ap.add_argument("--tcp", action="store_true", help="force the TCP path in every MPI")
    ap.add_argument("--both-modes", action="store_true", help="run shared memory and TCP modes")
    ap.add_argument("--quick", action="store_true",
                    help="CI smoke: 1 repetition, np=2, tiny sizes; checks that every program runs and prints "
                         "sane numbers; exit status 1 on any failure")
    ap.add_argument("--coll-sizes", default="8,1k,64k,1m,8m", help="collective sizes per rank (default: %(default)s)")
    ap.add_argument("--osu-args", default="", help="extra arguments for osu_style (e.g. '--max-size 1m')")
    ap.add_argument("--coll-args", default="", help="extra arguments for coll (e.g. '--only allreduce,bcast')")
    ap.add_argument("--timeout", type=float, default=None, help="seconds per run (default 180, quick 60)")
    ap.add_argument("--build-timeout", type=float, default=120.0)
    ap.add_argument("--deadline-min", type=float, default=30.0,
                    help="stop starting new runs after this many minutes (default: %(default)s)")
    ap.add_argument("--build-dir", default=os.path.join(HERE, "build"))
    ap.add_argument("--out", default=None, help="Markdown report (default bench/results/latest.md, "
                                                "tcp: latest-tcp.md, quick: quick.md)")
    ap.add_argument("--no-plot", action="store_true")
    ap.add_argument("--from-json", default=None, metavar="JSON",
                    help="rebuild the report and plots from a previous run's JSON; runs nothing")
    ap.add_argument("--plot-only", action="store_true", help="with --from-json: only draw the plots")
    ap.add_argument("--no-raw", action="store_true", help="skip memcpy and raw libfabric runs")
    ap.add_argument("--no-shift", action="store_true",
                    help="skip the np=2 point-to-point runs with buffers 16 bytes apart in their pages (--shift 16)")
    ap.add_argument("--no-alloc-mem", action="store_true",
                    help="skip the np=2 point-to-point runs with MPI_Alloc_mem buffers")
    ap.add_argument("--rt", type=int, default=0, metavar="PRIO",
                    help="run launchers and ranks under `chrt -f PRIO` when np <= cores (root only): takes "
                         "other work on a shared machine out of the comparison; every MPI alike")
    args = ap.parse_args()
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, on_signal)

    args.np = [int(x) for x in (args.np or ("2" if args.quick else "2,4")).split(",") if x]
    args.osu_args = shlex.split(args.osu_args)
    args.coll_args = shlex.split(args.coll_args)
    if args.quick:
        args.reps = 1
    if args.timeout is None:
        args.timeout = 60.0 if args.quick else 180.0
    if args.out is None:
        name = "quick.md" if args.quick else ("latest-tcp.md" if args.tcp else "latest.md")
        args.out = os.path.join(HERE, "results", name)
    ncores = os.cpu_count() or 1

    all_mpis = known_mpis(args)
    if args.from_json:
        return from_json(args, all_mpis, ncores)
    mpis = []
    for name in [x for x in args.mpis.split(",") if x]:
        if name not in all_mpis:
            ap.error("unknown MPI %r (known: %s)" % (name, ", ".join(all_mpis)))
        m = all_mpis[name]
        if not which(m.mpicc) or not which(m.launcher):
            log("notice: %s skipped: %s or %s not found" % (name, m.mpicc, m.launcher))
            args.missing_mpis = getattr(args, "missing_mpis", []) + ["%s (`%s` or `%s` not found)" % (
                name, m.mpicc, m.launcher)]
            continue
        if m.version_cmd:
            rc, o, e, _ = run(m.version_cmd, timeout=15)
            first = (o or e).strip().splitlines()
            m.version = first[0].strip() if rc == 0 and first else "?"
            m.version = re.sub(r"\s+", " ", m.version)
        mpis.append(m)
    if not mpis:
        log("error: no MPI available")
        return 2

    log("building into %s" % args.build_dir)
    built, extras = build_all(args, mpis)
    if not built:
        log("error: nothing built")
        return 2
    log("running (%s, np=%s, reps=%d, timeout %.0fs per run)" % (
        "tcp" if args.tcp else "shared memory", args.np, args.reps, args.timeout))
    t0 = time.monotonic()
    load0 = os.getloadavg()[0]
    camp = campaign(args, mpis, built, extras, ncores)
    args.loadavg = (load0, os.getloadavg()[0])
    log("campaign took %.0f s, %d runs, %d failures" % (time.monotonic() - t0, camp.runs, len(camp.failures)))

    ran = {r["mpi"] for r in camp.records}
    ref = args.ref or ("fabmpi" if "fabmpi" in ran else next((m.name for m in mpis if m.name in ran), None))
    args.finished = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    write_report(args, args.out, camp, mpis, built, ncores, ref)
    with open(os.path.splitext(args.out)[0] + ".json", "w") as f:
        json.dump({"argv": sys.argv, "finished": args.finished, "runs": camp.runs, "loadavg": args.loadavg, "reps": args.reps, "rt": args.rt, "records": camp.records, "failures": camp.failures,
                   "mpis": {m.name: {"version": m.version, "launch": m.describe(args.tcp, ncores, args.rt)} for m in mpis}},
                  f, indent=1)
    if not args.no_plot and not args.quick:
        plot_or_delegate(args, camp, os.path.splitext(args.out)[0] + ".json")
    if camp.failures or camp.skipped_for_deadline:
        log("FAILURES: %d (see %s)" % (len(camp.failures), args.out))
        return 1
    log("all runs passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
