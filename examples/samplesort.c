/*
 * samplesort.c -- parallel sorting by regular sampling (PSRS, Shi & Schaeffer 1992).
 *
 * What it computes
 *   Sorts n pseudo-random 32-bit keys (key i = hash(i), from a fixed integer hash, so every
 *   process generates its own block) into ascending order distributed over the processes.
 *     1. each process sorts its block (iterative bottom-up merge sort, log2 n passes);
 *     2. each picks P regular samples; rank 0 gathers the P^2 samples, sorts them and
 *        broadcasts P - 1 splitters;
 *     3. each process cuts its sorted block at the splitters and sends piece j to process j
 *        (all-to-all of the counts, then all-to-all-v of the keys);
 *     4. each process sorts the keys it received.
 *   The sorted sequence is unique, so the checksum (weighted sum of the keys over their global
 *   positions, exact 64-bit integer arithmetic) does not depend on P.  Verification: every
 *   process's keys are sorted, keys are in order across process boundaries, and the number and
 *   the sum of the keys are preserved.
 *
 * Parameters
 *   argv[1]  n  number of keys (default 1000000; n >= P)
 *
 * Data distribution
 *   Input: block distribution, process r generates keys lo = r*n/P .. hi = (r+1)*n/P - 1.
 *   Output: process r holds the keys between splitter r-1 and splitter r (data dependent).
 *
 * Communication
 *   MPI_Gather of P samples per process to rank 0, MPI_Bcast of P - 1 splitters,
 *   MPI_Alltoall of the piece sizes, MPI_Alltoallv of the keys (about n / P keys per process),
 *   MPI_Exscan of the piece sizes, and MPI_Gather / MPI_Reduce for the checks.
 *
 * Complexity
 *   computation  O((n / P) log(n / P)) for the two local sorts + O(P^2 log P) on rank 0
 *   messages     O(P) latency; volume about n / P words per process (all-to-all).
 *
 * Output (rank 0)
 *   checksum <sum_i key_i * (i mod 7 + 1)>   and   verify ok | verify FAILED ...
 *   Exit status 0 on success, 1 if verification fails, 2 on bad arguments.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_N 1000000

static uint32_t hash1(uint32_t a)
{
    uint32_t h = a * 0x9E3779B1u + 0x7F4A7C15u;
    h ^= h >> 15;
    h *= 0x2C1B3C6Du;
    h ^= h >> 12;
    h *= 0x297A2D39u;
    h ^= h >> 15;
    return h;
}

static int parse_int(const char *text, int *value)
{
    char *end;
    long v = strtol(text, &end, 10);
    if (end == text || *end != '\0' || v < 1 || v > 200000000L)
        return 0;
    *value = (int)v;
    return 1;
}

static void *checked_malloc(size_t bytes)
{
    void *p = malloc(bytes + 1);
    if (!p) {
        fprintf(stderr, "samplesort: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return p;
}

/* Merge the sorted runs a[lo..mid) and a[mid..hi) into out[lo..hi). */
static void merge(const uint32_t *a, uint32_t *out, int lo, int mid, int hi)
{
    int i = lo, j = mid, k;
    for (k = lo; k < hi; k++) {
        if (i < mid && (j >= hi || a[i] <= a[j])) {
            out[k] = a[i];
            i++;
        } else {
            out[k] = a[j];
            j++;
        }
    }
}

/* Bottom-up merge sort of a[0..count), using tmp of the same size: ceil(log2 count) passes. */
static void merge_sort(uint32_t *a, uint32_t *tmp, int count)
{
    int width, lo;
    uint32_t *src = a, *dst = tmp, *swap;
    for (width = 1; width < count; width = 2 * width) {
        for (lo = 0; lo < count; lo = lo + 2 * width) {
            int mid = lo + width < count ? lo + width : count;
            int hi = lo + 2 * width < count ? lo + 2 * width : count;
            merge(src, dst, lo, mid, hi);
        }
        swap = src;
        src = dst;
        dst = swap;
    }
    if (src != a)
        memcpy(a, src, (size_t)count * sizeof(uint32_t));
}

static void generate(uint32_t *keys, int lo, int local_n)
{
    int i;
    for (i = 0; i < local_n; i++)
        keys[i] = hash1((uint32_t)(lo + i));
}

/* Number of keys <= key in the sorted a[0..count): binary lifting, about log2(count) steps. */
static int upper_bound(const uint32_t *a, int count, uint32_t key)
{
    int pos = 0, step, top = 1;
    for (step = 1; 2 * step <= count; step = 2 * step)
        top = 2 * step;
    for (step = top; step > 0; step = step / 2) {
        if (pos + step <= count && a[pos + step - 1] <= key)
            pos = pos + step;
    }
    return pos;
}

/* Sizes of the pieces of the sorted block a[0..count) cut at the splitters (piece j: keys in
 * (s_j-1, s_j]; the last piece takes the rest). */
static void cut(const uint32_t *a, int count, const uint32_t *splitters, int size, int *sizes)
{
    int j, start = 0;
    for (j = 0; j < size - 1; j++) {
        int end = upper_bound(a, count, splitters[j]);
        sizes[j] = end - start;
        start = end;
    }
    sizes[size - 1] = count - start;
}

int main(int argc, char **argv)
{
    int rank, size, n = DEFAULT_N;
    int lo, hi, local_n, received, j, ok = 1, sorted = 1;
    uint32_t *keys, *tmp, *samples, *all_samples = NULL, *splitters, *result, *rtmp;
    int *send_counts, *send_displs, *recv_counts, *recv_displs;
    long long offset = 0, count_in, counts[2], totals[2];
    uint64_t key_sum_in = 0, key_sum_out = 0, weighted = 0, sums[3], gsums[3];
    uint32_t edge[3], *edges = NULL;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    if (argc > 2 || (argc > 1 && !parse_int(argv[1], &n)) || n < size) {
        if (rank == 0)
            fprintf(stderr, "usage: %s [n]   (n = number of keys, n >= processes, default %d)\n",
                    argv[0], DEFAULT_N);
        MPI_Finalize();
        return 2;
    }

    lo = rank * n / size;
    hi = (rank + 1) * n / size;
    local_n = hi - lo;

    keys = checked_malloc((size_t)local_n * sizeof(uint32_t));
    tmp = checked_malloc((size_t)local_n * sizeof(uint32_t));
    samples = checked_malloc((size_t)size * sizeof(uint32_t));
    splitters = checked_malloc((size_t)size * sizeof(uint32_t));
    send_counts = checked_malloc((size_t)size * sizeof(int));
    send_displs = checked_malloc((size_t)size * sizeof(int));
    recv_counts = checked_malloc((size_t)size * sizeof(int));
    recv_displs = checked_malloc((size_t)size * sizeof(int));

    generate(keys, lo, local_n);
    for (j = 0; j < local_n; j++)
        key_sum_in += keys[j];
    count_in = local_n;

    /* 1. local sort */
    merge_sort(keys, tmp, local_n);

    /* 2. regular samples, splitters chosen on rank 0 */
    for (j = 0; j < size; j++)
        samples[j] = keys[(long long)j * local_n / size];
    if (rank == 0)
        all_samples = checked_malloc((size_t)size * size * sizeof(uint32_t) * 2);
    MPI_Gather(samples, size, MPI_UINT32_T, all_samples, size, MPI_UINT32_T, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        merge_sort(all_samples, all_samples + size * size, size * size);
        for (j = 0; j < size - 1; j++)
            splitters[j] = all_samples[(j + 1) * size + size / 2 - 1];
    }
    MPI_Bcast(splitters, size - 1, MPI_UINT32_T, 0, MPI_COMM_WORLD);

    /* 3. all-to-all exchange of the pieces */
    cut(keys, local_n, splitters, size, send_counts);
    MPI_Alltoall(send_counts, 1, MPI_INT, recv_counts, 1, MPI_INT, MPI_COMM_WORLD);
    send_displs[0] = 0;
    recv_displs[0] = 0;
    for (j = 1; j < size; j++) {
        send_displs[j] = send_displs[j - 1] + send_counts[j - 1];
        recv_displs[j] = recv_displs[j - 1] + recv_counts[j - 1];
    }
    received = recv_displs[size - 1] + recv_counts[size - 1];
    result = checked_malloc((size_t)received * sizeof(uint32_t));
    rtmp = checked_malloc((size_t)received * sizeof(uint32_t));
    MPI_Alltoallv(keys, send_counts, send_displs, MPI_UINT32_T, result, recv_counts, recv_displs,
                  MPI_UINT32_T, MPI_COMM_WORLD);

    /* 4. sort what arrived */
    merge_sort(result, rtmp, received);

    /* checks and checksum: global positions start at the exclusive prefix sum of the sizes */
    counts[0] = received;
    MPI_Exscan(&counts[0], &offset, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        offset = 0;
    for (j = 0; j < received; j++) {
        if (j > 0 && result[j - 1] > result[j])
            sorted = 0;
        key_sum_out += result[j];
        weighted += (uint64_t)result[j] * (uint64_t)((offset + j) % 7 + 1);
    }
    /* order across processes: rank 0 checks (non-empty, first, last) of every process */
    edge[0] = received > 0;
    edge[1] = received > 0 ? result[0] : 0;
    edge[2] = received > 0 ? result[received - 1] : 0;
    if (rank == 0)
        edges = checked_malloc((size_t)size * 3 * sizeof(uint32_t));
    MPI_Gather(edge, 3, MPI_UINT32_T, edges, 3, MPI_UINT32_T, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        int seen = 0;
        uint32_t last = 0;
        for (j = 0; j < size; j++) {
            if (edges[3 * j] != 0) {
                if (seen && edges[3 * j + 1] < last)
                    sorted = 0;
                last = edges[3 * j + 2];
                seen = 1;
            }
        }
        free(edges);
    }
    counts[0] = received;
    counts[1] = sorted ? 0 : 1;
    sums[0] = key_sum_in;
    sums[1] = key_sum_out;
    sums[2] = weighted;
    MPI_Reduce(counts, totals, 2, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(sums, gsums, 3, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    {
        long long total_in;
        MPI_Reduce(&count_in, &total_in, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
        if (rank == 0) {
            printf("checksum %.12e\n", (double)gsums[2]);
            if (totals[0] == total_in && totals[0] == n && totals[1] == 0 &&
                gsums[0] == gsums[1]) {
                printf("verify ok\n");
            } else {
                printf("verify FAILED count %lld of %d, %lld unsorted pieces, key sums %s\n",
                       totals[0], n, totals[1], gsums[0] == gsums[1] ? "equal" : "differ");
                ok = 0;
            }
        }
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);

    free(keys);
    free(tmp);
    free(samples);
    free(splitters);
    free(send_counts);
    free(send_displs);
    free(recv_counts);
    free(recv_displs);
    free(result);
    free(rtmp);
    free(all_samples);
    MPI_Finalize();
    return ok ? 0 : 1;
}
