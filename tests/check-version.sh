#!/usr/bin/env bash
# One version everywhere. include/xchg.h's XCHG_VERSION_* macros are the one
# place it is set (CMakeLists.txt reads them); this checks that everything
# that shows a version agrees with them: CMake's project version, the CMake
# package version file, xchg.pc, the shared library's file name, xchg-info
# --version, the Python package's metadata (python/setup.py), the newest
# version of the Spack package, and CHANGELOG.md's newest release.
# Usage: tests/check-version.sh BUILD_DIR
# Prints one line per place and "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: check-version.sh BUILD_DIR}
python=${XCHG_PYTHON:-/usr/bin/python3}
passed=0
failed=0

version=$(sed -n 's/^#define XCHG_VERSION_\(MAJOR\|MINOR\|PATCH\) \+\([0-9]\+\)$/\2/p' include/xchg.h |
          paste -sd.)
if ! [[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
    echo "FAIL: include/xchg.h: no XCHG_VERSION_MAJOR/MINOR/PATCH (got '$version')"
    echo "0 passed, 1 failed"
    exit 1
fi
echo "include/xchg.h: $version"

# same WHAT FOUND: FOUND must equal the header's version.
same() {
    if [ "$2" = "$version" ]; then
        echo "ok   $1: $2"
        passed=$((passed + 1))
    else
        echo "FAIL $1: '$2', include/xchg.h says $version"
        failed=$((failed + 1))
    fi
}

same "CMake project version (CMakeCache.txt)" \
    "$(sed -n 's/^CMAKE_PROJECT_VERSION:[A-Z]*=//p' "$build/CMakeCache.txt")"
same "CMake package version (xchgConfigVersion.cmake)" \
    "$(sed -n 's/^set(PACKAGE_VERSION "\(.*\)")$/\1/p' "$build/xchgConfigVersion.cmake")"
same "pkg-config (xchg.pc)" "$(sed -n 's/^Version: *//p' "$build/xchg.pc")"
same "shared library (libxchg.so -> libxchg.so.X.Y.Z)" \
    "$(basename "$(readlink -f "$build/libxchg.so")" | sed 's/^libxchg\.so\.//')"
same "xchg-info --version" "$("$build/tools/xchg-info" --version | awk '{print $NF}')"
# The Python package's metadata (its extension's xchg.__version__ comes from
# the same header macros at compile time).
if "$python" -c 'import mpi4py, setuptools' 2>/dev/null; then
    same "Python package (python/setup.py --version)" \
        "$(cd python && "$python" setup.py --version 2>/dev/null | tail -1)"
else
    echo "SKIP Python package: $python has no mpi4py/setuptools (set XCHG_PYTHON)"
fi
same "Spack package (newest version in spack/packages/xchg/package.py)" \
    "$(sed -n 's/^ *version("\([0-9][0-9.]*\)".*/\1/p' spack/packages/xchg/package.py |
       sort -V | tail -1)"
same "CHANGELOG.md (newest release)" \
    "$(sed -n 's/^## \[\([0-9][0-9.]*\)\].*/\1/p' CHANGELOG.md | head -1)"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
