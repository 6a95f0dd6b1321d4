"""What sim/run and tools/xchg-tune share about xchg-simbench runs: its CSV
fields and the parser of its result rows, the SMPI flags of sim/smpi-flags,
the buffer estimate behind --shared-buffers, and the name of the XML
clusters' node. Imported normally (sim/ on sys.path) by both.
"""
import functools
import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))

FIELDS = ["coll", "algo", "P", "nodes", "Q", "S", "dist", "iters", "t_min", "t_avg", "t_max",
          "max_rank_send", "max_rank_offnode_send", "max_node_offnode_send",
          "max_node_offnode_recv", "total_offnode", "verified"]
FATPIPE = "fatpipe"  # the XML clusters' node: a fat-pipe loopback


def smpi_flags():
    """The options of sim/smpi-flags (one a line; blank lines and comments
    dropped)."""
    flags = []
    with open(os.path.join(HERE, "smpi-flags")) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                flags.append(line)
    return flags


def buffer_bytes(p, s, dist):
    """xchg-simbench's send and receive buffers of all P ranks together at
    mean block S (an upper estimate: power-law and normal blocks above S)."""
    return 2 * p * p * s * (4 if dist == "powerlaw" else 1.5 if dist == "normal" else 1)


def simbench_rows(stdout, coll):
    """xchg-simbench's result rows of coll as dicts of FIELDS (an algorithm's
    selection string may itself contain commas)."""
    tail = len(FIELDS) - 2  # the fields after coll and algo
    rows = []
    for line in stdout.splitlines():
        parts = line.split(",")
        if parts[0] == coll and len(parts) >= len(FIELDS):
            parts = [parts[0], ",".join(parts[1:len(parts) - tail])] + parts[len(parts) - tail:]
            rows.append(dict(zip(FIELDS, parts)))
    return rows


MASK64 = (1 << 64) - 1

# "bytes": what a rule's bytes are matched against (src/select/select.c, inputs.h):
#   alltoall, allgather: the block, S bytes: xchg-bench -m S:S, xchg-simbench -s S.
#   alltoallv: the mean block as agree() in select.c computes it: the busiest
#     rank's bytes sent or received, its own block left out, divided
#     (integer division) by P. xchg-simbench -s S --dist uniform sends S bytes
#     to every rank, its own included: the library sees (P-1)*S // P. The
#     other distributions give other values (at P=16, S=64: normal 67,
#     powerlaw 174, sparse 16): simbench_agreed_bytes() computes them from
#     xchg-simbench's own block sizes, and checks its busiest sender against
#     the one xchg-simbench reports (max_rank_send).
#   xchg-bench (this machine): its send bytes per rank (own block included;
#     P*S for -m S:S) less the own block, divided by P: (P-1)*S // P, what
#     the library sees.


def _mix(x):
    """xchg_simbench.c's mix() (splitmix64) in 64-bit arithmetic."""
    x = (x + 0x9e3779b97f4a7c15) & MASK64
    x = ((x ^ (x >> 30)) * 0xbf58476d1ce4e5b9) & MASK64
    x = ((x ^ (x >> 27)) * 0x94d049bb133111eb) & MASK64
    return x ^ (x >> 31)


def _unit(seed, i, j, stream):
    """xchg_simbench.c's unit(): uniform in (0, 1) from (seed, i, j, stream)."""
    h = _mix(seed ^ _mix(((i << 32) ^ j ^ (stream << 60)) & MASK64))
    return ((h >> 11) + 0.5) / 9007199254740992.0


def simbench_block(dist, size, i, j, seed=1):
    """xchg_simbench.c's block_bytes(): what rank i sends rank j (-s size,
    --dist dist, --seed 1, its default)."""
    v = float(size)
    if dist == "normal":
        g = (math.sqrt(-2.0 * math.log(_unit(seed, i, j, 0))) *
             math.cos(2 * math.pi * _unit(seed, i, j, 1)))
        v = size + g * size / 4.0
    elif dist == "powerlaw":
        v = min((size / 2.0) / math.sqrt(_unit(seed, i, j, 0)), 32.0 * size)
    elif dist == "sparse":
        v = 0.0 if i != j and _unit(seed, i, j, 0) >= 1.0 / 8 else v
    whole = math.floor(v)
    return 0 if v < 0 else whole + (v - whole >= 0.5)  # llround


@functools.lru_cache(maxsize=None)
def simbench_agreed_bytes(dist, size, nprocs):
    """(what xchg's alltoallv agreement sees as the mean block, the busiest
    sender's bytes) for xchg-simbench -s size --dist dist at P ranks (see
    "bytes" at the top). O(P^2): a few seconds at P = 1024."""
    if dist == "uniform":
        return (nprocs - 1) * size // nprocs, (nprocs - 1) * size
    sent, received = [0] * nprocs, [0] * nprocs
    for i in range(nprocs):
        for j in range(nprocs):
            if i != j:
                b = simbench_block(dist, size, i, j)
                sent[i] += b
                received[j] += b
    return max(max(sent), max(received)) // nprocs, max(sent)
