/*
 * sm4j bench's Open MPI baseline: the same loops as io.sm4j.bench.OsuLoops, in C over MPI, printing the
 * same result lines ("R ompi <size> <values>"). Built with mpicc and run with mpirun by sm4j bench when
 * Open MPI is installed: 2 ranks for latency, bw and bibw; N for multi_lat and mbw_mr, where rank r < N/2
 * pairs with r + N/2 and every pair's sender prints its line (sm4j bench averages them, as OSU does).
 *
 * The RMA tests (put_latency, get_latency, put_bw: OSU's defaults, a window from MPI_Win_allocate and flush
 * synchronisation) run on rank 0 against rank 1's part, under one shared lock per size, timed in batches of
 * RMA_BATCH operations (a window for put_bw) so that the timer's cost does not swamp a put of a few bytes.
 *
 * usage: osu_mpi latency|bw|bibw|multi_lat|mbw_mr|allreduce|reduce|reduce_scatter|bcast|gather|allgather|alltoall|barrier|put_latency|get_latency|put_bw MIN MAX ITERATIONS SKIP WINDOW
 *        ITERATIONS 0 and SKIP -1 mean OSU's defaults (fewer above 8 KiB), as BenchTest.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LARGE 8192
#define MAX_WINDOW 1024
#define RMA_BATCH 16

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double pct(const double *sorted, int n, double p)
{
    double at = p / 100.0 * n;                  /* the k-th value, k = p% of n rounded up, as HdrHistogram's */
    long k = (long)at;
    if ((double)k < at - 1e-9) k++;
    return sorted[k < 1 ? 0 : k > n ? n - 1 : k - 1];
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (argc != 7) {
        if (me == 0) fprintf(stderr, "usage: osu_mpi latency|bw|bibw|multi_lat|mbw_mr|allreduce|reduce|reduce_scatter|bcast|gather|allgather|alltoall|barrier|put_latency|get_latency|put_bw MIN MAX ITERATIONS SKIP WINDOW\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *test = argv[1];
    long min = atol(argv[2]), max = atol(argv[3]);
    int iters = atoi(argv[4]), skip = atoi(argv[5]), window = atoi(argv[6]);
    int allreduce = strcmp(test, "allreduce") == 0, bcast = strcmp(test, "bcast") == 0, barrier = strcmp(test, "barrier") == 0;
    int allgather = strcmp(test, "allgather") == 0, alltoall = strcmp(test, "alltoall") == 0;
    int reduce = strcmp(test, "reduce") == 0, gather = strcmp(test, "gather") == 0;
    int reduce_scatter = strcmp(test, "reduce_scatter") == 0;
    int coll = allreduce || reduce || reduce_scatter || bcast || gather || allgather || alltoall || barrier;   /* every rank times each call (not halved), as OSU; rank 0 reports all ranks' calls */
    int put_lat = strcmp(test, "put_latency") == 0, get_lat = strcmp(test, "get_latency") == 0, put_bw = strcmp(test, "put_bw") == 0;
    int rma = put_lat || get_lat || put_bw;
    int multi_lat = strcmp(test, "multi_lat") == 0;
    int latency = strcmp(test, "latency") == 0 || multi_lat || coll || put_lat || get_lat, bibw = strcmp(test, "bibw") == 0;
    if (window < 1 || window > MAX_WINDOW) window = 64;
    long room = (max > 0 ? max : 1) * ((gather || allgather || alltoall) ? n : 1);   /* n blocks for gather, allgather, alltoall */
    char *out = malloc(room), *in = malloc(room), ack[4];
    memset(out, 1, room);
    char *base = NULL;
    MPI_Win win;
    if (rma) MPI_Win_allocate(room, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Request req[2 * MAX_WINDOW];
    int ranks = n, half = n / 2, sender = me < half, peer = sender ? me + half : me - half;   /* the loop below has its own n */
    long first = min == 0 ? 0 : 1;
    while (first != 0 && first < min) first *= 2;            /* 0, then powers of two >= MIN, as BenchSpec */
    for (long size = first; size <= max; size = size == 0 ? 1 : size * 2) {
        int n = iters > 0 ? iters : latency ? (size > LARGE ? 1000 : 10000) : (size > LARGE ? 20 : 100);
        int sk = skip >= 0 ? skip : multi_lat ? (size > LARGE ? 1000 : 10000)   /* as many as measured, as BenchTest */
            : latency ? (size > LARGE ? 100 : 1000) : (size > LARGE ? 2 : 10);
        if (rma && !put_bw) n = (n + RMA_BATCH - 1) / RMA_BATCH * RMA_BATCH;   /* whole batches */
        double *rt = !rma || latency ? malloc(sizeof(double) * n) : NULL, t0 = 0;   /* each round trip, call or window */
        MPI_Barrier(MPI_COMM_WORLD);
        if (rma) {
            if (me == 0) {
                int batch = put_bw ? 1 : RMA_BATCH, per = put_bw ? window : 1;
                MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
                double s = 0;
                for (int i = 0; i < sk + n; i++) {
                    if (i == sk) t0 = MPI_Wtime();
                    if (i >= sk && (i - sk) % batch == 0) s = MPI_Wtime();
                    for (int w = 0; w < per; w++) {
                        if (get_lat) MPI_Get(in, (int)size, MPI_CHAR, 1, 0, (int)size, MPI_CHAR, win);
                        else MPI_Put(out, (int)size, MPI_CHAR, 1, 0, (int)size, MPI_CHAR, win);
                    }
                    MPI_Win_flush(1, win);
                    if (latency && i >= sk && (i - sk) % batch == batch - 1) {
                        double each = (MPI_Wtime() - s) / batch;
                        for (int k = i - sk - batch + 1; k <= i - sk; k++) rt[k] = each;
                    }
                }
                double t = MPI_Wtime() - t0;
                MPI_Win_unlock(1, win);
                if (latency) {
                    qsort(rt, n, sizeof(double), cmp);
                    printf("R ompi %ld %.4f %.4f %.4f %.4f %.4f\n", size, t * 1e6 / n, pct(rt, n, 50) * 1e6,
                        pct(rt, n, 99) * 1e6, pct(rt, n, 99.9) * 1e6, rt[n - 1] * 1e6);
                } else {
                    double messages = (double)window * n;
                    printf("R ompi %ld %.4f %.4f\n", size, messages * size / t / 1e6, messages / t);
                }
                fflush(stdout);
            }
            MPI_Barrier(MPI_COMM_WORLD);
            free(rt);
            continue;
        }
        for (int i = 0; i < sk + n; i++) {
            if (i == sk) t0 = MPI_Wtime();
            if (coll) {
                double s = MPI_Wtime();
                if (allreduce) MPI_Allreduce(out, in, (int)(size / 4), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
                else if (reduce) MPI_Reduce(out, in, (int)(size / 4), MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD);
                else if (reduce_scatter) MPI_Reduce_scatter_block(out, in, (int)(size / 4 / ranks), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
                else if (bcast) MPI_Bcast(out, (int)size, MPI_CHAR, 0, MPI_COMM_WORLD);
                else if (gather) MPI_Gather(out, (int)size, MPI_CHAR, in, (int)size, MPI_CHAR, 0, MPI_COMM_WORLD);
                else if (allgather) MPI_Allgather(out, (int)size, MPI_CHAR, in, (int)size, MPI_CHAR, MPI_COMM_WORLD);
                else if (alltoall) MPI_Alltoall(out, (int)size, MPI_CHAR, in, (int)size, MPI_CHAR, MPI_COMM_WORLD);
                else MPI_Barrier(MPI_COMM_WORLD);
                if (i >= sk) rt[i - sk] = MPI_Wtime() - s;
                if (!barrier) MPI_Barrier(MPI_COMM_WORLD);  /* as OSU: the next call starts together */
            } else if (latency) {
                double s = MPI_Wtime();
                if (sender) {
                    MPI_Send(out, size, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
                    MPI_Recv(in, size, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    if (i >= sk) rt[i - sk] = MPI_Wtime() - s;
                } else {
                    MPI_Recv(in, size, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    MPI_Send(out, size, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
                }
            } else if (bibw) {
                double s = MPI_Wtime();
                for (int w = 0; w < window; w++) MPI_Irecv(in, size, MPI_CHAR, peer, 2, MPI_COMM_WORLD, &req[w]);
                for (int w = 0; w < window; w++) MPI_Isend(out, size, MPI_CHAR, peer, 2, MPI_COMM_WORLD, &req[window + w]);
                MPI_Waitall(2 * window, req, MPI_STATUSES_IGNORE);
                if (i >= sk) rt[i - sk] = MPI_Wtime() - s;
            } else if (sender) {
                double s = MPI_Wtime();
                for (int w = 0; w < window; w++) MPI_Isend(out, size, MPI_CHAR, peer, 2, MPI_COMM_WORLD, &req[w]);
                MPI_Waitall(window, req, MPI_STATUSES_IGNORE);
                MPI_Recv(ack, 4, MPI_CHAR, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                if (i >= sk) rt[i - sk] = MPI_Wtime() - s;
            } else {
                for (int w = 0; w < window; w++) MPI_Irecv(in, size, MPI_CHAR, peer, 2, MPI_COMM_WORLD, &req[w]);
                MPI_Waitall(window, req, MPI_STATUSES_IGNORE);
                MPI_Send(ack, 4, MPI_CHAR, peer, 3, MPI_COMM_WORLD);
            }
        }
        double t = MPI_Wtime() - t0;
        if (coll) {                                  /* every rank's calls, to rank 0: mean and percentiles over all */
            int np;
            MPI_Comm_size(MPI_COMM_WORLD, &np);
            double *all = me == 0 ? malloc(sizeof(double) * n * np) : NULL;
            MPI_Gather(rt, n, MPI_DOUBLE, all, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
            if (me == 0) {
                t = 0;
                for (int k = 0; k < n * np; k++) t += all[k];
                t /= np;                             /* the timed calls' total of an average rank */
                free(rt);
                rt = all;
                n = n * np;
                t = t * np;                          /* t / n below: the mean over every call */
            }
        }
        if (coll ? me == 0 : sender) {
            double half_rt = coll ? 1e6 : 5e5;          /* a collective's call is not a round trip */
            qsort(rt, n, sizeof(double), cmp);
            if (latency) {
                printf("R ompi %ld %.4f %.4f %.4f %.4f %.4f\n", size, t * half_rt / n, pct(rt, n, 50) * half_rt,
                    pct(rt, n, 99) * half_rt, pct(rt, n, 99.9) * half_rt, rt[n - 1] * half_rt);
            } else {                                 /* then the rates of the median and the 99th-percentile window */
                double per = (bibw ? 2.0 : 1.0) * window, messages = per * n;
                printf("R ompi %ld %.4f %.4f %.4f %.4f\n", size, messages * size / t / 1e6, messages / t,
                    per * size / pct(rt, n, 50) / 1e6, per * size / pct(rt, n, 99) / 1e6);
            }
            fflush(stdout);
        }
        free(rt);
    }
    if (rma) MPI_Win_free(&win);
    free(out);
    free(in);
    MPI_Finalize();
    return 0;
}
