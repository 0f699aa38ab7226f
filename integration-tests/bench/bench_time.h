/*
 * bench_time.h - the clock and the median the benchmark clients (bench_client.c,
 * bench_verbs.c) share. Header-only: each client still builds with one gcc line.
 */
#ifndef IBEMU_BENCH_TIME_H
#define IBEMU_BENCH_TIME_H

#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* The median of v[0..n) without reordering v. */
static inline double median_of(double *v, int n)
{
	double *c = malloc(n * sizeof(*c)), m;
	memcpy(c, v, n * sizeof(*c));
	qsort(c, n, sizeof(*c), cmp_double);
	m = c[n / 2];
	free(c);
	return m;
}

#endif
