// SPDX-License-Identifier: GPL-2.0
/*
 * ETL to the Trace Event Format (Perfetto UI, speedscope). See
 * etl_chrome.h.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "etl_chrome.h"
#include "etl_json.h"
#include "etl/etl_decode.h"
#include "etl/etl_events.h"
#include "etl/etl_model.h"
#include "etl/etl_switches.h"
#include "etl/etl_tlg.h"

/*
 * The CPU tracks' process, and CPU n's track CPU_PID + n: ids no Linux
 * thread has (PID_MAX_LIMIT is 2^22), so a viewer that keys threads by tid
 * never mixes a CPU's track with a thread's.
 */
#define CPU_PID		1000000000u

struct sample {
	int64_t time;
	uint32_t cpu, tid;
	uint64_t ip;
};

/*
 * A program's own event (an EVENT_HEADER record: libntkl's, a Windows
 * provider's): where and when, its opcode, and its name, provider and
 * fields as text.
 */
struct uevent {
	int64_t time;
	uint32_t pid, tid;
	uint8_t opcode;
	uint16_t task;
	uint8_t guid[16];		/* the provider */
	uint8_t activity[16];		/* the header's ActivityId, zeros if none */
	/*
	 * A start's stop (index in uevents), or -1; a stop that a start
	 * took is not written on its own.
	 */
	long stop;
	bool taken;
	char name[96];
	char provider[128];
	char fields[512];
};

struct tidpid {
	uint32_t tid, pid;
};

struct conv {
	const struct etl_file *f;
	struct etl_error *err;
	bool want_samples;
	struct sample *samples;
	size_t nsamples;
	struct uevent *uevents;
	size_t nuevents;
	struct tidpid *upids;		/* the programs' threads, by tid */
	size_t nupids;
	struct etl_model m;		/* processes, threads: their names */
	int64_t freq;			/* clock ticks per second */
	/*
	 * Time 0 of every export of the file, with or without samples: the
	 * Header event's clock value (the trace's start), or the earliest
	 * switch, sample or program event if one is earlier.
	 */
	int64_t origin;
};

/*
 * Times are written in units of 2^-10 us (0.9765625 ns), as exact decimal
 * fractions: a viewer parses each into the same double, and the end of a
 * slice (ts + dur, a sum of two such numbers below 2^43 us) is exact in
 * binary floating point, so a slice that ends where the next begins
 * touches it and never overlaps it by a rounding error.
 */
#define TICKS_PER_US	1024

/* raw clock value -> 2^-10 us since the origin, rounded to the nearest */
static int64_t at(const struct conv *c, int64_t time)
{
	__int128 d = (__int128)time - c->origin;

	if (d < 0)
		d = 0;
	return (int64_t)((d * (1000000 * TICKS_PER_US) * 2 + c->freq) / (2 * c->freq));
}

/* u (2^-10 us) as an exact decimal number of microseconds */
static void put_us(FILE *out, int64_t u)
{
	/* 2^-10 = 0.0009765625: each unit of the fraction is 9765625e-10 */
	int64_t frac = (u % TICKS_PER_US) * 9765625;
	char digits[16];
	int n;

	fprintf(out, "%" PRId64, u / TICKS_PER_US);
	if (!frac)
		return;
	n = snprintf(digits, sizeof(digits), "%010" PRId64, frac);
	while (n > 0 && digits[n - 1] == '0')
		digits[--n] = 0;
	fprintf(out, ".%s", digits);
}

static void *grow(void *v, size_t n, size_t size)
{
	/* double at each power of two: n is the count before adding one */
	if (n && (n & (n - 1)))
		return v;
	return realloc(v, (n ? 2 * n : 64) * size);
}

/* The event's TraceLogging fields as "a=1 b=2", without the name. */
static void uevent_fields(const struct etl_record *rec, char *buf, size_t size)
{
	char *text = NULL, *p;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	buf[0] = 0;
	if (!m)
		return;
	etl_tlg_decode(m, "", rec->ext, rec->ext_len, rec->payload, rec->payload_len);
	fclose(m);
	if (!text)
		return;
	/* "Name: a=1 b=2\n": what follows the first ": " */
	p = strstr(text, ": ");
	snprintf(buf, size, "%s", p ? p + 2 : "");
	len = strcspn(buf, "\n");
	buf[len] = 0;
	free(text);
}

static void uevent_of(const struct etl_buffer *b, const struct etl_record *rec,
		      struct uevent *u)
{
	char guid[48];

	memset(u, 0, sizeof(*u));
	u->time = rec->timestamp;
	u->pid = rec->process_id;
	u->tid = rec->thread_id;
	u->opcode = rec->descriptor.opcode;
	u->task = rec->descriptor.task;
	u->stop = -1;
	memcpy(u->guid, rec->guid, sizeof(u->guid));
	/* the reader checked the record lies in its buffer, its header whole */
	if (rec->header_len >= sizeof(struct event_header))
		memcpy(u->activity, b->data + rec->buffer_offset +
		       offsetof(struct event_header, activity_id), sizeof(u->activity));
	etl_guid_str(rec->guid, guid, sizeof(guid));
	if (!etl_tlg_provider_name(rec->ext, rec->ext_len, u->provider, sizeof(u->provider)))
		snprintf(u->provider, sizeof(u->provider), "%s", guid);
	if (!etl_tlg_event_name(rec->ext, rec->ext_len, u->name, sizeof(u->name)))
		snprintf(u->name, sizeof(u->name), "%s id %u", guid, rec->descriptor.id);
	uevent_fields(rec, u->fields, sizeof(u->fields));
}

/* Program events and (if asked) samples, in the model's pass over the records. */
static int on_record(void *ctx, const struct etl_buffer *b, const struct etl_record *rec)
{
	struct conv *c = ctx;

	if (rec->kind == ETL_KIND_EVENT && rec->has_guid) {
		struct uevent *v = grow(c->uevents, c->nuevents, sizeof(*v));

		if (!v)
			goto nomem;
		c->uevents = v;
		uevent_of(b, rec, &c->uevents[c->nuevents++]);
		return 0;
	}
	if (rec->kind == ETL_KIND_KERNEL && rec->hook_id == ETW_EVENT_SAMPLED_PROFILE_HOOK &&
	    (rec->version & 0xFF) == 2 &&
	    rec->payload_len >= sizeof(struct perfinfo_sampled_profile)) {
		struct sample *v;

		/* exported or not, a sample may start the trace: one origin for both */
		if (rec->timestamp < c->origin)
			c->origin = rec->timestamp;
		if (!c->want_samples)
			return 0;
		v = grow(c->samples, c->nsamples, sizeof(*v));

		if (!v)
			goto nomem;
		c->samples = v;
		c->samples[c->nsamples++] = (struct sample){
			.time = rec->timestamp, .cpu = rec->processor,
			.ip = etl_le64(rec->payload),
			.tid = etl_le32(rec->payload + 8),
		};
	}
	return 0;
nomem:
	return etl_error_set(c->err, "out of memory converting %s", c->f->path);
}

static const struct etl_model_thread *thread_of(const struct conv *c, uint32_t tid)
{
	return etl_model_thread(&c->m, tid);
}

/* As WPA: the one name of etl_model.h. */
static const char *process_name(const struct conv *c, uint32_t pid)
{
	return etl_model_process_name(&c->m, pid);
}

static void metadata(FILE *out, const char *what, uint32_t pid, uint32_t tid, const char *key,
		     const char *name, long num)
{
	fprintf(out, ",\n{\"ph\":\"M\",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32
		",\"name\":\"%s\",\"args\":{\"%s\":", pid, tid, what, key);
	if (name)
		etl_json_str(out, name);
	else
		fprintf(out, "%ld", num);
	fputs("}}", out);
}

/* "ls (173)" from the rundown's thread name, else "tid 173". */
static const char *label(const struct etl_model_thread *t, uint32_t tid, char *buf,
			 size_t size)
{
	if (t && t->name[0])
		snprintf(buf, size, "%s (%" PRIu32 ")", t->name, tid);
	else
		snprintf(buf, size, "tid %" PRIu32, tid);
	return buf;
}

/* The process a thread's track goes under: its own, else one named after the thread. */
static int by_tid_pid(const void *a, const void *b)
{
	const struct tidpid *x = a, *y = b;

	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* The programs' threads and their processes, from their events. */
static int index_program_threads(struct conv *c)
{
	size_t n = 0;

	if (!c->nuevents)
		return 0;
	c->upids = malloc(c->nuevents * sizeof(*c->upids));
	if (!c->upids)
		return etl_error_set(c->err, "out of memory converting %s", c->f->path);
	for (size_t i = 0; i < c->nuevents; i++)
		c->upids[i] = (struct tidpid){ c->uevents[i].tid, c->uevents[i].pid };
	qsort(c->upids, c->nuevents, sizeof(*c->upids), by_tid_pid);
	for (size_t i = 0; i < c->nuevents; i++)
		if (!n || c->upids[i].tid != c->upids[n - 1].tid)
			c->upids[n++] = c->upids[i];
	c->nupids = n;
	return 0;
}

/* win:Start and win:Stop (winmeta.xml's opcodes 1 and 2) */
#define OPCODE_START	1
#define OPCODE_STOP	2

/* a program event's place in its thread's time order */
struct uorder {
	uint32_t tid;
	int64_t time;
	size_t i;			/* in uevents: file order among equal times */
};

static int by_thread_time(const void *a, const void *b)
{
	const struct uorder *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* Can stop u end start s? The same provider, task and activity id. */
static bool ends(const struct uevent *s, const struct uevent *u)
{
	return s->task == u->task && !memcmp(s->guid, u->guid, sizeof(s->guid)) &&
	       !memcmp(s->activity, u->activity, sizeof(s->activity));
}

/*
 * Pair each stop with its start: on the stop's thread, the latest start
 * still open of the same provider, task and activity id (all zeros when
 * the events have none). Starts opened after that one and still open
 * stay unpaired, so that the pairs of a thread nest (a viewer's rule for
 * its slices); so do stops without a start, starts without a stop and
 * pairs across threads: those are written as instants.
 */
static int pair_program_events(struct conv *c)
{
	struct uorder *ord;
	size_t *open, nopen = 0;

	if (!c->nuevents)
		return 0;
	ord = malloc(c->nuevents * sizeof(*ord));
	open = malloc(c->nuevents * sizeof(*open));
	if (!ord || !open) {
		free(ord);
		free(open);
		return etl_error_set(c->err, "out of memory converting %s", c->f->path);
	}
	for (size_t i = 0; i < c->nuevents; i++)
		ord[i] = (struct uorder){ c->uevents[i].tid, c->uevents[i].time, i };
	qsort(ord, c->nuevents, sizeof(*ord), by_thread_time);
	for (size_t k = 0; k < c->nuevents; k++) {
		struct uevent *u = &c->uevents[ord[k].i];

		if (k && ord[k].tid != ord[k - 1].tid)
			nopen = 0;
		if (u->opcode == OPCODE_START) {
			open[nopen++] = ord[k].i;
		} else if (u->opcode == OPCODE_STOP) {
			for (size_t j = nopen; j-- > 0;) {
				if (!ends(&c->uevents[open[j]], u))
					continue;
				c->uevents[open[j]].stop = (long)ord[k].i;
				u->taken = true;
				nopen = j;
				break;
			}
		}
	}
	free(ord);
	free(open);
	return 0;
}

/*
 * The process a thread's track goes under: the rundown's, else that of
 * the thread's own events, else the thread is its own process.
 */
static uint32_t pid_of(const struct conv *c, const struct etl_model_thread *t, uint32_t tid)
{
	struct tidpid key = { .tid = tid }, *u;

	if (t && t->pid != UINT32_MAX)
		return t->pid;
	u = c->nupids ? bsearch(&key, c->upids, c->nupids, sizeof(key), by_tid_pid) : NULL;
	return u ? u->pid : tid;
}

/*
 * One thread's run on a CPU, from..to in raw clock units: a slice on the
 * CPU's track named after the thread, and one on the thread's track
 * named after the CPU.
 */
static void slice(FILE *out, const struct conv *c, uint32_t cpu, uint32_t tid,
		  int64_t from, int64_t to)
{
	const struct etl_model_thread *t = thread_of(c, tid);
	const char *proc = t && t->pid != UINT32_MAX ? process_name(c, t->pid) : NULL;
	int64_t ts = at(c, from), dur = at(c, to) - ts;
	char name[96];

	fprintf(out, ",\n{\"ph\":\"X\",\"cat\":\"thread\",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32
		",\"ts\":", pid_of(c, t, tid), tid);
	put_us(out, ts);
	fputs(",\"dur\":", out);
	put_us(out, dur);
	fprintf(out, ",\"name\":\"CPU %" PRIu32 "\",\"args\":{\"cpu\":%" PRIu32 "}}", cpu, cpu);
	fprintf(out, ",\n{\"ph\":\"X\",\"cat\":\"cpu\",\"pid\":%u,\"tid\":%" PRIu32 ",\"ts\":",
		CPU_PID, CPU_PID + cpu);
	put_us(out, ts);
	fputs(",\"dur\":", out);
	put_us(out, dur);
	fputs(",\"name\":", out);
	etl_json_str(out, label(t, tid, name, sizeof(name)));
	fprintf(out, ",\"args\":{\"tid\":%" PRIu32, tid);
	if (t && t->pid != UINT32_MAX)
		fprintf(out, ",\"pid\":%" PRIu32, t->pid);
	if (proc) {
		fputs(",\"process\":", out);
		etl_json_str(out, proc);
	}
	if (t && t->name[0]) {
		fputs(",\"thread\":", out);
		etl_json_str(out, t->name);
	}
	fputs("}}", out);
}

/*
 * A program's event on its thread's track, args the provider and the
 * decoded fields: a start with its stop (pair_program_events) is one
 * complete event ("X") from the start to the stop, named as the start,
 * with the stop's fields as end_fields; a stop taken by a start is not
 * written again; any other event (other opcodes, unpaired starts and
 * stops) is an instant.
 */
static void program_event(FILE *out, const struct conv *c, const struct uevent *u,
			  struct etl_chrome_stats *st)
{
	uint32_t pid = pid_of(c, thread_of(c, u->tid), u->tid);
	const struct uevent *stop = u->stop >= 0 ? &c->uevents[u->stop] : NULL;
	int64_t ts = at(c, u->time);

	if (u->taken)
		return;
	fprintf(out, ",\n{\"ph\":%s,\"cat\":\"event\",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32
		",\"ts\":", stop ? "\"X\"" : "\"i\",\"s\":\"t\"", pid, u->tid);
	put_us(out, ts);
	if (stop) {
		fputs(",\"dur\":", out);
		put_us(out, at(c, stop->time) - ts);
	}
	fputs(",\"name\":", out);
	etl_json_str(out, u->name);
	fputs(",\"args\":{\"provider\":", out);
	etl_json_str(out, u->provider);
	if (u->fields[0]) {
		fputs(",\"fields\":", out);
		etl_json_str(out, u->fields);
	}
	if (stop) {
		fputs(",\"end\":", out);
		etl_json_str(out, stop->name);
		if (stop->fields[0]) {
			fputs(",\"end_fields\":", out);
			etl_json_str(out, stop->fields);
		}
	}
	fputs("}}", out);
	st->events += stop ? 2 : 1;
	if (stop)
		st->spans++;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Metadata for the tracks of the threads that ran (not the idle thread)
 * or logged events of their own: each process's name (as WPA's), each
 * thread's name from the rundown.
 */
static int thread_names(FILE *out, const struct conv *c, const struct etl_switches *s,
			struct etl_chrome_stats *st)
{
	uint32_t *tids = malloc((s->n + c->nupids + 1) * sizeof(*tids));
	uint32_t *pids = malloc((s->n + c->nupids + 1) * sizeof(*pids));
	size_t ntids = 0, npids = 0;

	if (!tids || !pids) {
		free(tids);
		free(pids);
		return etl_error_set(c->err, "out of memory converting %s", c->f->path);
	}
	for (size_t i = 1; i < s->n; i++)
		if (s->v[i].cpu == s->v[i - 1].cpu && s->v[i].old_tid)
			tids[ntids++] = s->v[i].old_tid;
	for (size_t i = 0; i < c->nupids; i++)
		tids[ntids++] = c->upids[i].tid;
	if (ntids)
		qsort(tids, ntids, sizeof(*tids), cmp_u32);
	for (size_t i = 0; i < ntids; i++) {
		const struct etl_model_thread *t;
		char name[96];

		if (i && tids[i] == tids[i - 1])
			continue;
		t = thread_of(c, tids[i]);
		pids[npids++] = pid_of(c, t, tids[i]);
		metadata(out, "thread_name", pid_of(c, t, tids[i]), tids[i], "name",
			 t && t->name[0] ? t->name : label(t, tids[i], name, sizeof(name)), 0);
		st->threads++;
	}
	if (npids)
		qsort(pids, npids, sizeof(*pids), cmp_u32);
	for (size_t i = 0; i < npids; i++) {
		const char *proc = process_name(c, pids[i]);
		char name[32];

		if (i && pids[i] == pids[i - 1])
			continue;
		snprintf(name, sizeof(name), "pid %" PRIu32, pids[i]);
		metadata(out, "process_name", pids[i], pids[i], "name", proc ? proc : name, 0);
		st->processes++;
	}
	free(tids);
	free(pids);
	return 0;
}

int etl_chrome_write(FILE *out, const struct etl_file *f, unsigned int flags,
		     struct etl_chrome_stats *stats, struct etl_error *err)
{
	struct conv c = { .f = f, .err = err };
	struct etl_walker also = { .record = on_record, .ctx = &c };
	struct etl_chrome_stats st = { 0 };
	struct etl_switches s = { 0 };
	uint32_t ncpus;
	int ret = -1;

	c.freq = f->header.perf_freq > 0 ? f->header.perf_freq : 10000000;
	c.origin = f->header_system_time > 0 ? f->header_system_time : INT64_MAX;
	c.want_samples = flags & ETL_CHROME_SAMPLES;
	if (etl_switches_read(f, &s, err) || etl_model_read(f, &c.m, &also, err) ||
	    index_program_threads(&c) || pair_program_events(&c))
		goto out;
	ncpus = s.ncpus;
	for (size_t i = 0; i < s.n; i++)
		if (s.v[i].time < c.origin)
			c.origin = s.v[i].time;
	for (size_t i = 0; i < c.nuevents; i++)
		if (c.uevents[i].time < c.origin)
			c.origin = c.uevents[i].time;
	for (size_t i = 0; i < c.nsamples; i++)
		if (c.samples[i].cpu >= ncpus)
			ncpus = c.samples[i].cpu + 1;
	if (c.origin == INT64_MAX)
		c.origin = 0;

	fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"source\":\"ntkl convert\",\"file\":", out);
	etl_json_str(out, f->path);
	fputs(",\"logger\":", out);
	etl_json_str(out, f->logger_name);
	/* time 0: this raw clock value (ticks of clock_freq per second) */
	fprintf(out, ",\"origin_clock\":%" PRId64 ",\"clock_freq\":%" PRId64, c.origin, c.freq);
	fprintf(out, "},\"traceEvents\":[\n{\"ph\":\"M\",\"pid\":%u,\"tid\":%u,"
		"\"name\":\"process_name\",\"args\":{\"name\":\"CPUs\"}}", CPU_PID, CPU_PID);
	metadata(out, "process_sort_index", CPU_PID, CPU_PID, "sort_index", NULL, -1);
	for (uint32_t cpu = 0; cpu < ncpus; cpu++) {
		char name[32];

		snprintf(name, sizeof(name), "CPU %" PRIu32, cpu);
		metadata(out, "thread_name", CPU_PID, CPU_PID + cpu, "name", name, 0);
		metadata(out, "thread_sort_index", CPU_PID, CPU_PID + cpu, "sort_index", NULL, cpu);
	}
	if (thread_names(out, &c, &s, &st))
		goto out;
	/* s.v is sorted by CPU, then time: the old thread ran since the previous switch */
	for (size_t i = 1; i < s.n; i++) {
		const struct etl_switch *sw = &s.v[i], *prev = sw - 1;

		if (prev->cpu != sw->cpu || !sw->old_tid)
			continue;
		slice(out, &c, sw->cpu, sw->old_tid, prev->time, sw->time);
		st.slices++;
	}
	for (size_t i = 0; i < c.nsamples; i++) {
		const struct sample *sm = &c.samples[i];
		char name[96];

		fprintf(out, ",\n{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"sample\",\"pid\":%u,\"tid\":%" PRIu32
			",\"ts\":", CPU_PID, CPU_PID + sm->cpu);
		put_us(out, at(&c, sm->time));
		fputs(",\"name\":", out);
		etl_json_str(out, label(thread_of(&c, sm->tid), sm->tid, name, sizeof(name)));
		fprintf(out, ",\"args\":{\"tid\":%" PRIu32 ",\"ip\":\"0x%" PRIx64 "\"}}",
			sm->tid, sm->ip);
		st.samples++;
	}
	for (size_t i = 0; i < c.nuevents; i++)
		program_event(out, &c, &c.uevents[i], &st);
	fputs("\n]}\n", out);
	st.cpus = ncpus;
	if (fflush(out) || ferror(out)) {
		etl_error_set(err, "cannot write the JSON (disk full?)");
		goto out;
	}
	if (stats)
		*stats = st;
	ret = 0;
out:
	etl_switches_free(&s);
	etl_model_free(&c.m);
	free(c.samples);
	free(c.uevents);
	free(c.upids);
	return ret;
}
