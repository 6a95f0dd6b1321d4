#!/usr/bin/python3
"""Generate SimGrid platform files and hostfiles for the xchg simulations.

    sim/platforms.py KIND NODES Q OUTDIR     -> OUTDIR/KIND-NODESxQ.xml, .hosts
    sim/platforms.py --node MODEL KIND NODES Q OUTDIR
                                             -> OUTDIR/KIND-NODESxQ-MODEL.conf, .hosts
                                                for sim/node_platform.cpp (a host per
                                                rank, per-core and node memory links)
    sim/platforms.py --list                  -> kinds and their parameters
    sim/platforms.py --tuning KIND NODES [--node MODEL]
                                             -> a tuning file (docs/tuning.md) with
                                                only the cost model's constants
                                                for that platform, on stdout

KIND is one of flat, fattree, dragonfly, torus. Every node is one SimGrid host
with Q cores (one rank per core, hostfile line "host:Q"); messages between
ranks of the same host take the host's loopback link (shared memory), others
the network. The figures and their sources are in sim/README.md.
"""
import math
import os
import sys

# Shared-memory path inside a node (loopback link of every host).
INTRA = dict(lat="0.25us", bw="10GBps")
# Core speed of the simulated hosts; sim/run sets smpi/host-speed to the same
# value, so measured CPU bursts are replayed 1:1 (see README).
SPEED = "1Gf"

# Node memory models for sim/node_platform.cpp (sim/README.md, "An honest
# node"): core = what one rank copies per second in each direction (measured
# here: sim/calibrate, nodecopy.csv), its latency (half the intra-node
# latency each way), mem = what all ranks of a node copy per second together.
# "fatpipe" is the XML cluster's loopback (10 GB/s per flow, no node limit).
NODE_MODELS = {
    "low": dict(core_bw=10e9, core_lat=0.125e-6, mem_bw=20e9),
    "calibrated": dict(core_bw=10e9, core_lat=0.125e-6, mem_bw=50e9),
    "high": dict(core_bw=10e9, core_lat=0.125e-6, mem_bw=200e9),
}

KINDS = {
    # Flat cluster: every node has a 200 Gb/s NIC (private link, full duplex)
    # into a non-blocking crossbar; 1 us per side gives ~2 us end to end.
    "flat": dict(lat="1us", bw="25GBps", desc="crossbar, 200 Gb/s NIC, 2 us"),
    # Two-level fat tree, full bisection (InfiniBand HDR class): 16 nodes per
    # leaf switch, 16 spines; 4 links node-leaf-spine-leaf-node, 0.5 us each.
    "fattree": dict(lat="0.5us", bw="25GBps", desc="2-level full fat tree, 200 Gb/s, 4 x 0.5 us"),
    # Dragonfly (Polaris-like, HPE Slingshot): 2 nodes per router, 4 routers
    # per chassis, 2 chassis per group (16 nodes per group), one global link
    # between groups; 0.4 us per link (at most 5 links: ~2 us), 200 Gb/s.
    "dragonfly": dict(lat="0.4us", bw="25GBps", desc="Slingshot-like dragonfly, 200 Gb/s, <=5 x 0.4 us"),
    # Torus (Fugaku-like Tofu-D): 3-D torus of the nodes, 6.8 GB/s per link
    # and direction, 0.35 us per link (one hop ~0.41 us with software overheads,
    # Tofu-D: 0.49 us); injection limited to 6 TNIs x 6.8 GB/s.
    "torus": dict(lat="0.35us", bw="6.8GBps", limiter="40.8GBps",
                  desc="Tofu-D-like 3-D torus, 6.8 GB/s links, 40.8 GB/s injection, 0.35 us/link"),
}


def model(kind, nodes):
    """What the lower bound in sim/run needs: fewest network links between two
    nodes, their latency (s), node injection bandwidth (B/s), and for the torus
    the bandwidth of one direction of its bisection (B/s, else None)."""
    k = KINDS[kind]
    lat = float(k["lat"][:-2]) * 1e-6
    link_bw = float(k["bw"][:-4]) * 1e9
    if kind == "torus":
        dims = torus_dims(nodes)
        wrap = 2 if dims[0] > 2 else 1
        bisection = wrap * (nodes // dims[0]) * link_bw if dims[0] > 1 else None
        return dict(min_links=1, link_lat=lat, injection=float(k["limiter"][:-4]) * 1e9,
                    bisection=bisection)
    return dict(min_links=2, link_lat=lat, injection=link_bw, bisection=None)


def torus_dims(nodes):
    """Three factors of `nodes`, as equal as possible (largest first)."""
    best = None
    for a in range(1, nodes + 1):
        if nodes % a:
            continue
        for b in range(1, nodes // a + 1):
            if (nodes // a) % b:
                continue
            c = nodes // a // b
            dims = sorted((a, b, c), reverse=True)
            if best is None or dims[0] - dims[2] < best[0] - best[2]:
                best = dims
    return best


def topology(kind, nodes):
    """SimGrid's topo_parameters of the cluster (None for flat)."""
    if kind == "flat":
        return None
    if kind == "fattree":
        leaf = 16 if nodes >= 16 else nodes
        leaves = nodes // leaf
        if leaves * leaf != nodes:
            raise SystemExit(f"fattree: {nodes} nodes is not a multiple of {leaf}")
        if leaves == 1:
            return f"1;{leaf};1;1"
        return f"2;{leaf},{leaves};1,{leaf};1,1"
    if kind == "dragonfly":
        # Groups of 16 nodes (8 or 4 when the node count is smaller).
        per_router, routers, chassis = 2, 4, 2
        while chassis * routers * per_router > 4 and nodes % (chassis * routers * per_router):
            if chassis > 1:
                chassis //= 2
            else:
                routers //= 2
        per_group = per_router * routers * chassis
        groups = nodes // per_group
        if groups * per_group != nodes:
            raise SystemExit(f"dragonfly: {nodes} nodes is not a multiple of {per_group}")
        return f"{groups},1;{chassis},1;{routers},1;{per_router}"
    if kind == "torus":
        return ",".join(str(d) for d in torus_dims(nodes))
    raise SystemExit(f"unknown platform kind {kind}; valid: {', '.join(KINDS)}")


def cluster_xml(kind, nodes, q):
    k = KINDS[kind]
    common = (f'id="{kind}" prefix="node-" suffix="" radical="0-{nodes - 1}" '
              f'speed="{SPEED}" core="{q}" bw="{k["bw"]}" lat="{k["lat"]}" '
              f'loopback_bw="{INTRA["bw"]}" loopback_lat="{INTRA["lat"]}"')
    topo = topology(kind, nodes)
    if kind == "flat":
        return f'<cluster {common} bb_bw="{25 * nodes}GBps" bb_lat="0us" bb_sharing_policy="FATPIPE"/>'
    names = dict(fattree="FAT_TREE", dragonfly="DRAGONFLY", torus="TORUS")
    limiter = f' limiter_link="{k["limiter"]}"' if "limiter" in k else ""
    return f'<cluster {common} topology="{names[kind]}" topo_parameters="{topo}"{limiter}/>'


def si(value):
    """'25GBps' / '0.4us' / '1Gf' -> number in bytes/s, seconds, flop/s."""
    units = [("GBps", 1e9), ("us", 1e-6), ("Gf", 1e9)]
    for suffix, scale in units:
        if value.endswith(suffix):
            return float(value[:-len(suffix)]) * scale
    raise ValueError(value)


def write_node(model, kind, nodes, q, outdir):
    """The .conf of sim/node_platform.cpp and a hostfile with one host per
    rank (node-N-C:1); returns the path without extension."""
    if model not in NODE_MODELS:
        raise SystemExit(f"unknown node model {model}; valid: {', '.join(NODE_MODELS)}")
    k = KINDS[kind]
    topo = topology(kind, nodes)
    os.makedirs(outdir, exist_ok=True)
    base = os.path.join(outdir, f"{kind}-{nodes}x{q}-{model}")
    conf = dict(kind=kind, nodes=nodes, q=q, link_bw=si(k["bw"]), link_lat=si(k["lat"]),
                topo=topo.replace(";", ",") if topo else f"1,{nodes},1,1",  # flat: one switch
                limiter_bw=si(k["limiter"]) if "limiter" in k else 0,
                speed=si(SPEED), **NODE_MODELS[model])
    with open(base + ".conf", "w") as f:
        f.write(f"# generated by sim/platforms.py --node {model} {kind} {nodes} {q}: "
                f"{k['desc']}\n")
        for key, value in conf.items():
            f.write(f"{key} {value}\n")
    with open(base + ".hosts", "w") as f:
        for n in range(nodes):
            for c in range(q):
                f.write(f"node-{n}-{c}:1\n")
    return base


def write(kind, nodes, q, outdir):
    os.makedirs(outdir, exist_ok=True)
    base = os.path.join(outdir, f"{kind}-{nodes}x{q}")
    with open(base + ".xml", "w") as f:
        f.write('<?xml version="1.0"?>\n'
                '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">\n'
                '<platform version="4.1">\n'
                f'  <!-- generated by sim/platforms.py {kind} {nodes} {q}: '
                f'{KINDS[kind]["desc"]} -->\n'
                f'  {cluster_xml(kind, nodes, q)}\n'
                '</platform>\n')
    with open(base + ".hosts", "w") as f:
        for n in range(nodes):
            f.write(f"node-{n}:{q}\n")
    return base


def tuning(kind, nodes, node_model=None):
    """The cost model's constants (src/select/inputs.h) for a simulated
    platform: latencies and bandwidths of the platform file, SMPI's
    per-message overheads (sim/smpi-flags: 3e-8 s to post a small send and as
    much to receive, and below 4096 B 2e-10 s per byte to send and 5e-11 to
    receive), no copy cost (computation is not simulated). With a node model
    (--node): its per-core link for on-node transfers and its memory link as
    the node's limit (beta_node); without one the XML loopback, a fat pipe
    with no node limit."""
    import json
    mod = model(kind, nodes)
    hops = mod["min_links"] + (1.5 if kind == "dragonfly" else 1 if kind == "fattree" else 0)
    if kind == "torus":
        hops = sum(d // 4 for d in torus_dims(nodes)) or 1  # mean distance
    intra_lat = float(INTRA["lat"][:-2]) * 1e-6
    intra_bw = float(INTRA["bw"][:-4]) * 1e9
    beta_remote = 1 / mod["injection"]
    if mod["bisection"]:
        # a torus's bisection, not its injection, limits an all-to-all: about
        # N/(4(N-1)) of all off-node bytes cross it (sim/run's lower bound)
        beta_remote = max(beta_remote, nodes * nodes / (4 * (nodes - 1) * mod["bisection"]))
    beta_node = 0.0
    if node_model:
        m = NODE_MODELS[node_model]
        intra_lat, intra_bw, beta_node = 2 * m["core_lat"], m["core_bw"], 1 / m["mem_bw"]
    return json.dumps({
        "xchg_tuning": 1,
        "generated_by": f"sim/platforms.py --tuning {kind} {nodes}"
                        + (f" --node {node_model}" if node_model else ""),
        "platform": f"SimGrid SMPI: {KINDS[kind]['desc']}, {nodes} nodes"
                    + (f", node model {node_model}" if node_model else ""),
        "model": {"alpha_local": intra_lat, "beta_local": 1 / intra_bw,
                  "alpha_remote": hops * mod["link_lat"], "beta_remote": beta_remote,
                  "overhead": 3e-8, "beta_copy": 0.0,
                  "overhead_per_byte": 2.5e-10, "eager_limit": 4096, "beta_node": beta_node},
        "rules": {}}, indent=2)


def main(argv):
    if len(argv) == 4 and argv[1] == "--tuning":
        print(tuning(argv[2], int(argv[3])))
        return 0
    if len(argv) == 6 and argv[1] == "--tuning" and argv[4] == "--node" and argv[5] in NODE_MODELS:
        print(tuning(argv[2], int(argv[3]), argv[5]))
        return 0
    if len(argv) == 2 and argv[1] == "--list":
        for kind, k in KINDS.items():
            print(f"{kind:10s} {k['desc']}")
        print(f"{'intra-node':10s} loopback {INTRA['lat']}, {INTRA['bw']}; core speed {SPEED}")
        for name, m in NODE_MODELS.items():
            print(f"--node {name:10s} core {m['core_bw'] / 1e9:g} GB/s each way, "
                  f"node memory {m['mem_bw'] / 1e9:g} GB/s")
        return 0
    if len(argv) == 7 and argv[1] == "--node":
        print(write_node(argv[2], argv[3], int(argv[4]), int(argv[5]), argv[6]))
        return 0
    if len(argv) != 5:
        print(__doc__, file=sys.stderr)
        return 2
    print(write(argv[1], int(argv[2]), int(argv[3]), argv[4]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
