/*
 * T(S), the time of one S-byte message, for the arrival-skew benchmarks
 * (xchg-bench --skew, xchg-simbench --skew) and the drop-in's imbalance
 * profiler (src/interpose/profile.c): half the round trip of a ping-pong
 * between ranks 0 and 1 of a communicator.
 */
#ifndef XCHG_CORE_PINGPONG_H
#define XCHG_CORE_PINGPONG_H

#include <stdint.h>

#include "pmpi.h"

/* *seconds = T(bytes) on comm: the fastest of `samples` ping-pongs (after two
 * untimed ones) between ranks 0 and 1, halved, and the same on every rank
 * (broadcast from rank 0); with one rank, the model 1 us + bytes / (1 GB/s).
 * Collective over comm; its messages go over a duplicate of comm, so none of
 * the caller's can match them.
 * MPI_ERR_COUNT when bytes exceeds an int, MPI_ERR_ARG for samples < 1. */
#define XCHG_PINGPONG_TAG 77
int xchg_message_time(MPI_Comm comm, int64_t bytes, int samples, double *seconds);

#endif
