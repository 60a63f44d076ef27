"""Each rank runs the same pytest session; the default group is created once, lazily, per session.

Launch: `$LAUNCHER -n N /usr/bin/python3 -m pytest tests/python` (see run.sh). Every rank writes its own
JUnit XML when FABMPI_TEST_XML_DIR is set, so run.sh can count a test as passed only if it passed on every rank.
"""
import os
import sys
from datetime import timedelta

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python"))

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import torch_fabmpi  # noqa: E402,F401

GROUP_TIMEOUT = timedelta(seconds=float(os.environ.get("FABMPI_TEST_GROUP_TIMEOUT", "60")))


def pytest_configure(config):
    d = os.environ.get("FABMPI_TEST_XML_DIR")
    if d:
        rank = os.environ.get("RANK", "0")
        config.option.xmlpath = os.path.join(d, f"rank{rank}.xml")


def ensure_world():
    if not dist.is_initialized():
        dist.init_process_group("fabmpi", timeout=GROUP_TIMEOUT)
    return dist.get_rank(), dist.get_world_size()


@pytest.fixture
def world():
    return ensure_world()
