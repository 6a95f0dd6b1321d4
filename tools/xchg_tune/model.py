"""The cost model's constants: fitted to the measurements (this machine) or
the simulated platform's own (--smpi)."""
import json
import time

from .settings import load_sim


def fit_model(rows):
    """The six cost-model constants, or None.

    alpha, beta: least-squares fit of one pairwise step, T/(P-1) = alpha +
    beta * bytes, over the measured sizes at the largest P (pairwise is P-1
    MPI_Sendrecv of one block each; alltoall preferred for its exact block
    size). On one machine every message is shared memory, so the remote
    constants are the local ones (virtual nodes do not change the hardware).
    overhead: what a message costs beyond alpha, from the nonblocking
    algorithm at the smallest size, (T - alpha) / (2 (P-1)) (rough).
    beta_copy: a timed copy of 64 MiB in this process."""
    for coll in ("alltoall", "alltoallv"):
        pts = [r for r in rows if r["coll"] == coll and r["algorithm"].startswith("pairwise")
               and "xor" not in r["algorithm"]]
        if not pts:
            continue
        pmax = max(r["P"] for r in pts)
        pts = [r for r in pts if r["P"] == pmax]
        by_size = {}
        for r in pts:
            by_size.setdefault(r["bytes"], []).append(r["us"] * 1e-6 / (pmax - 1))
        xs = sorted(by_size)
        if len(xs) < 2:
            continue
        ys = [min(by_size[x]) for x in xs]
        n, sx, sy = len(xs), sum(xs), sum(ys)
        sxx, sxy = sum(x * x for x in xs), sum(x * y for x, y in zip(xs, ys))
        beta = max((n * sxy - sx * sy) / (n * sxx - sx * sx), 0.0)
        alpha = max((sy - beta * sx) / n, 0.0)
        nb = [r for r in rows if r["coll"] == coll and r["algorithm"] == "nonblocking"
              and r["P"] == pmax]
        overhead = 0.0
        if nb:
            small = min(nb, key=lambda r: r["bytes"])
            overhead = max((small["us"] * 1e-6 - alpha) / (2 * (pmax - 1)), 0.0)
        return {"alpha_local": alpha, "beta_local": beta, "alpha_remote": alpha,
                "beta_remote": beta, "overhead": overhead, "beta_copy": copy_cost()}
    return None


def copy_cost():
    """Seconds per byte of a large memory copy (best of 5)."""
    src = bytearray(64 << 20)
    best = float("inf")
    for _ in range(5):
        t = time.perf_counter()
        dst = bytes(src)
        best = min(best, time.perf_counter() - t)
        del dst
    return best / len(src)


def smpi_model(a, records):
    """The simulated platform's own constants (sim/platforms.py --tuning
    KIND NODES [--node MODEL]) for the most nodes tuned, and its arguments."""
    simbench, platforms = load_sim()
    nodes = max(r["P"] // r["ppn"] for r in records)
    node_model = None if a.node == simbench.FATPIPE else a.node
    constants = json.loads(platforms.tuning(a.smpi, nodes, node_model))["model"]
    return constants, f"{a.smpi} {nodes}" + (f" --node {node_model}" if node_model else "")
