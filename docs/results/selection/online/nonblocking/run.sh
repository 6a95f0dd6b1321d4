#!/usr/bin/env bash
# Nonblocking calls started and waited for at once (nonblocking.c): MPI's own
# (PMPI_I...), the drop-in's (MPI_I... through libxchg-mpi) and xchg's API
# (XCHG_I...), for the tree before this study's work (BEFORE, main at
# 9263752: every nonblocking call a task, the model's choice) and after
# (AFTER, default HEAD). Both trees exported with git archive and built
# Release (the libraries only) into a temporary directory; then alternating
# jobs (before, after; after, before; ...) at 2 and 4 ranks, with nothing
# learned (LEARN 0) and after 400 blocking calls of each shape (online
# selection decided it: its winner is what the nonblocking calls may take).
# Then a real program's nonblocking calls: the 3-D FFT of apps/fft
# (xchg-fft3d --pipeline=4: every transpose an XCHG_Ialltoallv, batch and
# pipelined, interleaved per iteration with the same FFT through
# MPI_Ialltoallv), both trees alternating, FFT_NS sizes, FFT_REPS times.
#   usage: docs/results/selection/online/nonblocking/run.sh
#   env:   NPS="2 4" LEARNS="0 400" REPS=2 MIN=16 MAX=65536 ITERS=200 ROUNDS=5
#          WARM=50 BEFORE=9263752 AFTER=HEAD (AFTER=. : this working tree)
#          FFT_NS="32 64 128" FFT_REPS=3 FFT_NP=4 (FFT_NS="": no FFT; needs FFTW)
#          LAUNCH="mpirun.openmpi --oversubscribe" MPICC=mpicc.openmpi
#   writes results.csv and fft.csv here (every row of every job), then
#   runs tables.py
# About 3 minutes on this project's 2-core machine.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../../../.."
root=$PWD
nps=${NPS:-"2 4"} learns=${LEARNS:-"0 400"} reps=${REPS:-2}
read -r -a launch <<< "${LAUNCH:-mpirun.openmpi --oversubscribe}"
export OMPI_ALLOW_RUN_AS_ROOT=${OMPI_ALLOW_RUN_AS_ROOT:-1}
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-1}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
declare -A rev=([before]=${BEFORE:-9263752} [after]=${AFTER:-HEAD})
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
    [ -z "${FFT_NS-32 64 128}" ] || ninja -C "$tmp/$side/build" xchg-fft3d >/dev/null
    b=$tmp/$side/build
    "${MPICC:-mpicc.openmpi}" -O2 -I"$tmp/$side/include" "$here/nonblocking.c" -o "$b/nonblocking" \
        -L"$b/src/interpose" -lxchg-mpi -L"$b" -lxchg -Wl,-rpath,"$b/src/interpose:$b"
done
csv=$here/results.csv
echo "side,rev,job,coll,P,bytes,learn,blocking,row,algorithm,median_us,ratio" > "$csv"
job=0
for ((r = 0; r < reps; r++)); do
    order="before after"
    [ $((r % 2)) = 1 ] && order="after before"
    for np in $nps; do
        for learn in $learns; do
            for side in $order; do
                job=$((job + 1))
                echo "# job $job: $side, P=$np, learn $learn" >&2
                timeout 600 "${launch[@]}" -n "$np" "$tmp/$side/build/nonblocking" "${MIN:-16}" \
                    "${MAX:-65536}" "${ITERS:-200}" "${ROUNDS:-5}" "${WARM:-50}" "$learn" |
                    tail -n +2 | sed "s/^/$side,${rev[$side]},$job,/" >> "$csv"
            done
        done
    done
done
fft_ns=${FFT_NS-32 64 128}
if [ -n "$fft_ns" ]; then
    echo "side,rev,rep,n,P,grid,algo,total_s,exchange_s,compute_s,checked,mode,init_s" \
        > "$here/fft.csv"
    for ((r = 0; r < ${FFT_REPS:-3}; r++)); do
        order="before after"
        [ $((r % 2)) = 1 ] && order="after before"
        for side in $order; do
            for n in $fft_ns; do
                echo "# fft $n^3, $side, rep $r" >&2
                timeout 600 "${launch[@]}" -n "${FFT_NP:-4}" "$tmp/$side/build/apps/fft/xchg-fft3d" \
                    --n="${n}x${n}x${n}" --algos=auto --baselines=MPI_Alltoallv --pipeline=4 \
                    --iters=20 --warmup=3 --no-header | grep , |
                    sed "s/^/$side,${rev[$side]},$r,/" >> "$here/fft.csv"
            done
        done
    done
fi
/usr/bin/python3 "$here/tables.py"
