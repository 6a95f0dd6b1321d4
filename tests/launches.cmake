# Every test launch, one line each: CTest registers them (ctest -L quick,
# ctest -R harness-openmpi-8) and scripts/run-tests runs them through ctest.
#
#   xchg_launch(NAME  SET  TIMEOUT  LABELS  [NP N] [ENV VAR=VALUE...] [REQUIRES PROGRAM...]
#               COMMAND PROGRAM ARG...)
#
# SET is the build tree that runs it: openmpi (build/), mpich (build-mpich/),
# sanitizers (build-asan/). LABELS: quick (scripts/run-tests --quick), full
# (scripts/run-tests), both for a launch in both runs, plus a category. NP N
# runs PROGRAM under the build's mpiexec with N ranks. A launch prints
# "N passed, N failed" as its last such line, or counts as one case by its
# exit status. All fields: cmake/XchgLaunches.cmake.

set(build ${PROJECT_BINARY_DIR})
set(harness $<TARGET_FILE:xchg-harness>)
# The MPI launcher as one string, for scripts that take it as an argument.
string(REPLACE ";" " " mpirun "${MPIEXEC_EXECUTABLE};${XCHG_TEST_MPIEXEC_PREFLAGS}")
# The SimGrid build that sim/smoke makes and tune-smpi uses.
set(XCHG_TEST_SMPI_BUILD ${PROJECT_SOURCE_DIR}/build-smpi CACHE PATH
    "The SimGrid SMPI build tree of the sim launches (sim/smoke configures it)")

# The libraries call MPI only through PMPI; every defined algorithm is registered;
# the README's algorithm table matches the registry; one version everywhere;
# the Spack package's CMake arguments are options of this build.
xchg_launch(pmpi-openmpi       openmpi 30  "quick;full" COMMAND tests/check-pmpi.sh $<TARGET_FILE:xchg_shared>)
xchg_launch(pmpi-mpich         mpich   30  "quick;full" COMMAND tests/check-pmpi.sh $<TARGET_FILE:xchg_shared>)
xchg_launch(inventory          openmpi 30  "quick;full" COMMAND tests/check-inventory.sh ${build})
xchg_launch(readme-algorithms  openmpi 60  "quick;full" ENV XCHG_BUILD_DIR=${build} COMMAND scripts/readme-algorithms --check)
xchg_launch(version            openmpi 60  "quick;full" COMMAND tests/check-version.sh ${build})
xchg_launch(spack              openmpi 300 "quick;full;spack" COMMAND python3 tests/check-spack.py --cmake ${CMAKE_COMMAND} --mpicc ${MPI_C_COMPILER})

# The tools and the Python extension include no private header of the
# library; the public introspection API (tests/introspect.c) through
# <xchg.h> alone, against selection and the model, both MPIs and ASan.
xchg_launch(public-api         openmpi 30  "quick;full" COMMAND tests/check-public-api.sh)
xchg_launch(introspect-openmpi-6 openmpi    60  "quick;full" NP 6 ENV XCHG_VIRTUAL_NODES=2 COMMAND $<TARGET_FILE:xchg-introspect>)
xchg_launch(introspect-mpich-3   mpich      60  "quick;full" NP 3 COMMAND $<TARGET_FILE:xchg-introspect>)
xchg_launch(introspect-asan-3    sanitizers 120 "quick;full" NP 3 COMMAND $<TARGET_FILE:xchg-introspect>)

# MPI_Request_free and MPI_Comm_free with xchg calls in flight return at once;
# the calls complete later, nothing leaks (tests/freeing.c).
xchg_launch(freeing-openmpi-4  openmpi    120 "quick;full" NP 4 ENV XCHG_VIRTUAL_NODES=2 COMMAND $<TARGET_FILE:xchg-freeing>)
xchg_launch(freeing-mpich-3    mpich      300 "quick;full" NP 3 COMMAND $<TARGET_FILE:xchg-freeing>)
xchg_launch(freeing-asan-3     sanitizers 300 "quick;full" NP 3 COMMAND $<TARGET_FILE:xchg-freeing>)

# The correctness harness (tests/harness.c), quick: small worlds.
xchg_launch(harness-openmpi-8  openmpi    400 quick NP 8 COMMAND ${harness} --quick --sizes=1,2,3,4,5,8)
xchg_launch(harness-mpich-3    mpich      300 quick NP 3 COMMAND ${harness} --quick --sizes=1,3 --layouts=3)
xchg_launch(harness-asan-3     sanitizers 300 quick NP 3 COMMAND ${harness} --quick --sizes=3 --layouts=2 --leak-test=20)
# Full: Open MPI, world of 16: P <= 8 all 12 layouts; P = 12, 16 the first 5
# (one node, nodes of 2, 3 cyclic, 4, "3,2,4"), at most 6 parameter points
# there; a world of 7; MPICH at 4 ranks (it busy-polls: no oversubscription)
# on the first 5 layouts (with 6, 700 s: 40% of CI's test time; the sixth,
# "1,5" cyclic, is Open MPI's at 16 and 7); ASan with communicator churn
# under LeakSanitizer; valgrind on a small case.
xchg_launch(harness-openmpi-16 openmpi    1200 full NP 16 COMMAND ${harness} --sizes=1,2,3,4,5,7,8,12,16 --layouts-large=5 --points=6)
xchg_launch(harness-openmpi-7  openmpi    400  full NP 7  COMMAND ${harness} --sizes=3,5,7 --seed=7 --layouts=6 --leak-test=20)
xchg_launch(harness-mpich-4    mpich      1500 full NP 4  COMMAND ${harness} --sizes=1,2,3,4 --seed=3 --layouts=5 --points-small=10)
xchg_launch(harness-asan-4     sanitizers 600  full NP 4  COMMAND ${harness} --quick --sizes=1,3,4 --seed=5 --layouts=4 --leak-test=100)
xchg_launch(valgrind-mpich-2   mpich      600  "full;valgrind" NP 2 REQUIRES valgrind COMMAND valgrind -q --error-exitcode=42 --leak-check=full --errors-for-leak-kinds=definite --suppressions=tests/valgrind.supp ${harness} --quick --sizes=2 --layouts=2 --points=1 --points-small=1 --leak-test=10)
# ParLogNa's measured scratch peak and message counts equal its documented
# schedule, every (P <= 12, r, bounce).
xchg_launch(parlogna-memory    openmpi    300  full NP 12 COMMAND $<TARGET_FILE:test_parlogna_memory>)

# Neighbourhood alltoallv against PMPI_Neighbor_alltoallv on random graphs.
xchg_launch(neighbor-openmpi-7 openmpi 60  "quick;full" NP 7 COMMAND $<TARGET_FILE:xchg-neighbor> --graphs=12 --seed=1)
xchg_launch(neighbor-mpich-3   mpich   120 "quick;full" NP 3 COMMAND $<TARGET_FILE:xchg-neighbor> --graphs=12 --seed=2)
# The one-sided arrival-aware algorithms (tests/arrival.c): 2000 calls per
# case under seeded random arrival delays, every result against MPI. Open MPI
# 4.1 here offers RMA windows over user memory only through osc/pt2pt (no
# RDMA-capable BTL), so one launch selects it: zerocopy runs there, and falls
# back to the copy scheme in the default launch. Virtual nodes give
# shm_direct an inter-node phase.
xchg_launch(arrival-openmpi-5       openmpi 300 "quick;full" NP 5 ENV XCHG_VIRTUAL_NODES=2 COMMAND $<TARGET_FILE:xchg-arrival> --calls=2000 --seed=1)
xchg_launch(arrival-openmpi-pt2pt-4 openmpi 300 "quick;full" NP 4 ENV OMPI_MCA_osc=sm,pt2pt COMMAND $<TARGET_FILE:xchg-arrival> --calls=2000 --seed=2)
xchg_launch(arrival-mpich-2         mpich   300 "quick;full" NP 2 ENV XCHG_VIRTUAL_NODES=1 COMMAND $<TARGET_FILE:xchg-arrival> --calls=2000 --seed=3)
# Automatic selection: the same choice on every rank (alltoallv counts that
# differ between ranks, XCHG_AGREE sampled/always/never; neighbourhood graphs
# whose degree differs between ranks), results against MPI; uneven virtual
# nodes of 4 and 2, nodes of 2 and of 3 (the model must choose locality for
# the multigraph, standard for the ring, on every rank).
xchg_launch(select-openmpi-6        openmpi 120 "quick;full" NP 6 ENV XCHG_VIRTUAL_NODES=4,2 COMMAND $<TARGET_FILE:xchg-select> --calls=40)
xchg_launch(select-openmpi-6-nodes2 openmpi 120 "quick;full" NP 6 ENV XCHG_VIRTUAL_NODES=2 COMMAND $<TARGET_FILE:xchg-select> --calls=8)
xchg_launch(select-openmpi-5-nodes3 openmpi 120 "quick;full" NP 5 ENV XCHG_VIRTUAL_NODES=3 COMMAND $<TARGET_FILE:xchg-select> --calls=8)
xchg_launch(select-mpich-3          mpich   120 "quick;full" NP 3 COMMAND $<TARGET_FILE:xchg-select> --calls=20)
# Online selection: exploration ends on the slowest rank's winner, the same on
# every rank under rank-dependent forced times; early drops, the margin,
# short calls (tests/online_explore.c); the fast path, drift, XCHG_ONLINE
# (tests/online.c); results against MPI; learned choices written, merged and
# read back (tests/check-online.sh). Both MPIs; a few seconds each.
xchg_launch(online-openmpi-4        openmpi 120 "quick;full" NP 4 COMMAND $<TARGET_FILE:xchg-online>)
xchg_launch(online-openmpi-5-nodes2 openmpi 120 "quick;full" NP 5 ENV XCHG_VIRTUAL_NODES=2 COMMAND $<TARGET_FILE:xchg-online>)
xchg_launch(online-mpich-3          mpich   300 "quick;full" NP 3 COMMAND $<TARGET_FILE:xchg-online>)
xchg_launch(online-explore-openmpi-4        openmpi 120 "quick;full" NP 4 COMMAND $<TARGET_FILE:xchg-online-explore>)
xchg_launch(online-explore-openmpi-5-nodes2 openmpi 120 "quick;full" NP 5 ENV XCHG_VIRTUAL_NODES=2 COMMAND $<TARGET_FILE:xchg-online-explore>)
xchg_launch(online-explore-mpich-3          mpich   300 "quick;full" NP 3 COMMAND $<TARGET_FILE:xchg-online-explore>)
# two ranks: one peer, no composed candidate; and P = 1
xchg_launch(online-explore-openmpi-2        openmpi 120 "full" NP 2 COMMAND $<TARGET_FILE:xchg-online-explore>)
xchg_launch(online-explore-openmpi-1        openmpi 120 "full" NP 1 COMMAND $<TARGET_FILE:xchg-online-explore>)
# under the sanitizers at an odd P (the fast path's kept arguments: int64_t arrays after P ints)
xchg_launch(online-explore-asan-3           sanitizers 300 "full" NP 3 COMMAND $<TARGET_FILE:xchg-online-explore>)
xchg_launch(online-persist-openmpi  openmpi 120 "quick;full" COMMAND tests/check-online.sh ${build} "${mpirun} -n 4")
xchg_launch(online-persist-mpich    mpich   300 "quick;full" COMMAND tests/check-online.sh ${build} "${mpirun} -n 3")

# The tuning file: good and bad files, the file:line of every error; and the
# tuner end to end (tools/xchg-tune --quick writes a file the reader loads).
xchg_launch(tuning-openmpi     openmpi 60  "quick;full" NP 2 COMMAND $<TARGET_FILE:xchg-tuning>)
xchg_launch(tuning-mpich       mpich   60  "quick;full" NP 1 COMMAND $<TARGET_FILE:xchg-tuning>)
xchg_launch(tune-quick         openmpi 120 "quick;full" COMMAND tests/check-tune.sh ${build} ${mpirun})
# The tuner's pure parts (rule merging, file writing; tools/tests) and the
# tuner run from an installed tree (cmake --install into a temporary prefix).
xchg_launch(tune-unit          openmpi 60  "quick;full" COMMAND /usr/bin/python3 -m pytest -q -p no:cacheprovider tools/tests)
xchg_launch(tune-install       openmpi 120 "quick;full" COMMAND tests/check-tune-install.sh ${build} ${mpirun})
# Threads: each of 4 threads per rank on its own communicator.
xchg_launch(threads            openmpi 300 "quick;full" NP 4 COMMAND $<TARGET_FILE:xchg-threads>)

# The drop-in library under programs nobody here wrote (tests/dropin/run.sh):
# mpi4py, FFTW, Fortran, edge cases, neighbourhood requests, the dense
# nonblocking and persistent forms (C and Fortran).
xchg_launch(dropin-openmpi     openmpi 300 "quick;full;dropin" COMMAND bash tests/dropin/run.sh ${build} -)
xchg_launch(dropin-mpich       mpich   300 "full;dropin"       COMMAND bash tests/dropin/run.sh - ${build})

# Device (GPU) buffers without a GPU: a stand-in CUDA driver reports chosen
# ranges as device memory; every collective, blocking, persistent and
# nonblocking, against xchg and under the drop-in, refuses them (MPI without
# device support) or runs `mpi` (support assumed), never touching them
# (tests/device/run.sh); a real GPU when this machine has one (skipped
# cleanly without).
xchg_launch(device-openmpi     openmpi 150 "quick;full;device" COMMAND bash tests/device/run.sh ${build} 3)
xchg_launch(device-mpich       mpich   150 "quick;full;device" COMMAND bash tests/device/run.sh ${build} 2)
xchg_launch(gpu-check          openmpi 120 "quick;full;device" COMMAND bash tests/device/gpu-check.sh ${build})

# Applications, each checked against a reference: BoomerAMG's halo exchanges
# (skipped without hypre), the 3-D FFT (against serial FFTW), transitive
# closure (against a serial closure); --inject-error must fail.
xchg_launch(amg                openmpi 60  "quick;full;apps" COMMAND apps/amg/check.sh ${build})
xchg_launch(fft                openmpi 180 "quick;full;apps" COMMAND apps/fft/check.sh ${build})
# xchg-bench --overlap (nonblocking start, compute, test, wait) on virtual
# nodes: exit status 1 when a row's bytes differ from MPI's.
xchg_launch(bench-overlap-openmpi-4 openmpi 120 "quick;full;tools" NP 4 ENV XCHG_VIRTUAL_NODES=2 COMMAND $<TARGET_FILE:xchg-bench> -c alltoallv -m 256:4096 -i 4 -x 1 -r 2 --overlap 20 --test-every 5 --algo pairwise --algo parlogna --algo node_aware --algo node_aware_overlap)
xchg_launch(closure            openmpi 120 "quick;full;apps" COMMAND apps/closure/check.sh ${build})

# The Python package (python/): pytest under mpirun -n 1..4, every result
# against mpi4py's own collective.
xchg_launch(python             openmpi 300 "quick;full;python" COMMAND python/tests/run.sh ${build})

# pip install ./python in a fresh venv without Debian's packages (build
# isolation, mpi4py from PyPI) and in Debian's (--no-build-isolation); each
# then runs a collective under mpirun -n 2 against mpi4py's (full run only).
xchg_launch(pip                openmpi 400 "full;python" COMMAND python/tests/check-pip.sh ${build})

# SimGrid SMPI: 64 simulated ranks on 4 nodes, results checked (sim/smoke,
# which configures and builds the SMPI tree); then the tuner on a simulated
# 16-rank flat cluster: the file it writes must load and decide.
xchg_launch(smpi-smoke         openmpi 400 "quick;full;sim" REQUIRES smpirun FIXTURES_SETUP smpi-build COMMAND sim/smoke ${XCHG_TEST_SMPI_BUILD})
xchg_launch(tune-smpi          openmpi 120 "quick;full;sim" REQUIRES smpirun FIXTURES_REQUIRED smpi-build COMMAND tests/check-tune-smpi.sh ${build} ${XCHG_TEST_SMPI_BUILD} ${mpirun})

# MPI's semantics for the nonblocking and persistent collectives, every
# algorithm of every collective and automatic selection (tests/semantics.c,
# issue 25): a start that must not wait for another rank (rank 1 sends 4 MiB
# to rank 0 before its start, rank 0 receives after its own), on a fresh and
# a warm communicator; three requests outstanding completed in reverse and
# in rank-dependent test order; thousands of persistent starts. A watchdog
# turns a hang into "HANG collective:algorithm step" and a failed launch.
# Nodes of 2 (and of 3, 2 at P = 5) give the node-aware algorithms their
# inter-node rounds. (tests/semantics-status.sh tabulates step by step.)
xchg_launch(semantics-openmpi-2         openmpi 300 "quick;full" NP 2 COMMAND $<TARGET_FILE:xchg-semantics> --timeout=60)
xchg_launch(semantics-openmpi-3         openmpi 300 "quick;full" NP 3 COMMAND $<TARGET_FILE:xchg-semantics> --timeout=60)
xchg_launch(semantics-openmpi-4-nodes2  openmpi 300 "quick;full" NP 4 ENV XCHG_VIRTUAL_NODES=2 COMMAND $<TARGET_FILE:xchg-semantics> --timeout=60)
xchg_launch(semantics-openmpi-5-nodes3  openmpi 300 full NP 5 ENV XCHG_VIRTUAL_NODES=3 COMMAND $<TARGET_FILE:xchg-semantics> --timeout=60)
xchg_launch(semantics-mpich-2           mpich   600 full NP 2 COMMAND $<TARGET_FILE:xchg-semantics> --timeout=120 --starts=300)
xchg_launch(semantics-mpich-3-nodes2    mpich   900 full NP 3 ENV XCHG_VIRTUAL_NODES=2 COMMAND $<TARGET_FILE:xchg-semantics> --timeout=120 --starts=200)
# The same in MPI's own calls (MPI_Ialltoall..., MPI_*_init / MPIX_*_init,
# MPI_Ineighbor_alltoallv) under the drop-in library (tools/xchg-run), with
# automatic selection and with multi-round algorithms forced.
set(semantics_dropin ${build}/xchg-run ${MPIEXEC_EXECUTABLE} ${XCHG_TEST_MPIEXEC_PREFLAGS} ${MPIEXEC_NUMPROC_FLAG})
set(semantics_multiround XCHG_ALLTOALL=bruck XCHG_ALLTOALLV=parlogna XCHG_ALLTOALLW=pairwise
    XCHG_ALLGATHER=ring XCHG_ALLGATHERV=recursive_doubling XCHG_NEIGHBOR_ALLTOALLV=locality)
xchg_launch(semantics-dropin-openmpi            openmpi 300 "quick;full;dropin" ENV XCHG_VIRTUAL_NODES=2 COMMAND ${semantics_dropin} 4 $<TARGET_FILE:xchg-semantics-dropin> --timeout=60)
xchg_launch(semantics-dropin-multiround-openmpi openmpi 300 "quick;full;dropin" ENV XCHG_VIRTUAL_NODES=2 ${semantics_multiround} COMMAND ${semantics_dropin} 4 $<TARGET_FILE:xchg-semantics-dropin> --timeout=60)
xchg_launch(semantics-dropin-mpich              mpich   600 "full;dropin"       ENV XCHG_VIRTUAL_NODES=2 COMMAND ${semantics_dropin} 3 $<TARGET_FILE:xchg-semantics-dropin> --timeout=120 --starts=200)
xchg_launch(semantics-dropin-multiround-mpich   mpich   600 "full;dropin"       ENV XCHG_VIRTUAL_NODES=2 ${semantics_multiround} COMMAND ${semantics_dropin} 3 $<TARGET_FILE:xchg-semantics-dropin> --timeout=120 --starts=200)
