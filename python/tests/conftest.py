"""pytest under mpirun: every rank runs the same tests in the same order.

Tests make all their collective calls before asserting, so that a failure on
one rank does not leave the others waiting. At the end the ranks agree on
the outcome (a test failed if it failed on any rank); rank 0 prints
"N passed, N failed" for tests/run.sh, and every rank exits 1 on a failure.
"""
import numpy as np
import pytest
from mpi4py import MPI

import xchg

_outcomes = {}  # nodeid -> "passed" | "failed" | "skipped"


def pytest_runtest_logreport(report):
    if report.failed:
        _outcomes[report.nodeid] = "failed"
    elif report.skipped:
        _outcomes.setdefault(report.nodeid, "skipped")
    elif report.when == "call":
        _outcomes.setdefault(report.nodeid, "passed")


def pytest_sessionfinish(session, exitstatus):
    world = MPI.COMM_WORLD
    merged = {}
    for outcomes in world.allgather(_outcomes):
        for nodeid, outcome in outcomes.items():
            if merged.get(nodeid) != "failed":
                merged[nodeid] = outcome
    passed = sum(1 for o in merged.values() if o == "passed")
    failed = sum(1 for o in merged.values() if o == "failed")
    if exitstatus not in (0, 1) and failed == 0:
        failed = 1  # collection or usage error: count it
    if world.Get_rank() == 0:
        print("\nworld size %d" % world.Get_size())
        print("%d passed, %d failed" % (passed, failed))
    session.exitstatus = 1 if failed else 0


@pytest.fixture(scope="module")
def comm():
    """A duplicate of COMM_WORLD per module (xchg keeps state per communicator)."""
    c = MPI.COMM_WORLD.Dup()
    yield c
    for coll in xchg.COLLECTIVES:
        xchg.set_algorithm(c, coll, None)
    c.Free()


@pytest.fixture
def rng(comm):
    return np.random.default_rng(1234 + comm.Get_rank())
