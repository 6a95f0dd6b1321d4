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
