"""What a finished job may have left behind: its processes (found by a marker in their environment) and
fabmpi shared-memory objects whose creator is gone. Shared by the tests of this folder."""
import os
import time


def processes_marked(marker):
    """pids of the processes whose environment contains `marker`."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                if marker.encode() in f.read():
                    found.append(pid)
        except OSError:
            pass
    return found


def dead_segments():
    """fabmpi shared-memory objects in /dev/shm whose creator (the pid in the name) is gone: a node's
    segment "fabmpi-<pid>-<random>" and the collective regions named after it ("...-coll-...")."""
    found = set()
    for name in os.listdir("/dev/shm"):
        parts = name.split("-")
        if len(parts) >= 3 and parts[0] == "fabmpi" and parts[1].isdigit() and not os.path.exists(f"/proc/{parts[1]}"):
            found.add(name)
    return found


def leftover_problems(marker, segments_before):
    """After a job ended: what it left (processes marked `marker`, shared-memory objects not in
    `segments_before`), as problem strings; empty when nothing."""
    time.sleep(0.2)  # let the kernel finish reaping
    problems = []
    leftovers = processes_marked(marker)
    if leftovers:
        problems.append(f"processes left: {leftovers}")
    left_in_shm = dead_segments() - segments_before
    if left_in_shm:
        problems.append(f"/dev/shm segments left: {sorted(left_in_shm)}")
    return problems
