#!/usr/bin/python3
"""Interop both ways with Debian's MPICH (stdlib only).

  interop.py mpich-under-fabmpi MPIRUN MPICH_PROGRAM NP
      fabmpi's mpirun runs a program built with mpicc.mpich; every rank must print
      "allreduce rank R size NP ok".
  interop.py fabmpi-under-hydra HYDRA PROGRAM NP [--pmi-port]
      MPICH's mpiexec.hydra runs a fabmpi program (pmi_probe or mpi_probe, mode ok); every rank must
      print "probe rank R size NP ... ok".
"""
import os
import re
import subprocess
import sys


def expect_ranks(out, pattern, np_):
    ranks = sorted(int(m.group(1)) for m in re.finditer(pattern, out, re.M))
    return ranks == list(range(np_))


def main():
    what = sys.argv[1]
    launcher, program, np_ = sys.argv[2], sys.argv[3], int(sys.argv[4])
    if what == "mpich-under-fabmpi":
        cmd = [launcher, "-np", str(np_), program]
        pattern = rf"^allreduce rank (\d+) size {np_} ok$"
    else:
        cmd = [launcher] + (["-pmi-port"] if "--pmi-port" in sys.argv else []) + ["-n", str(np_), program, "ok"]
        pattern = rf"^probe rank (\d+) size {np_} .*ok$"
    env = dict(os.environ)
    if what == "mpich-under-fabmpi":
        # The MPICH program must load MPICH's own libmpich, not a libmpich.so.12 of the build tree.
        env.pop("LD_LIBRARY_PATH", None)
    p = subprocess.run(cmd, capture_output=True, timeout=120, stdin=subprocess.DEVNULL, env=env)
    out, err = p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")
    ok = p.returncode == 0 and expect_ranks(out, pattern, np_)
    print(f"{' '.join(cmd)}\n rc={p.returncode}\n stdout:\n{out}\n stderr:\n{err}")
    print("ok" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
