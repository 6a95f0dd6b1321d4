#!/usr/bin/env bash
# Makes .devkit/, the folder that travels (as a carried, ignored path) to a
# lent machine that has a GPU but no Debian Open MPI (scripts/device/run.sh):
#   .devkit/root/   Debian 12's Open MPI 4.1 (runtime, headers, mpicc wrapper
#                   data) with the libraries tied to it (PMIx, hwloc,
#                   libevent), unpacked from the .debs with dpkg -x;
#                   relocated with OPAL_PREFIX and PMIX_PREFIX
#                   (scripts/device/env.sh); components that need InfiniBand,
#                   UCX, libfabric, PSM or OpenSHMEM are left out (Debian's
#                   own openmpi-mca-params.conf turns most off anyway)
#   .devkit/deps/   generic libraries they need (zlib, libudev, munge): used
#                   only where the machine has no library of that soname
#   .devkit/build/  a Release build of xchg's benchmark and device-check
#                   programs against that Open MPI: run.sh uses it only if
#                   building on the machine fails
# Run in the repository root of the checkout that calls the machine:
#   bash scripts/device/make-kit.sh     (apt-get download: needs the network)
# and keep .devkit/ out of git: echo /.devkit/ >> .git/info/exclude
set -euo pipefail
cd "$(dirname "$0")/../.."
kit=.devkit
rm -rf "$kit"
mkdir -p "$kit/debs" "$kit/root" "$kit/deps"
grep -qx '/.devkit/' "$(git rev-parse --git-path info/exclude)" 2>/dev/null ||
    echo "warning: .devkit/ is not in .git/info/exclude (echo /.devkit/ >> $(git rev-parse --git-path info/exclude))" >&2

# Open MPI itself and the libraries tied to it (root/, always used; FFTW's
# double precision for xchg-fft3d, step_extra's "fft"), and the
# generic libraries it needs (deps/, used only where the machine has none).
main_pkgs="openmpi-bin openmpi-common libopenmpi3 libopenmpi-dev libpmix2 libhwloc15
           libevent-core-2.1-7 libevent-pthreads-2.1-7 libfftw3-double3 libfftw3-dev"
dep_pkgs="zlib1g libudev1 libmunge2"
(cd "$kit/debs" && apt-get download $main_pkgs >/dev/null)
for deb in "$kit"/debs/*.deb; do dpkg -x "$deb" "$kit/root"; done
rm -f "$kit"/debs/*.deb
(cd "$kit/debs" && apt-get download $dep_pkgs >/dev/null)
for deb in "$kit"/debs/*.deb; do dpkg -x "$deb" "$kit/debs/x"; done
find "$kit/debs/x" \( -type f -o -type l \) -name 'lib*.so.*' -exec mv {} "$kit/deps/" \;
rm -rf "$kit/debs"

r=$kit/root
ompi=$r/usr/lib/x86_64-linux-gnu/openmpi
# What no benchmark needs: documentation, Fortran and Java bindings, static
# libraries, OpenSHMEM, and the components for networks a single machine has
# not (their libraries do not travel; Debian's openmpi-mca-params.conf turns
# most of them off anyway).
rm -rf "$r/usr/share/man" "$r/usr/share/doc" "$r/usr/share/lintian" \
       "$r/usr/lib/x86_64-linux-gnu/fortran" "$r/usr/share/java"
find "$r" \( -name '*.a' -o -name '*.la' -o -name '*mpifh*' -o -name '*usempi*' -o -name '*oshmem*' \
             -o -name '*mpi_java*' -o -name 'mpi.jar' -o -name '*mpi_cxx*' -o -name '*caf_openmpi*' \) \
     -exec rm -rf {} +
for c in ucx ofi openib psm psm2 usnic verbs portals4 uct ucc hcoll fca mxm pvfs2 lustre gpfs ime; do
    find "$r" \( -name "mca_*_${c}*.so" -o -name "libmca_common_${c}*" \) -delete
done
# OpenSHMEM's components, and netlink's (which interface reaches which host)
find "$r" \( -name 'mca_scoll_*' -o -name 'mca_sshmem_*' -o -name 'mca_atomic_*' -o -name 'mca_memheap_*' \
             -o -name 'mca_spml_*' -o -name 'mca_reachable_netlink*' \) -delete
find "$r" -path '*/pmix/*' -name '*_slurm*' -delete
find "$r" -type l -lname "/*" -delete # absolute links (the alternatives' libmpi.so) point off the kit
find "$r" -xtype l -delete # links left dangling by what was removed

# Every library some kept program or component needs must be in the kit or
# be glibc's: list what is not.
glibc='^(libc|libm|libdl|libpthread|librt|libutil|libresolv|ld-linux-x86-64|libgcc_s)\.so'
needed=$(find "$r" "$kit/deps" -type f \( -name '*.so*' -o -perm -u+x \) -exec sh -c \
            'file "$1" | grep -q ELF && readelf -d "$1" | sed -n "s/.*NEEDED.*\[\(.*\)\]/\1/p"' _ {} \; |
         sort -u)
missing=
for so in $needed; do
    [[ $so =~ $glibc ]] && continue
    if ! find "$r" "$kit/deps" -name "$so" | grep -q .; then missing="$missing $so"; fi
done
if [ -n "$missing" ]; then
    echo "libraries needed but not in the kit:$missing" >&2
    for so in $missing; do
        find "$r" "$kit/deps" -type f -exec sh -c \
            'readelf -d "$1" 2>/dev/null | grep -q "\[$2\]" && echo "  $2 <- $1"' _ {} "$so" \; >&2
    done
    exit 1
fi
# the newest glibc symbol version anything in the kit asks for
echo "glibc needed: $(find "$r" "$kit/deps" -type f -exec sh -c 'file "$1" | grep -q ELF && objdump -T "$1"' _ {} \; 2>/dev/null |
     grep -o 'GLIBC_2\.[0-9]*' | sort -t. -k2 -n -u | tail -1)"

# A Release build of the programs run.sh needs, against the kit's Open MPI,
# as the fallback should the machine not build; as there, without hwloc and
# Jansson (the machine has neither's headers; hwloc only names NUMA domains
# and sockets, which the MPI tells too).
# shellcheck source=scripts/device/env.sh
. scripts/device/env.sh
cmake -S . -B "$kit/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DMPI_C_COMPILER=mpicc.openmpi -DXCHG_WITH_JANSSON=OFF -DXCHG_WITH_HWLOC=OFF >"$kit/cmake.log" 2>&1 ||
    { cat "$kit/cmake.log" >&2; exit 1; }
rm -f "$kit/cmake.log"
nice -n 10 ninja -C "$kit/build" xchg-bench xchg-info xchg-gpu-check >/dev/null
# only the programs, and the cache gpu-check.sh reads the MPI wrapper's name
# from (by name: found on the PATH where the kit is)
sed -i 's|^MPI_C_COMPILER:FILEPATH=.*|MPI_C_COMPILER:FILEPATH=mpicc.openmpi|' "$kit/build/CMakeCache.txt"
find "$kit/build" -mindepth 1 -maxdepth 1 ! -name tools ! -name tests ! -name CMakeCache.txt -exec rm -rf {} +
find "$kit/build/tools" "$kit/build/tests" -type f ! -name xchg-bench ! -name xchg-info ! -name xchg-gpu-check -delete
find "$kit/build" -type d -empty -delete
find "$kit" -type f -exec sh -c 'file "$1" | grep -q "ELF.*not stripped" && strip --strip-unneeded "$1"' _ {} \;
du -sh "$kit" "$kit"/*
