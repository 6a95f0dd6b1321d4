"""xchg.algorithms() and the selection queries."""
import xchg


def test_every_collective_listed():
    listing = xchg.algorithms()
    assert set(listing) == set(xchg.COLLECTIVES)
    for coll, algos in listing.items():
        assert algos, coll
        for a in algos:
            assert a["name"] and a["summary"]
            assert [p["name"] for p in a["params"]] == [
                item.split("=")[0] for item in _top_level_items(a["params_text"])]


def _top_level_items(text):
    """Split "a=1 [x|y], b=2 [1..P]" at the commas outside brackets."""
    items, depth, current = [], 0, ""
    for ch in text:
        depth += ch == "["
        depth -= ch == "]"
        if ch == "," and depth == 0:
            items.append(current.strip())
            current = ""
        else:
            current += ch
    return items + [current.strip()] if current.strip() else items


def test_parlogna_parameters():
    parlogna = {a["name"]: a for a in xchg.algorithms("alltoallv")}["parlogna"]
    names = [p["name"] for p in parlogna["params"]]
    assert "radix" in names
    assert parlogna["params"][names.index("radix")]["description"].startswith("radix=")


def test_set_get_round_trip(comm):
    xchg.set_algorithm(comm, "alltoallv", "parlogna:radix=4")
    assert xchg.get_algorithm(comm, "alltoallv").startswith("parlogna:radix=")
    xchg.set_algorithm(comm, "alltoallv", "")
    assert xchg.get_algorithm(comm, "alltoallv") != ""


def test_version():
    assert xchg.__version__.count(".") == 2


def test_parameter_details():
    """Kinds, defaults, bounds and names as the introspection API gives them."""
    by_name = {a["name"]: a for a in xchg.algorithms("alltoall")}
    order = by_name["pairwise"]["params"][0]
    assert (order["kind"], order["default"], order["names"]) == ("name", "shift",
                                                                 ["shift", "xor"])
    radix = {p["name"]: p for p in by_name["parlogna"]["params"]}["radix"]
    assert radix["kind"] == "integer" and radix["max"] == "P" and radix["min"] >= 2
    inner = [p for a in by_name.values() for p in a["params"] if p["kind"] == "algorithm"]
    assert inner and all(p["default"] in p["names"] for p in inner)
    assert "hierarchical" not in inner[0]["names"]  # only flat algorithms nest
    assert by_name["hierarchical"]["hierarchical"] and not by_name["pairwise"]["hierarchical"]


def test_select_model_case():
    """A case on any machine: the model's choice, its ranking, predictions."""
    r = xchg.select("alltoall", 4096, ranks=64, ranks_per_node=8,
                    predict=["pairwise", "pairwise:order=xor", "mpi", "bogus"], top=3)
    assert (r["ranks"], r["nodes"], r["max_node_size"], r["model_bytes"]) == (64, 8, 8, 4096)
    assert r["why"] == "the cost model" and len(r["ranking"]) == 3
    assert r["selection"] == r["ranking"][0][0]
    assert r["ranking"][0][1] <= r["ranking"][-1][1]
    assert r["predict"]["pairwise"] > 0 and r["predict"]["mpi"] is None
    assert r["predict"]["bogus"].startswith("error ")
    odd = xchg.select("alltoall", 64, ranks=10, ranks_per_node=3, predict=["pairwise:order=xor"])
    assert odd["predict"]["pairwise:order=xor"].startswith("error ")
    assert (odd["nodes"], odd["min_node_size"]) == (4, 1)


def test_select_on_comm(comm):
    xchg.set_algorithm(comm, "alltoall", "linear")
    r = xchg.select("alltoall", 64, comm=comm, top=0)
    xchg.set_algorithm(comm, "alltoall", "")
    assert r["selection"] == "linear" and r["why"] == "XCHG_Comm_set_algorithm"
    assert r["ranks"] == comm.Get_size() and r["ranking"] == []


def test_topology_and_check(comm):
    topo = xchg.topology(comm)
    ok, text = xchg.check_algorithm(comm, "alltoall", "pairwise:order=xor")
    assert sorted(r for node in topo["nodes"] for r in node) == list(range(comm.Get_size()))
    power_of_two = comm.Get_size() & (comm.Get_size() - 1) == 0
    assert ok == power_of_two and (text == "pairwise:order=xor" if ok else "power" in text)
