"""python -m xchg.info: what xchg has and what it would choose, as
xchg-info prints it (tools/xchg_info.c), through the package.

    python -m xchg.info                    the algorithms of every collective
    python -m xchg.info --select alltoallv --bytes 64 --ranks 1024 --ppn 16
                                           the choice for that case on any
                                           machine, why, and the model's
                                           cheapest candidates
    mpirun -n 8 python -m xchg.info --select alltoall --bytes 64
                                           the choice on MPI.COMM_WORLD
                                           (honours XCHG_ALLTOALL etc.)
"""
import argparse
import sys

from mpi4py import MPI

import xchg

# The order of xchg-info's listings.
ORDER = ("alltoallv", "alltoall", "allgather", "neighbor_alltoallv")


def print_algorithms(out=sys.stdout):
    for coll in ORDER:
        algos = xchg.algorithms(coll)
        print("%s (%d algorithms; select with XCHG_%s=name[:param=value,...])"
              % (coll, len(algos), coll.upper()), file=out)
        for a in algos:
            print("  %-22s %s%s" % (a["name"], a["summary"],
                                    " [hierarchical]" if a["hierarchical"] else ""), file=out)
            for p in a["params"]:
                print("  %-22s   %s%s" % ("", p["description"],
                                          ": " + p["help"] if p["help"] else ""), file=out)
        print(file=out)


def print_selection(args, comm, out=sys.stdout):
    model = args.ranks is not None
    result = xchg.select(args.select, args.bytes if args.bytes is not None else 0,
                         comm=None if model else comm, ranks=args.ranks,
                         ranks_per_node=args.ppn, peers=args.peers, pattern=args.pattern,
                         predict=args.predict, top=args.top)
    if comm.Get_rank() != 0 and not model:
        return
    print(result["selection"], file=out)
    print("# %s, P=%d on %d node(s) of %d..%d ranks, %s B per block (the model sees %d): "
          "decided by %s" % (args.select, result["ranks"], result["nodes"],
                             result["min_node_size"], result["max_node_size"],
                             args.bytes if args.bytes is not None else "-",
                             result["model_bytes"], result["why"]), file=out)
    for sel, us in result["predict"].items():
        print("predict %s %s" % (sel, "unmodelled" if us is None else
                                 us if isinstance(us, str) else "%.3f" % us), file=out)
    if result["ranking"]:
        print("# the cost model's %d cheapest of %d candidates (us):"
              % (len(result["ranking"]), result["candidates"]), file=out)
        print("# %4s %10s %9s %9s %9s %9s  %s" % ("rank", "predicted", "latency", "overhead",
                                                  "bandwidth", "copy", "candidate"), file=out)
        for i, (sel, us, lat, ovh, bw, cp) in enumerate(result["ranking"]):
            print("# %4d %10.2f %9.2f %9.2f %9.2f %9.2f  %s" % (i + 1, us, lat, ovh, bw, cp, sel),
                  file=out)


def parse_args(argv):
    p = argparse.ArgumentParser(prog="python -m xchg.info", description=__doc__.split("\n")[0])
    p.add_argument("--select", choices=xchg.COLLECTIVES, help="the collective of the case")
    p.add_argument("--bytes", type=int, help="bytes per block (alltoallv: the mean block)")
    p.add_argument("--ranks", type=int, help="P: a case on any machine (with --ppn)")
    p.add_argument("--ppn", type=int, help="ranks per node (with --ranks)")
    p.add_argument("--peers", type=int, default=0, help="alltoallv: non-empty blocks per rank")
    p.add_argument("--pattern", help="neighbor_alltoallv: RM,LM,RB,LB,D")
    p.add_argument("--predict", action="append", default=[], metavar="SEL",
                   help="the model's time of SEL in the case (repeatable)")
    p.add_argument("--top", type=int, default=10, help="cheapest candidates to list")
    a = p.parse_args(argv)
    if (a.ranks is None) != (a.ppn is None):
        p.error("--ranks and --ppn go together")
    if a.pattern is not None:
        try:
            a.pattern = tuple(int(v) for v in a.pattern.split(","))
        except ValueError:
            a.pattern = ()
        if len(a.pattern) != 5:
            p.error("--pattern takes RM,LM,RB,LB,D")
    if a.select and a.select != "neighbor_alltoallv" and a.bytes is None:
        p.error("--select needs --bytes")
    if a.select == "neighbor_alltoallv" and a.pattern is None and a.ranks is not None:
        p.error("neighbor_alltoallv needs --pattern RM,LM,RB,LB,D")
    return a


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    comm = MPI.COMM_WORLD
    try:
        if args.select:
            print_selection(args, comm)
        elif comm.Get_rank() == 0:
            print("xchg %s on %s\n" % (xchg.__version__,
                                       MPI.Get_library_version().split("\n")[0].split(",")[0]))
            print_algorithms()
    except xchg.Error as e:
        print("python -m xchg.info: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
