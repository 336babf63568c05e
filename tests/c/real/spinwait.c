/* Threads waiting for each other by spinning (NPB LU's pipelined SSOR, the PRK wavefront): thread
 * t waits until thread t - 1 has finished row block j, polling a shared flag with an OpenMP flush
 * or an atomic read.  How often a wait loop polls depends on the timing of the threads, not on n:
 * the loops are waits, counted with no operations, so the work is the same on every run. */
#include <stdio.h>
#include <stdlib.h>
#include <omp.h>

int main(int argc, char **argv)
{
    int n = atoi(argv[1]), blocks = 8;
    double *a = calloc((size_t)n * blocks, sizeof(double));
    int *done = calloc(blocks * 64, sizeof(int));
    int *ready = calloc(blocks * 64, sizeof(int));
#pragma omp parallel
    {
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
        for (int j = 0; j < blocks; j++) {
            if (t > 0) {
                while (done[(t - 1) * blocks + j] == 0) {
#pragma omp flush(done)
                    ;
                }
            }
            if (t > 0) {
                while (1) {
                    int seen;
#pragma omp atomic read
                    seen = ready[(t - 1) * blocks + j];
                    if (seen == 1)
                        break;
                }
            }
            for (int i = t; i < n; i += nt)
                a[(size_t)j * n + i] += i * 0.5 + j;
#pragma omp flush
            done[t * blocks + j] = 1;
#pragma omp flush(done)
#pragma omp atomic write
            ready[t * blocks + j] = 1;
        }
    }
    double s = 0.0;
    for (int i = 0; i < n * blocks; i++)
        s += a[i];
    printf("%.1f\n", s);
    free(a);
    free(done);
    free(ready);
    return 0;
}
