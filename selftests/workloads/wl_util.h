/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the workloads share: a monotonic clock, the system-wide context
 * switch count and the summary line scripts/bench reads.
 */
#ifndef NTKL_WL_UTIL_H
#define NTKL_WL_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static inline uint64_t wl_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

/* Context switches on every CPU since boot (the "ctxt" line of /proc/stat). */
static inline uint64_t wl_ctxt(void)
{
	char line[256];
	uint64_t v = 0;
	FILE *f = fopen("/proc/stat", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "ctxt %lu", &v) == 1)
			break;
	fclose(f);
	return v;
}

/* A non-negative integer argument, or exit with usage status 2. */
static inline unsigned long wl_arg(const char *prog, const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 0);

	if (!*s || *end || *s == '-') {
		fprintf(stderr, "%s: bad number '%s'\n", prog, s);
		exit(2);
	}
	return v;
}

/*
 * One line for scripts/bench: the run's wall time, the switches the
 * workload's own tasks made (getrusage: voluntary + involuntary) and the
 * system-wide count over the same interval.
 */
static inline void wl_report(const char *name, const char *params, uint64_t ns,
			     const struct rusage *ru, uint64_t ctxt)
{
	printf("%s %s ns=%lu vcsw=%ld ivcsw=%ld ctxt=%lu\n", name, params, ns,
	       ru->ru_nvcsw, ru->ru_nivcsw, ctxt);
	fflush(stdout);
}

#endif /* NTKL_WL_UTIL_H */
