// compare.c — read- and write-side cost of Syringe's reclaimer against
// liburcu 0.13. One variant per process (liburcu's thread registration is
// per flavour and must not be repeated). Built and run by compare.sh.
//
//   compare list
//   compare read  <variant> outer|nested <n>      n sections, for callgrind
//   compare time-read <variant> <n> <runs>        median ns per section
//   compare write <writer> <n>                    n retires, for callgrind
//   compare time-write <writer> <n> <runs>        median ns per retire
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

uint64_t freed_count;

static const variant *const variants[] = {&v_empty, &v_ours, &v_ours_pending, &v_memb, &v_memb_fenced, &v_memb_call, &v_bp, &v_qsbr, &v_qsbr_online};
static const writer *const writers[] = {&w_ours, &w_memb_call_rcu, &w_memb_synchronize};
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int by_value(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *values, int count) {
    qsort(values, (size_t)count, sizeof *values, by_value);
    return count % 2 ? values[count / 2] : (values[count / 2 - 1] + values[count / 2]) / 2;
}

static const variant *find_variant(const char *name) {
    for (size_t i = 0; i < COUNT(variants); i++) {
        if (strcmp(variants[i]->name, name) == 0) return variants[i];
    }
    fprintf(stderr, "no variant %s\n", name);
    exit(2);
}

static const writer *find_writer(const char *name) {
    for (size_t i = 0; i < COUNT(writers); i++) {
        if (strcmp(writers[i]->name, name) == 0) return writers[i];
    }
    fprintf(stderr, "no writer %s\n", name);
    exit(2);
}

static void usage(void) {
    fputs("usage: compare list | read <variant> outer|nested <n> | time-read <variant> <n> <runs>\n"
          "               | write <writer> <n> | time-write <writer> <n> <runs>\n", stderr);
    exit(2);
}

int main(int argc, char **argv) {
    if (argc < 2) usage();
    const char *mode = argv[1];
    if (strcmp(mode, "list") == 0) {
        for (size_t i = 0; i < COUNT(variants); i++) printf("read\t%s\t%s\n", variants[i]->name, variants[i]->what);
        for (size_t i = 0; i < COUNT(writers); i++) printf("write\t%s\t%s\n", writers[i]->name, writers[i]->what);
        return 0;
    }
    if (strcmp(mode, "read") == 0 && argc == 5) {
        const variant *v = find_variant(argv[2]);
        const uint64_t n = strtoull(argv[4], NULL, 10);
        v->setup();
        if (strcmp(argv[3], "outer") == 0) v->outer(n);
        else if (strcmp(argv[3], "nested") == 0) v->nested(n);
        else usage();
        return 0;
    }
    if (strcmp(mode, "time-read") == 0 && argc == 5) {
        const variant *v = find_variant(argv[2]);
        const uint64_t n = strtoull(argv[3], NULL, 10);
        const int runs = atoi(argv[4]);
        double outer[64], nested[64];
        if (runs < 1 || runs > 64) usage();
        v->setup();
        v->outer(n / 10);   // warm up
        for (int r = 0; r < runs; r++) {
            double start = now_ns();
            v->outer(n);
            outer[r] = (now_ns() - start) / (double)n;
            start = now_ns();
            v->nested(n);
            nested[r] = (now_ns() - start) / (double)n;
        }
        printf("%.3f %.3f\n", median(outer, runs), median(nested, runs));
        return 0;
    }
    if (strcmp(mode, "write") == 0 && argc == 4) {
        const writer *w = find_writer(argv[2]);
        const uint64_t n = strtoull(argv[3], NULL, 10);
        w->setup();
        w->run(n);
        w->finish();
        const uint64_t freed = __atomic_load_n(&freed_count, __ATOMIC_RELAXED);
        if (freed != n) {
            fprintf(stderr, "%s: %llu of %llu objects freed\n", w->name, (unsigned long long)freed,
                    (unsigned long long)n);
            return 1;
        }
        return 0;
    }
    if (strcmp(mode, "time-write") == 0 && argc == 5) {
        const writer *w = find_writer(argv[2]);
        const uint64_t n = strtoull(argv[3], NULL, 10);
        const int runs = atoi(argv[4]);
        double caller[64], total[64];
        if (runs < 1 || runs > 64) usage();
        w->setup();
        w->run(n / 10);   // warm up (starts liburcu's call_rcu thread)
        w->finish();
        for (int r = 0; r < runs; r++) {
            const double start = now_ns();
            w->run(n);
            const double returned = now_ns();
            w->finish();
            caller[r] = (returned - start) / (double)n;
            total[r] = (now_ns() - start) / (double)n;
        }
        const uint64_t expected = n / 10 + n * (uint64_t)runs;
        if (__atomic_load_n(&freed_count, __ATOMIC_RELAXED) != expected) {
            fprintf(stderr, "%s: not everything was freed\n", w->name);
            return 1;
        }
        // The writer's own time per retire; and until everything is freed.
        printf("%.1f %.1f\n", median(caller, runs), median(total, runs));
        return 0;
    }
    usage();
}
