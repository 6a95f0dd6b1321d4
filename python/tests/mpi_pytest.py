"""Run pytest on one rank of an MPI launch: mpi_pytest.py LOGPREFIX PYTEST-ARGS...

Rank 0 writes to stdout; rank r > 0 to LOGPREFIX.rank<r>, so that the
launch's output is one readable pytest report.
"""
import os
import sys


def main():
    prefix, args = sys.argv[1], sys.argv[2:]
    rank = int(os.environ.get("OMPI_COMM_WORLD_RANK") or os.environ.get("PMI_RANK") or 0)
    if rank > 0:
        fd = os.open("%s.rank%d" % (prefix, rank), os.O_WRONLY | os.O_CREAT | os.O_TRUNC,
                     0o644)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.close(fd)
    import pytest
    sys.exit(pytest.main(args))


if __name__ == "__main__":
    main()
