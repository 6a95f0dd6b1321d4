"""xchg-tune: measure every algorithm and write a tuning file.

Runs a benchmark over a grid (process counts x node layouts x collectives x
block sizes x every algorithm with a few parameter values), keeps the fastest
algorithm of each point, merges adjacent sizes with the same winner into one
rule (boundaries at geometric midpoints, the first and last ranges open) and
writes the JSON tuning file that xchg reads from XCHG_TUNING_FILE (format:
docs/tuning.md), with the cost model's constants (the "model" key).

On this machine (the default): xchg-bench under mpirun, layouts from
--virtual-nodes, model constants fitted to the measurements.

    tools/xchg-tune -o ~/.xchg-tuning.json
    export XCHG_TUNING_FILE=~/.xchg-tuning.json

On a simulated platform (--smpi KIND, SimGrid SMPI, KIND one of
sim/platforms.py's flat, fattree, dragonfly, torus):

    tools/xchg-tune --smpi dragonfly --np 64,256 --ppn 16 [--node calibrated] -o df.json

For every P of --np and Q of --ppn (ranks per node) with Q dividing P,
sim/platforms.py builds P/Q nodes of Q ranks: its XML cluster, or with
--node MODEL the node platform (sim/node_platform.cpp, loaded from
build-smpi/sim/libxchg-node-platform.so with XCHG_SIM_PLATFORM and
XCHG_VIRTUAL_NODES=Q), as sim/run does (sim/simbench.py, shared with
sim/run, gives smpi_flags(), xchg-simbench's CSV fields and block sizes;
sim/platforms.py write(), write_node() and tuning()); a (P, Q) it cannot build (a dragonfly of 2 nodes) is skipped.
Each (P, Q, collective, size, distribution) is ONE smpirun of
build-smpi/sim/xchg-simbench with sim/smpi-flags, --smpi-cfg,
--cfg=smpi/coll-selector:mpich and every variant of the point as
arguments, -i 2 -x 1 (see SMPI_WARMUP). The host build's xchg-info first
drops the variants that cannot run at (P, Q) (xchg-info --predict): one that
fails makes xchg-simbench crash. The time of
a variant is xchg-simbench's t_min, as in sim/run: simulated seconds,
without noise (ties are common: the earlier variant wins). The variant
"mpi" (xchg's PMPI pass-through) is timed as xchg-simbench's "mpi", the
same MPI collective called directly. A point whose smpirun crashes loses
the variant that crashed (the others run again), one that runs past
--timeout is skipped; both are reported. The rules' bytes are what the
library matches (see "bytes" below; alltoallv under several --dists: every
point keyed by its own, so the distributions interleave); several P give
comm_size ranges and several Q at one P ppn ranges, as on this machine.
The model constants are the platform's own (sim/platforms.py --tuning KIND
NODES [--node MODEL], for the most nodes tuned), not a fit; "platform" and
"comment" say that the file was simulated, on what, and at which (P, Q).

Only the Python 3 standard library is needed. The package's modules:
settings (parameter values, SMPI constants, where things are), cli (options,
main), jobs (variants, xchg-bench jobs, the grid runner), smpi (--smpi jobs),
rules (winners and ranges), model (constants), output (the file). The
command is tools/xchg-tune (installed: <prefix>/bin/xchg-tune), or
`python3 -m xchg_tune` with tools/ on PYTHONPATH.
"""
