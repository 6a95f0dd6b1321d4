/*
 * xchg-amg: the SpMV halo exchanges of a BoomerAMG hierarchy run through
 * xchg's persistent neighbourhood alltoallv (Collom, Li, Bienz, SC-W 2023,
 * section 4: per-level message counts, inter-region bytes and times).
 *
 * Problem: the rotated anisotropic diffusion -div(K grad u) on the unit
 * square, K = R(theta) diag(1, eps) R(theta)^T, on an n x n grid with zero
 * Dirichlet boundaries, discretised with the 7-point stencil of hypre's
 * GenerateRotate7pt (the paper's test problem, theta = 45, eps = 0.001):
 * with c = cos(theta), s = sin(theta),
 *     ac = -(c^2 + eps s^2), bc = 2 (1 - eps) s c, cc = -(s^2 + eps c^2)
 *     centre       -2 (2 ac + bc + 2 cc)
 *     west, east    2 ac + bc
 *     south, north  bc + 2 cc
 *     south-west, north-east  -bc
 * (not scaled by 1/h^2, as in hypre; a 7-point stencil with the mixed
 * derivative on the south-west/north-east diagonal only).
 * The matrix is assembled here through hypre's IJ interface; the grid is cut
 * into px x py boxes (rank r owns box (r mod px, r / px)) and numbered box
 * by box, as hypre's generator does, so each rank owns a contiguous block
 * of rows. The assembled matrix is checked against GenerateRotate7pt's
 * (same partition) by a matvec.
 *
 * Then BoomerAMG is set up (HMIS coarsening, extended+i interpolation,
 * P_max = 4, strong threshold 0.25 by default) and each level's matrix
 * A_l is read through hypre's internal headers: its ParCSR comm package
 * gives the halo exchange of y = A_l x (send procs and the local rows each
 * one needs, receive procs and how many values of the off-diagonal vector
 * come from each, in col_map_offd order). For every level and every
 * algorithm of --algos, the exchange runs as an XCHG_Topo and a persistent
 * request, started --warmup times, then --iters times timed (--reps
 * repetitions; the time is the minimum over repetitions of the maximum over
 * ranks of the mean per start, as in the paper).
 *
 * Besides the per-rank maxima of what each algorithm sends (inter/intra
 * messages and bytes, from XCHG_Neighbor_stats_get), each row carries two properties of the
 * level's pattern: the largest number of bytes that one ordered pair of
 * regions exchanges (pair_bytes_max, what standard and plain aggregation
 * move) and the same with each value counted once per destination region
 * (pair_unique_bytes_max, what duplicate removal moves; section 3.3).
 *
 * Checks (exit status 1 on any mismatch): the received halo equals x at
 * col_map_offd, x[g] = sin(g) + 2; y = diag x_local + offd x_halo equals
 * hypre's own HYPRE_ParCSRMatrixMatvec; for the standard algorithm,
 * XCHG_Neighbor_stats_get equals the counts computed here from the pattern
 * and the region map (a mismatch is a failed check, like a wrong value).
 *
 * Regions: xchg's nodes. XCHG_VIRTUAL_NODES / XCHG_VIRTUAL_PLACEMENT are
 * read here too (the same rules as src/core/topology.c), otherwise the
 * nodes of MPI_Comm_split_type(SHARED).
 *
 * Inits: with --init=auto (the default) the locality algorithms get the
 * duplicate-removal init with global indices (XCHG_Neighbor_alltoallv_topo_
 * init_ext: the global column of each halo value), the others the plain
 * one; --init=ext / plain use one for all (a "dedup=1" variant without the
 * _ext init is skipped: it would be dedup=0). "auto" sets no algorithm: xchg
 * chooses (measuring the candidates at init, src/select/online_init.c), and
 * its row says what ran ("auto[standard]"). The init time (init_s, max
 * over ranks) is reported next to the time per start. An algorithm that
 * xchg does not register is reported (xchg's message) and skipped.
 *
 * usage: mpirun -n P xchg-amg [--n=64] [--eps=0.001] [--theta=45]
 *          [--procgrid=PXxPY]
 *          [--algos=standard,mpi,locality,locality:balance=bytes,locality:dedup=1]
 *          [--iters=100] [--warmup=10] [--reps=3] [--init=auto|plain|ext]
 *          [--strong=0.25] [--coarsen=10] [--interp=6] [--pmax=4]
 *          [--agg-levels=0] [--max-levels=25] [--solve] [--csv=FILE]
 *          [--comm=graph|plain] [--no-header] [--inject-error]
 * --comm=graph (the default) runs each level's exchange on a distributed-
 * graph communicator of that level's neighbours (MPI_Dist_graph_create_
 * adjacent, made and first used by xchg before the timings), so that an
 * algorithm that needs one (the MPI library's own, "mpi") can run;
 * --comm=plain on a duplicate of MPI_COMM_WORLD. The XCHG_Topo is the same.
 * --inject-error corrupts one received value on the first level (the last
 * rank) before the check, to show that the check fails (exit status 1).
 * CSV on stdout (or FILE), one row per level and algorithm; notes on stderr.
 */

#include "amg.h"

int rank, nranks;

/* ---- algorithms ----------------------------------------------------------- */

/* Is the name before ':' a registered neighbourhood algorithm? */
static int registered(const char *sel)
{
    char name[128], params[512];
    size_t len = strcspn(sel, ":");
    int count = 0;
    XCHG_Algorithm_count("neighbor_alltoallv", &count);
    for (int i = 0; i < count; i++) {
        if (XCHG_Algorithm_describe("neighbor_alltoallv", i, name, sizeof name, params,
                                    sizeof params) != MPI_SUCCESS)
            continue;
        if (strlen(name) == len && !strncmp(name, sel, len)) return 1;
    }
    return 0;
}

static int is_standard(const char *sel) { return !strncmp(sel, "standard", 8) &&
                                                 (sel[8] == '\0' || sel[8] == ':'); }

static int init_request(const options *o, MPI_Comm comm, XCHG_Topo topo, pattern *pt,
                        const char *sel, int use_ext, XCHG_Request *req)
{
    MPI_Info info;
    MPI_Info_create(&info);
    if (strcmp(sel, "auto") != 0) /* auto: xchg chooses, as for a program that does not say */
        MPI_Info_set(info, "xchg_algorithm", sel);
    int rc;
    (void)o;
    if (use_ext)
        rc = XCHG_Neighbor_alltoallv_topo_init_ext(
            topo, pt->sendbuf, pt->sendcounts, pt->sdispls, pt->sindices, MPI_DOUBLE,
            pt->recvbuf, pt->recvcounts, pt->rdispls, pt->rindices, MPI_DOUBLE, comm, info, req);
    else
        rc = XCHG_Neighbor_alltoallv_topo_init(topo, pt->sendbuf, pt->sendcounts, pt->sdispls,
                                               MPI_DOUBLE, pt->recvbuf, pt->recvcounts,
                                               pt->rdispls, MPI_DOUBLE, comm, info, req);
    MPI_Info_free(&info);
    return rc;
}

static long long max_ll(long long v)
{
    long long m;
    MPI_Allreduce(&v, &m, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
    return m;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    options o;
    parse_options(argc, argv, &o);
    HYPRE_Init();

    /* The algorithms, in order; a skipped one is marked. */
    char *algo[64];
    int nalgo = 0, skip[64] = {0}, ext[64] = {0};
    for (char *tok = strtok(o.algos, ","); tok && nalgo < 64; tok = strtok(NULL, ","))
        algo[nalgo++] = tok;
    /* The _ext init: for every algorithm with --init=ext, none with
     * --init=plain; by default for the locality algorithms. */
    for (int a = 0; a < nalgo; a++)
        ext[a] = o.init == 2 || (o.init == 0 && !strncmp(algo[a], "locality", 8));
    for (int a = 0; a < nalgo; a++)
        if (strstr(algo[a], "dedup=1") && !ext[a]) {
            skip[a] = 1;
            if (rank == 0) fprintf(stderr, "xchg-amg: %s skipped: it needs the global indices "
                                   "of XCHG_Neighbor_alltoallv_topo_init_ext "
                                   "(--init=plain)\n", algo[a]);
        }

    int *region_of = xmalloc((size_t)nranks * sizeof(int));
    char region_label[128];
    regions_build(region_of, region_label, sizeof region_label);
    int nregions = 0;
    for (int r = 0; r < nranks; r++)
        if (region_of[r] + 1 > nregions) nregions = region_of[r] + 1;

    FILE *csv = stdout;
    if (rank == 0 && o.csv) {
        csv = fopen(o.csv, "w");
        if (!csv) DIE("cannot write %s: %s", o.csv, strerror(errno));
    }
    if (rank == 0 && o.header)
        fprintf(csv, "ranks,regions,nregions,n,level,rows,nnz,active_ranks,algo,init,"
                     "inter_msgs,intra_msgs,inter_bytes,intra_bytes,stats_source,init_s,"
                     "time_s,check,pair_bytes_max,pair_unique_bytes_max,comm\n");

    /* The fine matrix and the hierarchy. */
    HYPRE_IJMatrix ij;
    HYPRE_ParCSRMatrix A0 = assemble(&o, &ij);
    check_generator(&o, (hypre_ParCSRMatrix *)A0);
    hypre_ParVector *b = vector_on((hypre_ParCSRMatrix *)A0, 0),
                    *x = vector_on((hypre_ParCSRMatrix *)A0, 0);
    {
        double *bd = hypre_VectorData(hypre_ParVectorLocalVector(b));
        for (HYPRE_Int i = 0; i < hypre_VectorSize(hypre_ParVectorLocalVector(b)); i++)
            bd[i] = 1.0;
    }
    HYPRE_Solver amg;
    HYPRE_BoomerAMGCreate(&amg);
    HYPRE_BoomerAMGSetPrintLevel(amg, 0);
    HYPRE_BoomerAMGSetCoarsenType(amg, o.coarsen);
    HYPRE_BoomerAMGSetInterpType(amg, o.interp);
    HYPRE_BoomerAMGSetPMaxElmts(amg, o.pmax);
    HYPRE_BoomerAMGSetStrongThreshold(amg, o.strong);
    HYPRE_BoomerAMGSetAggNumLevels(amg, o.agg_levels);
    HYPRE_BoomerAMGSetMaxLevels(amg, o.max_levels);
    HYPRE_BoomerAMGSetRelaxType(amg, 18); /* l1-Jacobi: the same on any rank count */
    HYPRE_BoomerAMGSetTol(amg, 1e-8);
    HYPRE_BoomerAMGSetMaxIter(amg, 100);
    HYPRE_BoomerAMGSetup(amg, A0, (HYPRE_ParVector)b, (HYPRE_ParVector)x);
    if (o.solve) {
        HYPRE_BoomerAMGSolve(amg, A0, (HYPRE_ParVector)b, (HYPRE_ParVector)x);
        HYPRE_Int its;
        HYPRE_Real res;
        HYPRE_BoomerAMGGetNumIterations(amg, &its);
        HYPRE_BoomerAMGGetFinalRelativeResidualNorm(amg, &res);
        if (rank == 0) fprintf(stderr, "xchg-amg: BoomerAMG solve: %d iterations, relative "
                               "residual %.3e\n", (int)its, res);
    }

    hypre_ParAMGData *amg_data = (hypre_ParAMGData *)amg;
    int nlevels = hypre_ParAMGDataNumLevels(amg_data);
    hypre_ParCSRMatrix **A_array = hypre_ParAMGDataAArray(amg_data);
    if (rank == 0) fprintf(stderr, "xchg-amg: %d ranks, %s (%d regions), grid %ldx%ld, %d "
                           "levels\n", nranks, region_label, nregions, o.n, o.n, nlevels);

    /* xchg's communicator (--comm=plain): errors come back as codes; xchg's
     * first use of it (a collective duplicate) before the timings. */
    MPI_Comm wcomm;
    MPI_Comm_dup(MPI_COMM_WORLD, &wcomm);
    MPI_Comm_set_errhandler(wcomm, MPI_ERRORS_RETURN);
    if (XCHG_Comm_set_algorithm(wcomm, "neighbor_alltoallv", NULL) != MPI_SUCCESS)
        DIE("XCHG_Comm_set_algorithm: %s", XCHG_Last_error());

    long total_bad = 0;
    int ran = 0;
    for (int l = 0; l < nlevels; l++) {
        hypre_ParCSRMatrix *A = A_array[l];
        pattern pt;
        pattern_build(A, &pt);
        long long nnz_local = hypre_CSRMatrixNumNonzeros(hypre_ParCSRMatrixDiag(A)) +
                              hypre_CSRMatrixNumNonzeros(hypre_ParCSRMatrixOffd(A)), nnz;
        MPI_Allreduce(&nnz_local, &nnz, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
        int active = pt.local_rows > 0, nactive;
        MPI_Allreduce(&active, &nactive, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        long long rows = (long long)hypre_ParCSRMatrixGlobalNumRows(A);
        double *yref = hypre_spmv(A);
        stats mine = pattern_stats(&pt, region_of);
        long long pair_max, pair_unique_max;
        region_pair_bytes(&pt, region_of, nregions, &pair_max, &pair_unique_max);

        MPI_Comm comm = wcomm;
        if (o.graph) {
/* Open MPI's MPI_UNWEIGHTED is a sentinel address: gcc >= 11 takes it for
 * an empty array that MPI reads (a false positive). */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 11
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overread"
#endif
            MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, pt.nrecv, pt.recv_procs,
                                           MPI_UNWEIGHTED, pt.nsend, pt.send_procs,
                                           MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &comm);
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 11
#pragma GCC diagnostic pop
#endif
            MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
            /* xchg's first call on a communicator duplicates it: not in the timings */
            if (XCHG_Comm_set_algorithm(comm, "neighbor_alltoallv", NULL) != MPI_SUCCESS)
                DIE("XCHG_Comm_set_algorithm: %s", XCHG_Last_error());
        }
        XCHG_Topo topo;
        int rc = XCHG_Topo_create(comm, pt.nrecv, pt.recv_procs, pt.nsend, pt.send_procs, &topo);
        if (rc != MPI_SUCCESS) DIE("XCHG_Topo_create on level %d: %s", l, XCHG_Last_error());

        for (int a = 0; a < nalgo; a++) {
            if (skip[a]) continue;
            XCHG_Request req = XCHG_REQUEST_NULL;
            MPI_Barrier(comm);
            double t0 = MPI_Wtime();
            rc = init_request(&o, comm, topo, &pt, algo[a], ext[a], &req);
            double tinit = MPI_Wtime() - t0, tinit_max;
            int failed = rc != MPI_SUCCESS, anyfailed;
            MPI_Allreduce(&failed, &anyfailed, 1, MPI_INT, MPI_MAX, comm);
            MPI_Allreduce(&tinit, &tinit_max, 1, MPI_DOUBLE, MPI_MAX, comm);
            if (anyfailed) {
                int cls = 0, anycls;
                if (failed) MPI_Error_class(rc, &cls);
                MPI_Allreduce(&cls, &anycls, 1, MPI_INT, MPI_MAX, comm);
                if (rank == 0) {
                    if (failed)
                        fprintf(stderr, "xchg-amg: %s: init failed on level %d (class %d): %s\n",
                                algo[a], l, cls, XCHG_Last_error());
                    else
                        fprintf(stderr, "xchg-amg: %s: init failed on another rank (level %d)\n",
                                algo[a], l);
                }
                if (!failed) XCHG_Request_free(&req);
                if (!registered(algo[a])) {
                    if (rank == 0) fprintf(stderr, "xchg-amg: %s is not registered in this "
                                           "libxchg: skipped\n", algo[a]);
                    skip[a] = 1;
                    continue;
                }
                if (anycls == MPI_ERR_TOPOLOGY) { /* e.g. "mpi" without a graph */
                    if (rank == 0) fprintf(stderr, "xchg-amg: %s cannot run on this "
                                           "communicator: skipped\n", algo[a]);
                    skip[a] = 1;
                    continue;
                }
                DIE("%s failed on level %d: %s", algo[a], l, XCHG_Last_error());
            }

            /* Warm-up, then the checks. */
            for (int k = 0; k < pt.nrecvvals; k++) pt.recvbuf[k] = -1.0;
            for (int it = 0; it < o.warmup; it++) {
                if ((rc = XCHG_Start(&req)) != MPI_SUCCESS ||
                    (rc = XCHG_Wait(&req, MPI_STATUS_IGNORE)) != MPI_SUCCESS)
                    DIE("%s, level %d: start/wait: %s", algo[a], l, XCHG_Last_error());
            }
            /* --inject-error: the checker must see one wrong halo value. */
            if (o.inject && l == 0 && a == 0 && pt.nrecvvals > 0 && rank == nranks - 1)
                pt.recvbuf[pt.nrecvvals / 2] += 1.0;
            long bad = check_exchange(A, &pt, yref);

            /* What this rank sends per start, from xchg; for standard, it
             * must equal the count from the pattern (a failed check if not). */
            XCHG_Neighbor_stats xs;
            if ((rc = XCHG_Neighbor_stats_get(req, &xs)) != MPI_SUCCESS)
                DIE("XCHG_Neighbor_stats_get: %s", XCHG_Last_error());
            stats st = {xs.inter_messages, xs.intra_messages, xs.inter_bytes, xs.intra_bytes};
            if (is_standard(algo[a]) &&
                (st.inter_msgs != mine.inter_msgs || st.intra_msgs != mine.intra_msgs ||
                 st.inter_bytes != mine.inter_bytes || st.intra_bytes != mine.intra_bytes)) {
                fprintf(stderr, "FAIL xchg-amg: rank %d, level %d: XCHG_Neighbor_stats_get "
                        "says inter %lld msgs %lld B, intra %lld msgs %lld B; the pattern "
                        "says %lld, %lld, %lld, %lld\n", rank, l, st.inter_msgs,
                        st.inter_bytes, st.intra_msgs, st.intra_bytes, mine.inter_msgs,
                        mine.inter_bytes, mine.intra_msgs, mine.intra_bytes);
                bad++;
            }

            /* Timed starts: min over reps of (max over ranks of the mean). */
            double best = INFINITY;
            for (int r = 0; r < o.reps; r++) {
                MPI_Barrier(comm);
                t0 = MPI_Wtime();
                int err = MPI_SUCCESS;
                for (int it = 0; it < o.iters; it++) {
                    err |= XCHG_Start(&req);
                    err |= XCHG_Wait(&req, MPI_STATUS_IGNORE);
                }
                double mean = (MPI_Wtime() - t0) / o.iters, worst;
                if (err != MPI_SUCCESS)
                    DIE("%s, level %d: a timed start/wait failed: %s", algo[a], l,
                        XCHG_Last_error());
                MPI_Allreduce(&mean, &worst, 1, MPI_DOUBLE, MPI_MAX, comm);
                if (worst < best) best = worst;
            }
            for (int k = 0; k < pt.nrecvvals; k++) pt.recvbuf[k] = -1.0;
            XCHG_Start(&req);
            if ((rc = XCHG_Wait(&req, MPI_STATUS_IGNORE)) != MPI_SUCCESS)
                DIE("%s, level %d: wait: %s", algo[a], l, XCHG_Last_error());
            bad += check_exchange(A, &pt, yref);
            XCHG_Request_free(&req);
            /* auto: what xchg chose (the algorithm the last start ran) */
            char label[320], ran_algo[256];
            snprintf(label, sizeof label, "%s", algo[a]);
            if (strcmp(algo[a], "auto") == 0 &&
                XCHG_Comm_get_algorithm(comm, "neighbor_alltoallv", 1, 0, ran_algo,
                                        sizeof ran_algo) == MPI_SUCCESS)
                snprintf(label, sizeof label, "auto[%.*s]", (int)strcspn(ran_algo, ":"),
                         ran_algo); /* the name: its parameters hold commas */

            long allbad;
            MPI_Allreduce(&bad, &allbad, 1, MPI_LONG, MPI_SUM, comm);
            total_bad += allbad;
            ran++;
            long long imsg = max_ll(st.inter_msgs), amsg = max_ll(st.intra_msgs),
                      ib = max_ll(st.inter_bytes), ab = max_ll(st.intra_bytes);
            if (rank == 0) {
                fprintf(csv, "%d,%s,%d,%ld,%d,%lld,%lld,%d,%s,%s,", nranks, region_label,
                        nregions, o.n, l, rows, nnz, nactive, label, ext[a] ? "ext" : "plain");
                fprintf(csv, "%lld,%lld,%lld,%lld,", imsg, amsg, ib, ab);
                fprintf(csv, "%s,%.9f,%.9f,%s,%lld,%lld,%s\n", "xchg", tinit_max, best,
                        allbad ? "FAIL" : "ok", pair_max, pair_unique_max,
                        o.graph ? "graph" : "plain");
                fflush(csv);
            }
            if (allbad && rank == 0)
                fprintf(stderr, "FAIL xchg-amg: %s, level %d: %ld mismatches\n", algo[a], l,
                        allbad);
        }
        XCHG_Topo_free(&topo);
        if (comm != wcomm) MPI_Comm_free(&comm);
        free(yref);
        pattern_free(&pt);
    }

    if (rank == 0) {
        fprintf(stderr, "xchg-amg: %d level x algorithm runs, %s\n", ran,
                total_bad ? "MISMATCHES" : ran ? "all halos and SpMVs equal hypre's"
                                                : "nothing ran (exit status 1)");
        if (csv != stdout) fclose(csv);
    }
    MPI_Comm_free(&wcomm);
    HYPRE_BoomerAMGDestroy(amg);
    hypre_ParVectorDestroy(b);
    hypre_ParVectorDestroy(x);
    HYPRE_IJMatrixDestroy(ij);
    free(region_of);
    HYPRE_Finalize();
    MPI_Finalize();
    int ok = total_bad == 0 && ran > 0;
    return ok ? 0 : 1;
}
