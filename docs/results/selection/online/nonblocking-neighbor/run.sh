#!/usr/bin/env bash
# The neighbourhood alltoallv against the MPI library's own, for the tree
# before this study's change (BEFORE, main at d16267f: a nonblocking call a
# task running the cost model's choice) and after (AFTER, default HEAD:
# `mpi` posted at the call, then its fast path). Both trees exported with
# git archive and built Release (the libraries only) into a temporary
# directory.
#  1. neighbor.c (nonblocking rows: MPI's own, the drop-in's, xchg's API;
#     blocking rows: MPI's own, xchg's) on the `ring` and `all` graphs at
#     NPS ranks, alternating jobs (before, after; after, before; ...), REPS
#     times: results.csv.
#  2. A real program, unmodified: PETSc's KSP tutorial ex2 (a 2-D Laplacian
#     on an M x M grid, rows split across ranks), run as a fixed number of
#     Richardson iterations with Jacobi (ITS MatMults, no norms: no
#     allreduce) with `-sf_type neighbor`, so that every MatMult's halo
#     exchange is PetscSF's MPI_Ineighbor_alltoallv on a distributed-graph
#     communicator, then MPI_Wait after the local product. Under the
#     MPI library alone (`MPI`) and under each tree's drop-in (LD_PRELOAD of
#     libxchg-mpi.so), alternating, at PETSC_NPS ranks, PETSC_REPS times; -log_view's MatMult
#     and KSPSolve times (the slowest rank's), the error norm and the
#     iterations (they must agree): petsc.csv. Needs petsc-dev (Debian's
#     3.18: its examples package has ex2.c); PETSC_M="" skips it.
#   usage: docs/results/selection/online/nonblocking-neighbor/run.sh
#   env:   NPS="2 4" GRAPHS="ring all" REPS=2 MIN=16 MAX=65536 ITERS=200 ROUNDS=5
#          WARM=50 BEFORE=d16267f AFTER=HEAD (AFTER=. : this working tree)
#          (REPS=4 for the tables of README.md)
#          PETSC_M="50 200" PETSC_ITS=4000 PETSC_NPS="2 4" PETSC_REPS=8
#          (NPS="": no microbenchmark, results.csv kept)
#          LAUNCH="mpirun.openmpi --oversubscribe" MPICC=mpicc.openmpi
#   writes results.csv and petsc.csv here (every row of every job), then
#   runs tables.py
# About 10 minutes on this project's 2-core machine.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../../../.."
root=$PWD
nps=${NPS:-"2 4"} graphs=${GRAPHS:-"ring all"} reps=${REPS:-2}
read -r -a launch <<< "${LAUNCH:-mpirun.openmpi --oversubscribe}"
export OMPI_ALLOW_RUN_AS_ROOT=${OMPI_ALLOW_RUN_AS_ROOT:-1}
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-1}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
declare -A rev=([before]=${BEFORE:-d16267f} [after]=${AFTER:-HEAD})
for side in before after; do # the CSV's rev: a commit's short hash
    [ "${rev[$side]}" = . ] || rev[$side]=$(git rev-parse --short "${rev[$side]}")
done
for side in before after; do
    mkdir -p "$tmp/$side"
    if [ "${rev[$side]}" = . ]; then
        tar -C "$root" --exclude='./build*' --exclude=./.devkit --exclude=./.git -cf - . |
            tar -x -C "$tmp/$side"
    else
        git archive "${rev[$side]}" | tar -x -C "$tmp/$side"
    fi
    echo "# building $side (${rev[$side]})" >&2
    cmake -S "$tmp/$side" -B "$tmp/$side/build" -G Ninja -DMPI_C_COMPILER="${MPICC:-mpicc.openmpi}" \
        -DCMAKE_BUILD_TYPE=Release -DXCHG_BUILD_TESTS=OFF >/dev/null
    ninja -C "$tmp/$side/build" xchg_shared xchg_mpi >/dev/null
    b=$tmp/$side/build
    "${MPICC:-mpicc.openmpi}" -O2 -I"$tmp/$side/include" "$here/neighbor.c" -o "$b/neighbor" \
        -L"$b/src/interpose" -lxchg-mpi -L"$b" -lxchg -Wl,-rpath,"$b/src/interpose:$b"
done
csv=$here/results.csv
[ -z "$nps" ] || echo "side,rev,job,graph,P,bytes,form,row,algorithm,median_us,ratio" > "$csv"
job=0
for ((r = 0; r < reps && ${#nps} > 0; r++)); do
    order="before after"
    [ $((r % 2)) = 1 ] && order="after before"
    for np in $nps; do
        for graph in $graphs; do
            for side in $order; do
                job=$((job + 1))
                echo "# job $job: $side, P=$np, $graph" >&2
                timeout 600 "${launch[@]}" -n "$np" "$tmp/$side/build/neighbor" "$graph" \
                    "${MIN:-16}" "${MAX:-65536}" "${ITERS:-200}" "${ROUNDS:-5}" "${WARM:-50}" |
                    tail -n +2 | sed "s/^/$side,${rev[$side]},$job,/" >> "$csv"
            done
        done
    done
done

petsc_m=${PETSC_M-50 200}
ex2=/usr/share/petsc/3.18/share/petsc/examples/src/ksp/ksp/tutorials/ex2.c
if [ -n "$petsc_m" ] && [ -f "$ex2" ]; then
    "${MPICC:-mpicc.openmpi}" -O2 "$ex2" -o "$tmp/ex2" $(pkg-config --cflags --libs PETSc)
    echo "side,rev,rep,m,P,its,norm,matmult_s,kspsolve_s" > "$here/petsc.csv"
    for ((r = 0; r < ${PETSC_REPS:-8}; r++)); do
        order="MPI before after"
        [ $((r % 2)) = 1 ] && order="after before MPI"
        for m in $petsc_m; do
          for np in ${PETSC_NPS:-2 4}; do
            for side in $order; do
                echo "# petsc ex2 m=$m, P=$np, $side, rep $r" >&2
                preload=()
                [ "$side" = MPI ] ||
                    preload=(-x "LD_PRELOAD=$tmp/$side/build/src/interpose/libxchg-mpi.so")
                out=$(timeout 600 "${launch[@]}" -n "$np" "${preload[@]}" "$tmp/ex2" \
                    -m "$m" -n "$m" -sf_type neighbor -ksp_type richardson -pc_type jacobi \
                    -ksp_norm_type none -ksp_max_it "${PETSC_ITS:-4000}" -log_view)
                norm=$(sed -n 's/^Norm of error \([^ ]*\) iterations \([0-9]*\)/\1,\2/p' <<< "$out")
                matmult=$(awk '$1 == "MatMult" {print $4}' <<< "$out")
                solve=$(awk '$1 == "KSPSolve" {print $4}' <<< "$out")
                echo "$side,${rev[$side]:-none},$r,$m,$np,${norm#*,},${norm%,*},$matmult,$solve" \
                    >> "$here/petsc.csv"
            done
          done
        done
    done
fi
/usr/bin/python3 "$here/tables.py"
