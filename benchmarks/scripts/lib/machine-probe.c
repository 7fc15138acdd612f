// What the operations Herald does per push and C servers do not cost on this machine: an
// uncontended atomic add (each Swift retain or release is one), a compare-and-swap after a load
// (the runtime's slower path), a malloc/free pair of a small and a task-slab-sized block; and a
// plain add to scale them by. Single-threaded, so it measures the core, not contention; timed in
// the thread's CPU time, so a busy neighbour slows the figures less than it would wall time.
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(void) {
    const long n = 50000000;
    volatile long counter = 0;
    void *volatile sink;
    double start = now();
    for (long i = 0; i < n; i++) __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED);
    double atomic = (now() - start) / n * 1e9;
    start = now();
    for (long i = 0; i < n; i++) {
        long expected = counter;
        __atomic_compare_exchange_n(&counter, &expected, expected + 1, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
    }
    double cas = (now() - start) / n * 1e9;
    start = now();
    for (long i = 0; i < n; i++) counter = counter + 1;
    double plain = (now() - start) / n * 1e9;
    start = now();
    for (long i = 0; i < n / 4; i++) { sink = malloc(64); free(sink); }
    double small = (now() - start) / (n / 4) * 1e9;
    start = now();
    for (long i = 0; i < n / 4; i++) { sink = malloc(1000); free(sink); }
    double slab = (now() - start) / (n / 4) * 1e9;
    printf("atomic add %.2f ns, load + compare-and-swap %.2f ns, plain add %.2f ns, malloc+free 64 B %.2f ns, 1000 B %.2f ns\n",
        atomic, cas, plain, small, slab);
    return 0;
}
