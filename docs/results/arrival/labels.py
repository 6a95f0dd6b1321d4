"""The short row names of the arrival studies' figures and tables."""


def label(algo):
    """xchg-bench's algorithm column -> MPI, copy, zerocopy or shm, "(not aware)" for aware=0."""
    if algo == "MPI":
        return "MPI"
    name, rest = algo.split(":", 1)
    params = dict(kv.split("=") for kv in rest.split(","))
    kind = params["scheme"] if name == "rma_direct" else "shm"
    return kind + ("" if params["aware"] == "1" else " (not aware)")
