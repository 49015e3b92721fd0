// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl report's idle section. See etl_idle.h.
 */
#include <stdlib.h>
#include <string.h>

#include "etl/etl_model.h"
#include "etl/etl_switches.h"
#include "etl_idle.h"
#include "etl_json.h"

/* One CPU's idle period lengths, in ticks, to take the median of. */
struct periods {
	uint64_t *v;
	size_t n, cap;
};

static int add_period(struct periods *p, uint64_t ticks)
{
	if (p->n == p->cap) {
		size_t c = p->cap ? 2 * p->cap : 256;
		uint64_t *v = realloc(p->v, c * sizeof(*v));

		if (!v)
			return -1;
		p->v = v;
		p->cap = c;
	}
	p->v[p->n++] = ticks;
	return 0;
}

static int by_ticks(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void finish_cpu(struct etl_idle_cpu *c, struct periods *p, double freq)
{
	if (p->n) {
		qsort(p->v, p->n, sizeof(*p->v), by_ticks);
		c->periods = p->n;
		c->median_ms = (double)p->v[p->n / 2] / freq * 1e3;
		c->max_ms = (double)p->v[p->n - 1] / freq * 1e3;
	}
	p->n = 0;
}

static int by_tid(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The wakers: the threads of wakes[] (UINT32_MAX: not known), counted. */
static int count_wakers(struct etl_idle *idle, uint32_t *wakes, size_t n)
{
	size_t i, j;

	if (!n)
		return 0;
	qsort(wakes, n, sizeof(*wakes), by_tid);
	idle->wakers = calloc(n, sizeof(*idle->wakers));
	if (!idle->wakers)
		return -1;
	for (i = 0; i < n; i = j) {
		for (j = i; j < n && wakes[j] == wakes[i]; j++)
			;
		idle->wakers[idle->nwakers++] = (struct etl_idle_waker){
			.tid = wakes[i], .pid = UINT32_MAX, .wakeups = j - i,
		};
	}
	return 0;
}

static int by_wakeups(const void *a, const void *b)
{
	const struct etl_idle_waker *x = a, *y = b;

	if (x->wakeups != y->wakeups)
		return x->wakeups < y->wakeups ? 1 : -1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static bool selected(const struct etl_model *m, const struct etl_filter *flt, uint32_t tid)
{
	const struct etl_model_thread *t;
	uint32_t pid;

	if (!flt || !etl_filter_by_thread(flt))
		return true;
	t = tid == UINT32_MAX ? NULL : etl_model_thread(m, tid);
	pid = t ? t->pid : UINT32_MAX;
	return etl_filter_thread(flt, tid, pid, t ? t->name : NULL,
				 etl_model_process_name(m, pid));
}

static void name_wakers(struct etl_idle *idle, const struct etl_model *m)
{
	for (size_t i = 0; i < idle->nwakers; i++) {
		struct etl_idle_waker *w = &idle->wakers[i];
		const struct etl_model_thread *t =
			w->tid == UINT32_MAX ? NULL : etl_model_thread(m, w->tid);
		const char *proc;

		if (!t)
			continue;
		memcpy(w->name, t->name, sizeof(w->name));
		w->pid = t->pid;
		proc = etl_model_process_name(m, t->pid);
		if (proc)
			snprintf(w->process, sizeof(w->process), "%s", proc);
	}
	if (idle->nwakers)
		qsort(idle->wakers, idle->nwakers, sizeof(*idle->wakers), by_wakeups);
}

int etl_idle_make(struct etl_idle *idle, const struct etl_switches *s, const double *idle_s,
		  const struct etl_model *m, const struct etl_filter *flt,
		  int64_t first, int64_t last, double freq)
{
	struct periods p = { 0 };
	struct etl_idle_cpu *c = NULL;
	uint32_t *wakes = NULL;		/* the thread of each wakeup selected */
	size_t nwakes = 0, cap = 0;

	memset(idle, 0, sizeof(*idle));
	idle->cpus = calloc(s->ncpus ? s->ncpus : 1, sizeof(*idle->cpus));
	if (!idle->cpus)
		return -1;
	/* s->v is sorted by CPU, then time */
	for (size_t i = 0; i < s->n; i++) {
		const struct etl_switch *sw = &s->v[i];
		const struct etl_switch *prev = i && sw[-1].cpu == sw->cpu ? sw - 1 : NULL;
		uint32_t tid;

		if (!prev) {
			if (c)
				finish_cpu(c, &p, freq);
			c = &idle->cpus[idle->ncpus++];
			c->cpu = sw->cpu;
			c->idle_s = idle_s[sw->cpu];
		}
		if (!sw->old_tid || ((sw->known & ETL_SWITCH_HAS_NEW) && !sw->new_tid))
			idle->any = true;
		if (sw->old_tid || sw->time < first || sw->time > last)
			continue;
		/* a wakeup: the CPU leaves its idle thread, for tid */
		tid = sw->known & ETL_SWITCH_HAS_NEW ? sw->new_tid : UINT32_MAX;
		c->wakeups++;
		idle->wakeups++;
		if (!(sw->known & ETL_SWITCH_HAS_CSTATE))
			c->cstate_unknown++;
		else
			c->cstate[sw->prev_cstate < ETL_IDLE_CSTATES - 1 ?
				  sw->prev_cstate : ETL_IDLE_CSTATES - 1]++;
		if (prev && prev->time >= first &&
		    add_period(&p, (uint64_t)(sw->time - prev->time)))
			goto nomem;
		if (!selected(m, flt, tid))
			continue;
		if (nwakes == cap) {
			size_t k = cap ? 2 * cap : 256;
			uint32_t *v = realloc(wakes, k * sizeof(*v));

			if (!v)
				goto nomem;
			wakes = v;
			cap = k;
		}
		wakes[nwakes++] = tid;
	}
	if (c)
		finish_cpu(c, &p, freq);
	free(p.v);
	if (count_wakers(idle, wakes, nwakes)) {
		free(wakes);
		etl_idle_free(idle);
		return -1;
	}
	free(wakes);
	name_wakers(idle, m);
	return 0;
nomem:
	free(p.v);
	free(wakes);
	etl_idle_free(idle);
	return -1;
}

/* "C1 120, C0 3": the C-states left, most first; "-" with none known. */
static void print_cstates(FILE *out, const struct etl_idle_cpu *c)
{
	bool done[ETL_IDLE_CSTATES] = { 0 };
	bool any = false;

	for (;;) {
		int best = -1;

		for (int k = 0; k < ETL_IDLE_CSTATES; k++)
			if (!done[k] && c->cstate[k] && (best < 0 || c->cstate[k] > c->cstate[best]))
				best = k;
		if (best < 0)
			break;
		done[best] = true;
		fprintf(out, "%sC%d%s %lu", any ? ", " : "", best,
			best == ETL_IDLE_CSTATES - 1 ? "+" : "", c->cstate[best]);
		any = true;
	}
	if (c->cstate_unknown)
		fprintf(out, "%s%lu unknown (CompCS)", any ? ", " : "", c->cstate_unknown);
	else if (!any)
		fprintf(out, "-");
}

void etl_idle_print(FILE *out, const struct etl_idle *idle, double duration_s, size_t top)
{
	if (!idle->any)
		return;
	fprintf(out, "\nIdle (the CPUs' idle threads, from the context switches):\n");
	fprintf(out, "%6s %10s %9s %8s %11s %11s  %s\n", "cpu", "idle s", "wakeups", "per s",
		"median ms", "max ms", "C-states left (PreviousCState)");
	for (uint32_t i = 0; i < idle->ncpus; i++) {
		const struct etl_idle_cpu *c = &idle->cpus[i];

		fprintf(out, "%6u %10.4f %9lu %8.1f %11.3f %11.3f  ", c->cpu, c->idle_s, c->wakeups,
			duration_s > 0 ? (double)c->wakeups / duration_s : 0.0, c->median_ms,
			c->max_ms);
		print_cstates(out, c);
		fprintf(out, "\n");
	}
	if (top == SIZE_MAX)
		fprintf(out, "\nWhat woke the CPUs (the thread a CPU left idle for, all):\n");
	else
		fprintf(out, "\nWhat woke the CPUs (the thread a CPU left idle for, top %zu):\n",
			top);
	if (!idle->nwakers)
		fprintf(out, "  none%s\n", idle->wakeups ? " of the threads selected" : "");
	else
		fprintf(out, "%8s %8s %9s  %s\n", "tid", "pid", "wakeups", "name (process)");
	for (size_t i = 0; i < idle->nwakers && i < top; i++) {
		const struct etl_idle_waker *w = &idle->wakers[i];

		if (w->tid == UINT32_MAX) {
			fprintf(out, "%8s %8s %9lu  (not known: a CPU's last compact switch)\n", "-",
				"-", w->wakeups);
			continue;
		}
		fprintf(out, "%8u ", w->tid);
		if (w->pid == UINT32_MAX)
			fprintf(out, "%8s", "-");
		else
			fprintf(out, "%8u", w->pid);
		fprintf(out, " %9lu  %s", w->wakeups, w->name[0] ? w->name : "-");
		if (w->process[0])
			fprintf(out, " (%s)", w->process);
		fprintf(out, "\n");
	}
}

void etl_idle_print_json(FILE *out, const struct etl_idle *idle, double duration_s)
{
	fprintf(out, "{\"any\": %s, \"wakeups\": %lu, \"cpus\": [", idle->any ? "true" : "false",
		idle->wakeups);
	for (uint32_t i = 0; i < idle->ncpus; i++) {
		const struct etl_idle_cpu *c = &idle->cpus[i];
		bool first = true;

		fprintf(out, "%s\n  {\"cpu\": %u, \"idle_s\": %.6f, \"wakeups\": %lu, "
			"\"wakeups_per_s\": %.3f, \"periods\": %lu, \"median_ms\": %.6f, "
			"\"max_ms\": %.6f, \"cstates\": {", i ? "," : "", c->cpu, c->idle_s,
			c->wakeups, duration_s > 0 ? (double)c->wakeups / duration_s : 0.0,
			c->periods, c->median_ms, c->max_ms);
		for (int k = 0; k < ETL_IDLE_CSTATES; k++) {
			if (!c->cstate[k])
				continue;
			fprintf(out, "%s\"%d%s\": %lu", first ? "" : ", ", k,
				k == ETL_IDLE_CSTATES - 1 ? "+" : "", c->cstate[k]);
			first = false;
		}
		fprintf(out, "}, \"cstate_unknown\": %lu}", c->cstate_unknown);
	}
	fprintf(out, "], \"wakers\": [");
	for (size_t i = 0; i < idle->nwakers; i++) {
		const struct etl_idle_waker *w = &idle->wakers[i];

		fprintf(out, "%s\n  {\"tid\": ", i ? "," : "");
		if (w->tid == UINT32_MAX)
			fprintf(out, "null");
		else
			fprintf(out, "%u", w->tid);
		fprintf(out, ", \"pid\": ");
		if (w->pid == UINT32_MAX)
			fprintf(out, "null");
		else
			fprintf(out, "%u", w->pid);
		fprintf(out, ", \"wakeups\": %lu, \"name\": ", w->wakeups);
		etl_json_str(out, w->name);
		fprintf(out, ", \"process\": ");
		etl_json_str(out, w->process);
		fprintf(out, "}");
	}
	fprintf(out, "]}");
}

void etl_idle_free(struct etl_idle *idle)
{
	free(idle->cpus);
	free(idle->wakers);
	memset(idle, 0, sizeof(*idle));
}
