"""Unit tests of xchg-tune's pure parts (tools/xchg_tune): ranges and
midpoints, winners with tolerance, rule merging over sizes, layouts and
process counts with their reach, the file it writes (and that it reads
back as JSON), and sim/simbench.py's row parser and block sizes.

    python3 -m pytest tools/tests      (scripts/run-tests: launch tune-unit)
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, os.path.join(ROOT, "sim"))

import simbench  # noqa: E402
from xchg_tune import output, rules  # noqa: E402


def record(coll, p, ppn, nbytes, algo, us, dist="uniform"):
    return {"coll": coll, "P": p, "layout": ppn, "ppn": ppn, "dist": dist, "S": nbytes,
            "bytes": nbytes, "algorithm": algo, "us": us}


def test_ranges_cover_everything_once():
    assert rules.midpoint(64, 1024) == 256
    got = rules.ranges([8, 64, 1024])
    assert got == [[0, 22], [23, 256], [257, None]]
    assert rules.ranges([100]) == [[0, None]]


def test_winners_keep_previous_within_tolerance():
    points = {8: {"a": 10.0, "b": 12.0}, 64: {"a": 10.4, "b": 10.0}, 512: {"a": 30.0, "b": 10.0}}
    assert rules.winners(points, 0.05) == [(8, "a"), (64, "a"), (512, "b")]
    assert rules.winners(points, 0.0) == [(8, "a"), (64, "b"), (512, "b")]


def test_size_rules_merge_adjacent_winners():
    points = {8: {"a": 1.0, "b": 2.0}, 64: {"a": 1.0, "b": 2.0}, 1024: {"a": 3.0, "b": 1.0}}
    got = rules.size_rules(points, 0.0)
    assert [r["algorithm"] for r in got if "bytes" in r][:2] == ["a", "b"]
    assert got[0]["bytes"][0] == 0 and got[1]["bytes"][1] is None
    assert got[0]["bytes"][1] + 1 == got[1]["bytes"][0] == rules.midpoint(64, 1024) + 1
    one = rules.size_rules({8: {"a": 1.0}, 64: {"a": 1.0}}, 0.0)
    assert one == [{"algorithm": "a"}]  # one winner: no bytes range


def test_merge_equal_and_build_rules_reach():
    recs = [record("alltoall", p, 2, s, "x" if p < 16 else "y", 1.0)
            for p in (4, 8, 16) for s in (8, 64)]
    got = rules.build_rules(recs, ["alltoall"], 0.0, 2)
    sizes = [r["comm_size"] for r in got["alltoall"]]
    assert [r["algorithm"] for r in got["alltoall"]] == ["x", "y"]
    assert sizes[0][0] == 2 and sizes[-1][1] == 32  # reach 2 beyond 4 and 16
    assert sizes[0][1] + 1 == sizes[1][0]  # adjacent, merged 4 and 8
    assert rules.build_rules(recs, ["allgather"], 0.0, 2) == {"allgather": []}


def test_layouts_give_ppn_ranges():
    recs = [record("alltoall", 8, ppn, 64, "x" if ppn == 2 else "y", 1.0) for ppn in (2, 4)]
    got = rules.build_rules(recs, ["alltoall"], 0.0, 1)["alltoall"]
    assert [(r["ppn"], r["algorithm"]) for r in got] == [([1, 2], "x"), ([3, None], "y")]


def test_points_of_keeps_algorithms_of_every_distribution():
    recs = [record("alltoallv", 4, 2, 48, "a", 4.0, "uniform"),
            record("alltoallv", 4, 2, 48, "b", 1.0, "uniform"),
            record("alltoallv", 4, 2, 48, "a", 1.0, "normal")]
    assert rules.points_of(recs) == {48: {"a": 2.0}}


def test_write_file_round_trip(tmp_path):
    header = {"xchg_tuning": 1, "comment": "unit test"}
    body = {"alltoall": [{"comm_size": [1, 8], "bytes": [0, 99], "algorithm": "pairwise"}],
            "allgather": []}
    path = output.write_file(str(tmp_path / "t.json"), header, body)
    text = open(path).read()
    assert json.loads(text) == dict(header, rules=body)
    assert '      {"comm_size": [1, 8], "bytes": [0, 99], "algorithm": "pairwise"}' in text
    assert not os.path.exists(path + ".tmp")


def test_simbench_rows_and_blocks():
    fields = len(simbench.FIELDS)
    tail = ",".join(str(i) for i in range(fields - 2))
    out = "header\nalltoall,scattered:batch=8,x=1," + tail + "\nallgather,linear," + tail + "\n"
    rows = simbench.simbench_rows(out, "alltoall")
    assert len(rows) == 1 and rows[0]["algo"] == "scattered:batch=8,x=1"
    assert rows[0]["verified"] == str(fields - 3)
    assert simbench.simbench_agreed_bytes("uniform", 64, 16) == (60, 960)
    assert simbench.simbench_block("uniform", 64, 1, 2) == 64
    sparse = [simbench.simbench_block("sparse", 64, 0, j) for j in range(1, 200)]
    assert 0 < sum(b > 0 for b in sparse) < len(sparse) // 2
    assert simbench.buffer_bytes(4, 10, "uniform") == 320
