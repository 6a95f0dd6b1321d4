# CTest registration of the test launches listed in tests/launches.cmake.
#
# Every build tree registers the launches of one set, XCHG_TEST_SET:
#   openmpi     a build against Open MPI (build/): most launches, the apps,
#               Python, the drop-in library, SimGrid (it builds build-smpi/)
#   mpich       a build against MPICH or another MPI (build-mpich/)
#   sanitizers  a build with XCHG_SANITIZE=ON (build-asan/)
#   none        nothing (the SimGrid SMPI build: sim/smoke runs it)
# so that `ctest -L quick` in any tree runs what belongs to that tree, and
# scripts/run-tests runs ctest in build/, build-mpich/ and build-asan/ with
# nothing run twice. Each test gets the label of its set besides its own
# (quick, full, apps, python, sim, dropin, ...).
#
# xchg_launch(NAME SET TIMEOUT LABELS [NP N] [ENV VAR=VALUE...]
#             [REQUIRES PROGRAM...] [FIXTURES_SETUP F] [FIXTURES_REQUIRED F]
#             COMMAND ARG...)
#   NAME      the test's name (ctest -R NAME); its log is <build>/test-logs/NAME.log
#   SET       openmpi, mpich or sanitizers: registered only in a tree of that set
#   TIMEOUT   seconds (CTest's TIMEOUT: a launch past it counts as failed)
#   LABELS    a ;-list: quick (in scripts/run-tests --quick), full (in the full
#             run), and any category (apps, python, sim, dropin, ...)
#   NP N      run COMMAND under the build's MPI launcher with N processes:
#             MPIEXEC_EXECUTABLE MPIEXEC_NUMPROC_FLAG N MPIEXEC_PREFLAGS
#             PROGRAM MPIEXEC_POSTFLAGS ARGS (Open MPI: --oversubscribe, and
#             -x for each XCHG_* variable of ENV, so that it reaches the ranks)
#   ENV       the launch's environment (CTest's ENVIRONMENT), besides the
#             common one below
#   REQUIRES  programs that must be on PATH (valgrind, smpirun); without
#             them the launch is not registered (a status message says so)
#   COMMAND   the program and its arguments, run in the source directory;
#             $<TARGET_FILE:t> names a program of this build (a launch whose
#             target is not built is not registered).
# The command runs through tests/launch.sh, which copies its output to the
# log: scripts/run-tests sums the logs' "N passed, N failed" lines.

# Which MPI this build uses decides its set (XCHG_TEST_SET overrides): its
# mpi.h defines OPEN_MPI for Open MPI; anything else (MPICH and the MPIs
# derived from it) gets the launches with plain mpiexec flags.
include(CheckSymbolExists)
set(CMAKE_REQUIRED_INCLUDES ${MPI_C_INCLUDE_DIRS})
set(CMAKE_REQUIRED_QUIET ON)
check_symbol_exists(OPEN_MPI mpi.h XCHG_MPI_IS_OPEN_MPI)
unset(CMAKE_REQUIRED_INCLUDES)
unset(CMAKE_REQUIRED_QUIET)
set(_xchg_is_ompi ${XCHG_MPI_IS_OPEN_MPI})
if(XCHG_SMPI)
  set(_xchg_set none)
elseif(XCHG_SANITIZE)
  set(_xchg_set sanitizers)
elseif(_xchg_is_ompi)
  set(_xchg_set openmpi)
else()
  set(_xchg_set mpich)
endif()
set(XCHG_TEST_SET ${_xchg_set} CACHE STRING
    "The launches of tests/launches.cmake this build registers: openmpi, mpich, sanitizers or none")
set_property(CACHE XCHG_TEST_SET PROPERTY STRINGS openmpi mpich sanitizers none)

set(XCHG_TEST_MPIEXEC_PREFLAGS ${MPIEXEC_PREFLAGS})
if(_xchg_is_ompi AND NOT "--oversubscribe" IN_LIST XCHG_TEST_MPIEXEC_PREFLAGS)
  list(APPEND XCHG_TEST_MPIEXEC_PREFLAGS --oversubscribe)
endif()

# The environment of every launch: Open MPI as root (containers, CI) and with
# more ranks than cores; no cross-memory attach (containers often forbid
# it). Sanitizer builds: leak checks with the project's suppressions.
set(XCHG_TEST_ENVIRONMENT
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl_vader_single_copy_mechanism=none)
if(XCHG_SANITIZE)
  list(APPEND XCHG_TEST_ENVIRONMENT
       ASAN_OPTIONS=detect_leaks=1:fast_unwind_on_malloc=0:abort_on_error=0
       LSAN_OPTIONS=suppressions=${PROJECT_SOURCE_DIR}/tests/lsan.supp:print_suppressions=0
       UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1)
endif()
# Variables a developer's shell may hold that would change what the tests
# choose: unset for every launch that does not set them itself (CMake >= 3.22).
set(XCHG_TEST_UNSET XCHG_ALLTOALL XCHG_ALLTOALLV XCHG_ALLGATHER XCHG_NEIGHBOR_ALLTOALLV
    XCHG_VIRTUAL_NODES XCHG_VIRTUAL_PLACEMENT XCHG_TUNING_FILE XCHG_VERBOSE
    XCHG_COUNT_FILE XCHG_PROFILE XCHG_AGREE)
set(XCHG_TEST_LOG_DIR ${PROJECT_BINARY_DIR}/test-logs)

function(xchg_launch name set timeout labels)
  if(NOT set STREQUAL XCHG_TEST_SET)
    return()
  endif()
  cmake_parse_arguments(L "" "NP;FIXTURES_SETUP;FIXTURES_REQUIRED" "ENV;REQUIRES;COMMAND" ${ARGN})
  if(L_UNPARSED_ARGUMENTS OR NOT L_COMMAND)
    message(FATAL_ERROR "xchg_launch(${name}): expected [NP N] [ENV ...] [REQUIRES ...] "
                        "COMMAND ...; got ${L_UNPARSED_ARGUMENTS}")
  endif()
  foreach(arg IN LISTS L_COMMAND)
    if(arg MATCHES "\\$<TARGET_FILE:([^>]+)>")
      set(target ${CMAKE_MATCH_1})
      if(NOT TARGET ${target})
        message(STATUS "test ${name}: not registered (${target} is not built)")
        return()
      endif()
    endif()
  endforeach()
  foreach(program IN LISTS L_REQUIRES)
    string(MAKE_C_IDENTIFIER "XCHG_TEST_HAVE_${program}" var)
    find_program(${var} ${program})
    if(NOT ${var})
      message(STATUS "test ${name}: not registered (${program} not found)")
      return()
    endif()
  endforeach()
  set(command ${L_COMMAND})
  if(L_NP)
    set(forward "")
    if(_xchg_is_ompi)
      foreach(assignment IN LISTS L_ENV)
        if(assignment MATCHES "^(XCHG_[A-Z_]*)=")
          list(APPEND forward -x ${CMAKE_MATCH_1})
        endif()
      endforeach()
    endif()
    list(POP_FRONT command program)
    set(command ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${L_NP} ${XCHG_TEST_MPIEXEC_PREFLAGS}
        ${forward} ${program} ${MPIEXEC_POSTFLAGS} ${command})
  endif()
  add_test(NAME ${name}
           COMMAND bash ${PROJECT_SOURCE_DIR}/tests/launch.sh ${XCHG_TEST_LOG_DIR}/${name}.log
                   ${command}
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(${name} PROPERTIES
    TIMEOUT ${timeout}
    LABELS "${set};${labels}"
    ENVIRONMENT "${XCHG_TEST_ENVIRONMENT};${L_ENV}")
  if(NOT CMAKE_VERSION VERSION_LESS 3.22)
    set(unset "")
    foreach(var IN LISTS XCHG_TEST_UNSET)
      if(NOT "${L_ENV}" MATCHES "(^|;)${var}=")
        list(APPEND unset ${var}=unset:)
      endif()
    endforeach()
    set_tests_properties(${name} PROPERTIES ENVIRONMENT_MODIFICATION "${unset}")
  endif()
  if(L_FIXTURES_SETUP)
    set_tests_properties(${name} PROPERTIES FIXTURES_SETUP ${L_FIXTURES_SETUP})
  endif()
  if(L_FIXTURES_REQUIRED)
    set_tests_properties(${name} PROPERTIES FIXTURES_REQUIRED ${L_FIXTURES_REQUIRED})
  endif()
endfunction()
