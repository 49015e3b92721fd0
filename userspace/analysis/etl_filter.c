// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl report's and dump --stats' selection and order. See etl_filter.h.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etl_filter.h"

static bool has(const uint32_t *v, size_t n, uint32_t id)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == id)
			return true;
	return false;
}

bool etl_filter_by_thread(const struct etl_filter *f)
{
	return f && (f->npids || f->ntids || f->comm);
}

bool etl_filter_thread(const struct etl_filter *f, uint32_t tid, uint32_t pid,
		       const char *thread_name, const char *process_name)
{
	if (!f)
		return true;
	if (f->npids && !has(f->pids, f->npids, pid))
		return false;
	if (f->ntids && !has(f->tids, f->ntids, tid))
		return false;
	if (f->comm && !(thread_name && !strcmp(thread_name, f->comm)) &&
	    !(process_name && !strcmp(process_name, f->comm)))
		return false;
	return true;
}

/* "1,2,3" into v: decimal ids. */
static int ids(uint32_t *v, size_t *n, const char *arg, const char *what, char *why, size_t size)
{
	const char *p = arg;

	*n = 0;
	for (;;) {
		char *end;
		unsigned long long x;

		errno = 0;
		x = strtoull(p, &end, 10);
		if (end == p || *p == '-' || *p == '+' || errno || x > UINT32_MAX ||
		    (*end && *end != ',')) {
			snprintf(why, size, "--%cid '%s' is not a %s id or a list of them (decimal, comma-separated: 12,34)",
				 what[0], arg, what);
			return -1;
		}
		if (*n == ETL_FILTER_MAX_IDS) {
			snprintf(why, size, "--%cid '%s': at most %d %s ids", what[0], arg,
				 ETL_FILTER_MAX_IDS, what);
			return -1;
		}
		v[(*n)++] = (uint32_t)x;
		if (!*end)
			return 0;
		p = end + 1;
	}
}

static int seconds(const char *s, const char *end, double *v)
{
	char buf[64], *e;

	if (end - s <= 0 || end - s >= (long)sizeof(buf))
		return -1;
	memcpy(buf, s, (size_t)(end - s));
	buf[end - s] = 0;
	errno = 0;
	*v = strtod(buf, &e);
	return *e || errno || !isfinite(*v) || *v < 0 ? -1 : 0;
}

int etl_filter_option(struct etl_filter *f, int opt, const char *arg, char *why, size_t size)
{
	switch (opt) {
	case 'p':
		return ids(f->pids, &f->npids, arg, "process", why, size);
	case 't':
		return ids(f->tids, &f->ntids, arg, "thread", why, size);
	case 'c':
		if (!*arg) {
			snprintf(why, size, "--comm needs a process or thread name");
			return -1;
		}
		f->comm = arg;
		return 0;
	case 'T': {
		const char *comma = strchr(arg, ',');

		if (!comma || seconds(arg, comma, &f->start_s) ||
		    seconds(comma + 1, comma + 1 + strlen(comma + 1), &f->end_s)) {
			snprintf(why, size, "--time '%s' is not START,END: seconds from the collection's start, e.g. 1.5,3",
				 arg);
			return -1;
		}
		if (f->end_s <= f->start_s) {
			snprintf(why, size, "--time '%s': END must be after START", arg);
			return -1;
		}
		f->has_time = true;
		return 0;
	}
	case 'n': {
		char *end;
		unsigned long long n;

		errno = 0;
		n = strtoull(arg, &end, 10);
		if (end == arg || *end || errno || *arg == '-' || *arg == '+' || !n) {
			snprintf(why, size, "--top '%s' is not a number of rows (1 or more)", arg);
			return -1;
		}
		f->top = n > SIZE_MAX - 1 ? SIZE_MAX - 1 : (size_t)n;
		return 0;
	}
	case 's':
		if (!strcmp(arg, "cpu"))
			f->sort = ETL_SORT_CPU;
		else if (!strcmp(arg, "pid"))
			f->sort = ETL_SORT_PID;
		else if (!strcmp(arg, "tid"))
			f->sort = ETL_SORT_TID;
		else if (!strcmp(arg, "name"))
			f->sort = ETL_SORT_NAME;
		else {
			snprintf(why, size, "--sort '%s' is not a sort key: cpu, pid, tid or name", arg);
			return -1;
		}
		return 0;
	}
	snprintf(why, size, "unknown option");
	return -1;
}
