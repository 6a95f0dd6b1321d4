/*
 * xchg-amg's exchanges (amg.h): the regions (xchg's nodes, as
 * src/core/topology.c finds them), each level's halo pattern read from
 * hypre's comm package, what it sends between regions, and the check of a
 * received halo and its SpMV against hypre's.
 */
#include "amg.h"

/* ---- regions ------------------------------------------------------------ */

/* region_of[r] for every rank: XCHG_VIRTUAL_NODES (sizes, repeated, the last
 * cut short; block or cyclic placement) or the shared-memory nodes. */
void regions_build(int *region_of, char *label, size_t labellen)
{
    const char *spec = getenv("XCHG_VIRTUAL_NODES");
    if (spec && *spec) {
        int pattern[256], np = 0;
        for (const char *p = spec; *p;) {
            char *end;
            long v = strtol(p, &end, 10);
            if (end == p || v <= 0 || np == 256 || (*end != ',' && *end))
                DIE("XCHG_VIRTUAL_NODES='%s': expected sizes like 4 or 3,2,4", spec);
            pattern[np++] = (int)v;
            p = *end ? end + 1 : end;
        }
        int *sizes = xmalloc((size_t)nranks * sizeof(int)), num = 0;
        for (int assigned = 0; assigned < nranks; num++) {
            int s = pattern[num % np];
            if (s > nranks - assigned) s = nranks - assigned;
            sizes[num] = s;
            assigned += s;
        }
        const char *pl = getenv("XCHG_VIRTUAL_PLACEMENT");
        if (pl && !strcmp(pl, "cyclic")) {
            for (int r = 0, node = 0; r < nranks; r++) {
                while (sizes[node] == 0) node = (node + 1) % num;
                region_of[r] = node;
                sizes[node]--;
                node = (node + 1) % num;
            }
        } else {
            for (int n = 0, r = 0; n < num; n++)
                for (int i = 0; i < sizes[n]; i++) region_of[r++] = n;
        }
        free(sizes);
        snprintf(label, labellen, "vnodes=%s%s", spec, pl && !strcmp(pl, "cyclic") ? "/cyclic" : "");
        for (char *c = label; *c; c++)
            if (*c == ',') *c = '+'; /* a CSV field */
    } else {
        MPI_Comm shared;
        int lowest;
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shared);
        MPI_Allreduce(&rank, &lowest, 1, MPI_INT, MPI_MIN, shared);
        MPI_Comm_free(&shared);
        int *low = xmalloc((size_t)nranks * sizeof(int));
        MPI_Allgather(&lowest, 1, MPI_INT, low, 1, MPI_INT, MPI_COMM_WORLD);
        int next = 0;
        for (int r = 0; r < nranks; r++)
            if (low[r] == r) {
                for (int s = r; s < nranks; s++)
                    if (low[s] == r) region_of[s] = next;
                next++;
            }
        free(low);
        snprintf(label, labellen, "nodes");
    }
}

/* ---- one level's exchange ------------------------------------------------ */

void pattern_build(hypre_ParCSRMatrix *A, pattern *pt)
{
    hypre_ParCSRCommPkg *pkg = hypre_ParCSRMatrixCommPkg(A);
    if (!pkg) {
        hypre_MatvecCommPkgCreate(A);
        pkg = hypre_ParCSRMatrixCommPkg(A);
    }
    memset(pt, 0, sizeof *pt);
    hypre_CSRMatrix *offd = hypre_ParCSRMatrixOffd(A);
    HYPRE_BigInt first = hypre_ParCSRMatrixFirstRowIndex(A);
    HYPRE_BigInt *cmap = hypre_ParCSRMatrixColMapOffd(A);
    pt->local_rows = hypre_CSRMatrixNumRows(hypre_ParCSRMatrixDiag(A));
    pt->sindices_first = (int64_t)first;
    pt->nsend = hypre_ParCSRCommPkgNumSends(pkg);
    pt->nrecv = hypre_ParCSRCommPkgNumRecvs(pkg);
    HYPRE_Int *sstarts = hypre_ParCSRCommPkgSendMapStarts(pkg);
    HYPRE_Int *elmts = hypre_ParCSRCommPkgSendMapElmts(pkg);
    HYPRE_Int *rstarts = hypre_ParCSRCommPkgRecvVecStarts(pkg);
    pt->nsendvals = pt->nsend ? sstarts[pt->nsend] : 0;
    pt->nrecvvals = pt->nrecv ? rstarts[pt->nrecv] : 0;
    if (pt->nrecvvals != hypre_CSRMatrixNumCols(offd))
        DIE("comm package receives %d values, the off-diagonal block has %d columns",
            pt->nrecvvals, (int)hypre_CSRMatrixNumCols(offd));

    pt->send_procs = xmalloc((size_t)(pt->nsend + 1) * sizeof(int));
    pt->sendcounts = xmalloc((size_t)(pt->nsend + 1) * sizeof(int));
    pt->sdispls = xmalloc((size_t)(pt->nsend + 1) * sizeof(int));
    for (int i = 0; i < pt->nsend; i++) {
        pt->send_procs[i] = hypre_ParCSRCommPkgSendProc(pkg, i);
        pt->sdispls[i] = sstarts[i];
        pt->sendcounts[i] = sstarts[i + 1] - sstarts[i];
    }
    pt->recv_procs = xmalloc((size_t)(pt->nrecv + 1) * sizeof(int));
    pt->recvcounts = xmalloc((size_t)(pt->nrecv + 1) * sizeof(int));
    pt->rdispls = xmalloc((size_t)(pt->nrecv + 1) * sizeof(int));
    for (int i = 0; i < pt->nrecv; i++) {
        pt->recv_procs[i] = hypre_ParCSRCommPkgRecvProc(pkg, i);
        pt->rdispls[i] = rstarts[i];
        pt->recvcounts[i] = rstarts[i + 1] - rstarts[i];
    }
    pt->x_local = xmalloc((size_t)pt->local_rows * sizeof(double));
    for (int i = 0; i < pt->local_rows; i++) pt->x_local[i] = xval((int64_t)first + i);
    pt->sendbuf = xmalloc((size_t)pt->nsendvals * sizeof(double));
    pt->sindices = xmalloc((size_t)pt->nsendvals * sizeof(int64_t));
    for (int k = 0; k < pt->nsendvals; k++) {
        if (elmts[k] < 0 || elmts[k] >= pt->local_rows) DIE("send element %d out of range", k);
        pt->sendbuf[k] = pt->x_local[elmts[k]];
        pt->sindices[k] = (int64_t)first + elmts[k];
    }
    pt->recvbuf = xmalloc((size_t)pt->nrecvvals * sizeof(double));
    pt->rindices = xmalloc((size_t)pt->nrecvvals * sizeof(int64_t));
    pt->col_map = pt->rindices;
    for (int k = 0; k < pt->nrecvvals; k++) pt->rindices[k] = (int64_t)cmap[k];
}

void pattern_free(pattern *pt)
{
    free(pt->send_procs);
    free(pt->recv_procs);
    free(pt->sendcounts);
    free(pt->sdispls);
    free(pt->recvcounts);
    free(pt->rdispls);
    free(pt->sindices);
    free(pt->rindices);
    free(pt->sendbuf);
    free(pt->recvbuf);
    free(pt->x_local);
}

/* What the standard algorithm sends from this rank: one message per send proc. */
stats pattern_stats(const pattern *pt, const int *region_of)
{
    stats s = {0, 0, 0, 0};
    for (int i = 0; i < pt->nsend; i++) {
        int d = pt->send_procs[i];
        long long bytes = (long long)pt->sendcounts[i] * (long long)sizeof(double);
        if (d == rank) continue;
        if (region_of[d] != region_of[rank]) {
            s.inter_msgs++;
            s.inter_bytes += bytes;
        } else {
            s.intra_msgs++;
            s.intra_bytes += bytes;
        }
    }
    return s;
}

/* Bytes between regions, per ordered pair of different regions (R -> S),
 * summed over the ranks of R: every value sent (what standard and
 * aggregation move) and each value once per destination region (what
 * duplicate removal moves). Their maxima over the pairs, on every rank. */
void region_pair_bytes(const pattern *pt, const int *region_of, int nregions,
                              long long *all_max, long long *unique_max)
{
    size_t nn = (size_t)nregions * nregions;
    long long *loc = xmalloc(2 * nn * sizeof(long long)), *sum = xmalloc(2 * nn * sizeof(long long));
    memset(loc, 0, 2 * nn * sizeof(long long));
    int *stamp = xmalloc((size_t)pt->local_rows * sizeof(int));
    for (int i = 0; i < pt->local_rows; i++) stamp[i] = -1;
    int me = region_of[rank];
    for (int S = 0; S < nregions; S++) {
        if (S == me) continue;
        for (int i = 0; i < pt->nsend; i++) {
            if (region_of[pt->send_procs[i]] != S) continue;
            for (int k = pt->sdispls[i]; k < pt->sdispls[i] + pt->sendcounts[i]; k++) {
                int e = (int)(pt->sindices[k] - pt->sindices_first);
                loc[(size_t)me * nregions + S] += (long long)sizeof(double);
                if (stamp[e] != S) {
                    stamp[e] = S;
                    loc[nn + (size_t)me * nregions + S] += (long long)sizeof(double);
                }
            }
        }
    }
    MPI_Allreduce(loc, sum, (int)(2 * nn), MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    *all_max = *unique_max = 0;
    for (size_t i = 0; i < nn; i++) {
        if (sum[i] > *all_max) *all_max = sum[i];
        if (sum[nn + i] > *unique_max) *unique_max = sum[nn + i];
    }
    free(loc);
    free(sum);
    free(stamp);
}

/* Halo values and the SpMV against hypre's; returns the number of bad values. */
long check_exchange(hypre_ParCSRMatrix *A, const pattern *pt, const double *yref)
{
    long bad = 0;
    for (int k = 0; k < pt->nrecvvals; k++)
        if (pt->recvbuf[k] != xval(pt->col_map[k])) {
            if (bad < 3)
                fprintf(stderr, "xchg-amg: rank %d: halo value %d (global %lld) is %.17g, "
                        "expected %.17g\n", rank, k, (long long)pt->col_map[k], pt->recvbuf[k],
                        xval(pt->col_map[k]));
            bad++;
        }
    hypre_CSRMatrix *diag = hypre_ParCSRMatrixDiag(A), *offd = hypre_ParCSRMatrixOffd(A);
    HYPRE_Int *di = hypre_CSRMatrixI(diag), *dj = hypre_CSRMatrixJ(diag);
    HYPRE_Int *oi = hypre_CSRMatrixI(offd), *oj = hypre_CSRMatrixJ(offd);
    HYPRE_Complex *dv = hypre_CSRMatrixData(diag), *ov = hypre_CSRMatrixData(offd);
    int have_offd = hypre_CSRMatrixNumCols(offd) > 0;
    for (int i = 0; i < pt->local_rows; i++) {
        double y = 0.0, scale = 0.0;
        for (HYPRE_Int k = di[i]; k < di[i + 1]; k++) {
            y += dv[k] * pt->x_local[dj[k]];
            scale += fabs(dv[k] * pt->x_local[dj[k]]);
        }
        if (have_offd)
            for (HYPRE_Int k = oi[i]; k < oi[i + 1]; k++) {
                y += ov[k] * pt->recvbuf[oj[k]];
                scale += fabs(ov[k] * pt->recvbuf[oj[k]]);
            }
        if (!(fabs(y - yref[i]) <= 1e-12 * scale + 1e-300)) {
            if (bad < 3)
                fprintf(stderr, "xchg-amg: rank %d: (A x)[%d] is %.17g, hypre says %.17g\n",
                        rank, i, y, yref[i]);
            bad++;
        }
    }
    return bad;
}
