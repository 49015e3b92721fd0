// SPDX-License-Identifier: GPL-2.0
/*
 * Folded stacks for flame graphs. See etl_folded.h.
 *
 * One pass (with the model) gathers the chosen events, the stack records
 * and the stack key definitions, each stack matched to its event as it
 * comes (its CPU's recent events); after the pass references are
 * resolved, every frame becomes the id of its name (one load of each
 * image's functions), the events are sorted by their id sequences so
 * equal stacks are neighbours, and each distinct one is written once
 * with its count, the lines in byte order.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "etl/etl_model.h"
#include "etl_folded.h"

#define NONE		UINT32_MAX
#define RECENT		16	/* events remembered per CPU for their stacks */

/* an event whose stack is wanted */
struct event {
	uint32_t tid;
	uint32_t pid;			/* the stack's StackProcess; NONE: the model's */
	int64_t time;
	uint64_t ip;			/* a sample's IP, 0 for a switch */
	/* a StackWalk's frames in frames[], or the two references' keys */
	size_t whole, nwhole;
	bool has_whole, has_kernel, has_user;
	uint64_t kernel_key, user_key;
	int64_t kernel_ref_time, user_ref_time;
	/* after the pass: its names' ids, innermost first, in ids[] */
	size_t first_id, nids;
	uint32_t process_id;		/* the name id of its process (or -PID/TID) */
};

/* A stack record, or one part of a cached stack, with the event it names. */
struct part {
	enum { PART_WHOLE, PART_KERNEL, PART_USER } kind;
	uint32_t tid, pid;
	uint64_t event_time;
	uint64_t key;			/* a reference's */
	int64_t ref_time;
	size_t first, n;		/* a StackWalk's frames in frames[] */
};

/* a CPU's last events of any kind, newest at next - 1 */
struct recent {
	struct {
		int64_t time;
		uint32_t tid;		/* whose stack follows it; NONE: unknown */
		uint32_t event;		/* index in events, NONE if not wanted */
	} v[RECENT];
	unsigned int next;
};

/* A name's string, interned: equal names, one id. */
struct names {
	char **v;
	size_t n, cap;
	uint32_t *slots;		/* open addressing: id + 1, 0 empty */
	size_t nslots;
};

/* an image's functions, loaded once per file and identity */
struct loaded {
	char *path;
	uint8_t guid[16];
	bool has_rsds, has_none;
	struct sym_table t;		/* funcs by address; none if it could not be read */
	uint32_t *ids;			/* each function's name id, then image!?'s; NONE: not yet */
};

struct folded {
	enum etl_folded_event want;
	unsigned int flags;
	struct etl_error *err;
	struct event *ev;
	size_t nev, ev_cap;
	uint64_t *frames;		/* every StackWalk's frames */
	size_t nframes, frames_cap;
	struct recent *cpus;
	size_t ncpus;
	struct part *later;		/* parts whose event was not recent on their CPU */
	size_t nlater, later_cap;
	struct etl_stack_keys keys;
	const struct etl_model *m;
	struct sym_loader *ld;
	FILE *notes;
	struct loaded *loaded;		/* by path and identity */
	size_t nloaded, loaded_cap;
	size_t *image_loaded;		/* per model image: index in loaded, or SIZE_MAX */
	struct names names;
	uint32_t *ids;			/* every event's name ids */
	size_t nids, ids_cap;
	struct etl_folded_stats st;
};

static int oom(struct folded *fo)
{
	return etl_error_set(fo->err, "out of memory folding the stacks");
}

/*
 * v with room for one more than n elements of size (capacity *cap, grown
 * by doubling): v itself, or its new place; NULL out of memory (v kept).
 */
static void *grow(void *v, size_t *cap, size_t n, size_t size)
{
	size_t c;

	if (n < *cap)
		return v;
	c = *cap ? 2 * *cap : 1024;
	v = realloc(v, c * size);
	if (v)
		*cap = c;
	return v;
}

static uint64_t hash_str(const char *s)
{
	uint64_t h = 14695981039346656037ull;	/* FNV-1a */

	while (*s)
		h = (h ^ (uint8_t)*s++) * 1099511628211ull;
	return h;
}

/* The id of name (copied; a ';' made ':'), NONE out of memory. */
static uint32_t intern(struct names *nm, const char *name)
{
	char *copy, **v;
	size_t i;

	if (2 * (nm->n + 1) > nm->nslots) {
		size_t ns = nm->nslots ? 2 * nm->nslots : 4096;
		uint32_t *slots = calloc(ns, sizeof(*slots));

		if (!slots)
			return NONE;
		for (size_t k = 0; k < nm->n; k++) {
			for (i = hash_str(nm->v[k]) & (ns - 1); slots[i]; i = (i + 1) & (ns - 1))
				;
			slots[i] = (uint32_t)k + 1;
		}
		free(nm->slots);
		nm->slots = slots;
		nm->nslots = ns;
	}
	copy = strdup(name);
	if (!copy)
		return NONE;
	for (char *c = copy; *c; c++)
		if (*c == ';' || *c == '\n')
			*c = ':';
	for (i = hash_str(copy) & (nm->nslots - 1); nm->slots[i]; i = (i + 1) & (nm->nslots - 1))
		if (!strcmp(nm->v[nm->slots[i] - 1], copy)) {
			free(copy);
			return nm->slots[i] - 1;
		}
	v = grow(nm->v, &nm->cap, nm->n, sizeof(*nm->v));
	if (!v) {
		free(copy);
		return NONE;
	}
	nm->v = v;
	nm->v[nm->n] = copy;
	nm->slots[i] = (uint32_t)nm->n + 1;
	return (uint32_t)nm->n++;
}

static void names_free(struct names *nm)
{
	for (size_t i = 0; i < nm->n; i++)
		free(nm->v[i]);
	free(nm->v);
	free(nm->slots);
	memset(nm, 0, sizeof(*nm));
}

static struct recent *cpu_of(struct folded *fo, uint16_t cpu)
{
	if (cpu >= fo->ncpus) {
		size_t n = (size_t)cpu + 1;
		struct recent *v = realloc(fo->cpus, n * sizeof(*v));

		if (!v)
			return NULL;
		memset(v + fo->ncpus, 0, (n - fo->ncpus) * sizeof(*v));
		fo->cpus = v;
		fo->ncpus = n;
	}
	return &fo->cpus[cpu];
}

/*
 * Remember r, an event that may have a stack after it: tid the thread
 * that stack would be of (NONE: any), event its index if it is wanted.
 */
static int remember(struct folded *fo, const struct etl_record *r, uint32_t tid, uint32_t event)
{
	struct recent *rc = cpu_of(fo, r->processor);

	if (!rc)
		return oom(fo);
	rc->v[rc->next % RECENT].time = r->timestamp;
	rc->v[rc->next % RECENT].tid = tid;
	rc->v[rc->next % RECENT].event = event;
	rc->next++;
	return 0;
}

#define NOT_SEEN	(UINT32_MAX - 1)

/*
 * The event a stack of (tid, time) on cpu belongs to: the latest of the
 * CPU's recent events with that time and thread: its index, NONE if it
 * is not a wanted one, NOT_SEEN if none is that recent.
 */
static uint32_t owner(const struct folded *fo, uint16_t cpu, uint32_t tid, uint64_t time)
{
	const struct recent *rc = cpu < fo->ncpus ? &fo->cpus[cpu] : NULL;

	for (unsigned int k = 1; rc && k <= RECENT && k <= rc->next; k++) {
		unsigned int i = (rc->next - k) % RECENT;

		if ((uint64_t)rc->v[i].time == time && (rc->v[i].tid == NONE || rc->v[i].tid == tid))
			return rc->v[i].event;
	}
	return NOT_SEEN;
}

/* Give e the part, unless it has one of that kind: false if it has. */
static bool attach(struct event *e, const struct part *p)
{
	switch (p->kind) {
	case PART_WHOLE:
		if (e->has_whole)
			return false;
		e->has_whole = true;
		e->whole = p->first;
		e->nwhole = p->n;
		break;
	case PART_KERNEL:
		if (e->has_kernel)
			return false;
		e->has_kernel = true;
		e->kernel_key = p->key;
		e->kernel_ref_time = p->ref_time;
		break;
	case PART_USER:
		if (e->has_user)
			return false;
		e->has_user = true;
		e->user_key = p->key;
		e->user_ref_time = p->ref_time;
		break;
	}
	e->pid = p->pid;
	return true;
}

/*
 * The part to its event if the CPU's recent events hold it; else kept
 * for the end: Windows walks a thread's user stack when the thread
 * returns to user mode, so its StackKeyUser comes long after its event,
 * on whatever CPU the thread then runs.
 */
static int add_part(struct folded *fo, uint16_t cpu, const struct part *p)
{
	uint32_t e = owner(fo, cpu, p->tid, p->event_time);
	struct part *v;

	if (e != NOT_SEEN) {
		if (e != NONE)
			attach(&fo->ev[e], p);
		return 0;
	}
	v = grow(fo->later, &fo->later_cap, fo->nlater, sizeof(*fo->later));
	if (!v)
		return oom(fo);
	fo->later = v;
	fo->later[fo->nlater++] = *p;
	return 0;
}

static int add_event(struct folded *fo, const struct etl_record *r, uint32_t tid, uint64_t ip)
{
	struct event *v = grow(fo->ev, &fo->ev_cap, fo->nev, sizeof(*fo->ev));

	if (!v)
		return oom(fo);
	fo->ev = v;
	fo->ev[fo->nev] = (struct event){ .tid = tid, .pid = NONE, .time = r->timestamp,
					  .ip = ip };
	fo->st.events++;
	return remember(fo, r, tid, (uint32_t)fo->nev++);
}

static int add_stack_walk(struct folded *fo, const struct etl_record *r)
{
	const uint8_t *p = r->payload;
	struct part part = { .kind = PART_WHOLE };

	if (r->payload_len < sizeof(struct etw_stack_walk))
		return 0;
	part.tid = etl_le32(p + offsetof(struct etw_stack_walk, stack_thread));
	part.pid = etl_le32(p + offsetof(struct etw_stack_walk, stack_process));
	part.event_time = etl_le64(p + offsetof(struct etw_stack_walk, event_time_stamp));
	part.n = (r->payload_len - sizeof(struct etw_stack_walk)) / 8;
	part.first = fo->nframes;
	for (size_t i = 0; i < part.n; i++) {
		uint64_t *v = grow(fo->frames, &fo->frames_cap, fo->nframes, sizeof(*fo->frames));

		if (!v)
			return oom(fo);
		fo->frames = v;
		fo->frames[fo->nframes++] = etl_le64(p + sizeof(struct etw_stack_walk) + 8 * i);
	}
	return add_part(fo, r->processor, &part);
}

static int add_ref(struct folded *fo, const struct etl_record *r, const struct etl_stack_ref *ref)
{
	struct part part = {
		.kind = ref->user ? PART_USER : PART_KERNEL, .tid = ref->tid, .pid = ref->pid,
		.event_time = ref->event_time, .key = ref->key, .ref_time = ref->time,
	};

	return add_part(fo, r->processor, &part);
}

static const struct event *sort_events;

static int event_by_thread_time(const void *a, const void *b)
{
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	const struct event *x = &sort_events[i], *y = &sort_events[j];

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return i < j ? -1 : i > j;
}

/*
 * The parts no recent event took: to the first wanted event of their
 * thread and time (in file order) that has no part of that kind yet.
 */
static int attach_later(struct folded *fo)
{
	uint32_t *order;

	if (!fo->nlater || !fo->nev)
		return 0;
	order = malloc(fo->nev * sizeof(*order));
	if (!order)
		return oom(fo);
	for (size_t i = 0; i < fo->nev; i++)
		order[i] = (uint32_t)i;
	sort_events = fo->ev;
	qsort(order, fo->nev, sizeof(*order), event_by_thread_time);
	for (size_t k = 0; k < fo->nlater; k++) {
		const struct part *p = &fo->later[k];
		size_t lo = 0, hi = fo->nev;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			const struct event *e = &fo->ev[order[mid]];

			if (e->tid < p->tid || (e->tid == p->tid && (uint64_t)e->time < p->event_time))
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < fo->nev; lo++) {
			struct event *e = &fo->ev[order[lo]];

			if (e->tid != p->tid || (uint64_t)e->time != p->event_time || attach(e, p))
				break;
		}
	}
	free(order);
	return 0;
}

static int on_record(void *ctx, const struct etl_buffer *b, const struct etl_record *r)
{
	struct folded *fo = ctx;
	struct etl_stack_ref ref;
	int taken;

	(void)b;
	if (r->kind != ETL_KIND_KERNEL)
		return 0;
	if (etl_stack_ref_parse(r, &ref))
		return add_ref(fo, r, &ref);
	taken = etl_stack_keys_add(&fo->keys, r);
	if (taken)
		return taken < 0 ? oom(fo) : 0;
	switch (r->hook_id) {
	case ETW_EVENT_STACK_WALK_HOOK:
		return add_stack_walk(fo, r);
	case ETW_EVENT_SAMPLED_PROFILE_HOOK:
		if (r->payload_len < offsetof(struct perfinfo_sampled_profile, thread_id) + 4)
			break;
		if (fo->want != ETL_FOLDED_PROFILE)
			return remember(fo, r, etl_le32(r->payload + offsetof(struct perfinfo_sampled_profile,
									  thread_id)), NONE);
		return add_event(fo, r, etl_le32(r->payload + offsetof(struct perfinfo_sampled_profile,
									thread_id)),
				 etl_le64(r->payload + offsetof(struct perfinfo_sampled_profile,
								instruction_pointer)));
	case ETW_EVENT_CSWITCH_HOOK:
		if (r->payload_len < sizeof(struct wmi_contextswap))
			break;
		if (fo->want != ETL_FOLDED_CSWITCH)
			return remember(fo, r, etl_le32(r->payload), NONE);
		return add_event(fo, r, etl_le32(r->payload), 0);
	}
	/* any other event may have a stack of its own, of a thread it does not name */
	return remember(fo, r, NONE, NONE);
}

/* Say once per file why its frames have no names (as dump --stats does). */
static void note(struct folded *fo, const char *path, const char *why)
{
	if (fo->notes)
		fprintf(fo->notes, "not named here: %s: %s\n", path, why);
}

/* img's functions, loaded (or failed) once per path and identity. */
static struct loaded *load(struct folded *fo, const struct etl_image *img)
{
	struct sym_trace_image ti = {
		.base = img->base, .size = img->size, .pid = img->pid, .path = img->path,
		.has_rsds = img->has_rsds, .has_none = img->has_none, .age = img->age,
		.first_time = img->first_time,
	};
	char why[4400] = "";
	uint8_t guid[16];
	struct loaded *l, *v;

	for (size_t i = 0; i < fo->nloaded; i++) {
		l = &fo->loaded[i];
		if (!strcmp(l->path, img->path) && l->has_rsds == img->has_rsds &&
		    l->has_none == img->has_none && !memcmp(l->guid, img->guid, 16))
			return l;
	}
	v = grow(fo->loaded, &fo->loaded_cap, fo->nloaded, sizeof(*fo->loaded));
	if (!v)
		return NULL;
	fo->loaded = v;
	l = &fo->loaded[fo->nloaded];
	memset(l, 0, sizeof(*l));
	l->path = strdup(img->path);
	if (!l->path)
		return NULL;
	fo->nloaded++;
	memcpy(l->guid, img->guid, 16);
	memcpy(ti.guid, img->guid, 16);
	memcpy(ti.pdb_name, img->pdb_name, sizeof(ti.pdb_name));
	l->has_rsds = img->has_rsds;
	l->has_none = img->has_none;
	sym_table_init(&l->t);
	/* a Windows trace's images: their names are in Microsoft's PDBs */
	if (sym_is_windows_path(img->path))
		return l;
	if (sym_load_checked(fo->ld, &ti, &l->t, guid, why, sizeof(why))) {
		sym_table_free(&l->t);
		sym_table_init(&l->t);
		note(fo, img->path, why);
		return l;
	}
	if (!l->t.nfuncs)
		note(fo, img->path, "no function names (stripped, no debug file found by build-id)");
	sym_table_sort(&l->t);
	return l;
}

/* The name of addr, in image img (NULL: none) of the model, as an id. */
static uint32_t name_id(struct folded *fo, const struct etl_image *img, uint64_t addr)
{
	const struct sym_func *f;
	const char *image;
	struct loaded *l;
	size_t k, fn;
	char *name;

	if (!img)
		return intern(&fo->names, "?");
	k = (size_t)(img - fo->m->images.v);
	if (fo->image_loaded[k] == SIZE_MAX) {
		l = load(fo, img);
		if (!l)
			return NONE;
		fo->image_loaded[k] = (size_t)(l - fo->loaded);
	}
	l = &fo->loaded[fo->image_loaded[k]];
	if (!l->ids) {
		l->ids = malloc((l->t.nfuncs + 1) * sizeof(*l->ids));
		if (!l->ids)
			return NONE;
		for (size_t i = 0; i <= l->t.nfuncs; i++)
			l->ids[i] = NONE;
	}
	/* ntkl symbols' rule (dump --stats' too) */
	f = sym_table_find(&l->t, img->base, addr);
	fn = f ? (size_t)(f - l->t.funcs) : l->t.nfuncs;
	if (l->ids[fn] != NONE)
		return l->ids[fn];
	/* a Windows path's last component is after a backslash */
	image = sym_is_windows_path(img->path) ? img->name : sym_base_name(img->path);
	if (asprintf(&name, "%s!%s", image, fn < l->t.nfuncs ? l->t.funcs[fn].name : "?") < 0)
		return NONE;
	l->ids[fn] = intern(&fo->names, name);
	free(name);
	return l->ids[fn];
}

static int push_id(struct folded *fo, uint32_t id)
{
	uint32_t *v;

	if (id == NONE)
		return -1;
	v = grow(fo->ids, &fo->ids_cap, fo->nids, sizeof(*fo->ids));
	if (!v)
		return -1;
	fo->ids = v;
	fo->ids[fo->nids++] = id;
	return 0;
}

/* The name of e's process (or process-PID/TID), as an id. */
static uint32_t process_id(struct folded *fo, const struct event *e, uint32_t pid)
{
	const struct etl_model_thread *t = etl_model_thread(fo->m, e->tid);
	const char *name = etl_model_process_name(fo->m, pid);
	char *s;
	uint32_t id;

	if (!name)
		name = t && t->name[0] ? t->name : "?";
	if (!(fo->flags & ETL_FOLDED_TID))
		return intern(&fo->names, name);
	if (asprintf(&s, "%s-%" PRIu32 "/%" PRIu32, name, pid, e->tid) < 0)
		return NONE;
	id = intern(&fo->names, s);
	free(s);
	return id;
}

/* The frames of a stack key reference into *f: their count, 0 if no definition has it. */
static size_t key_frames(struct folded *fo, uint64_t key, int64_t time, const uint64_t **f)
{
	uint32_t n = 0;

	*f = etl_stack_keys_find(&fo->keys, key, time, &n);
	if (!*f) {
		fo->st.unresolved++;
		return 0;
	}
	return n;
}

/*
 * e's frames as name ids (innermost first) into ids[], and its process's;
 * *has_stack false if it had none (a sample then gets its IP). 0, or -1.
 */
static int name_event(struct folded *fo, struct event *e, bool *has_stack)
{
	const uint64_t *part[3] = { NULL, NULL, NULL };
	size_t count[3] = { 0, 0, 0 };
	uint32_t pid = e->pid;

	if (e->has_whole) {
		part[0] = fo->frames + e->whole;
		count[0] = e->nwhole;
	} else {
		if (e->has_kernel)
			count[0] = key_frames(fo, e->kernel_key, e->kernel_ref_time, &part[0]);
		if (e->has_user)
			count[1] = key_frames(fo, e->user_key, e->user_ref_time, &part[1]);
	}
	*has_stack = count[0] + count[1] > 0;
	if (!*has_stack && e->ip) {
		part[2] = &e->ip;	/* a sample without a stack: its IP */
		count[2] = 1;
	}
	if (pid == NONE)
		pid = etl_model_pid(fo->m, e->tid);
	e->first_id = fo->nids;
	for (int p = 0; p < 3; p++)
		for (size_t i = 0; i < count[p]; i++) {
			uint64_t a = part[p][i];
			const struct etl_image *img = etl_images_find(&fo->m->images, pid, a, e->time);

			if (push_id(fo, name_id(fo, img, a)))
				return oom(fo);
		}
	e->nids = fo->nids - e->first_id;
	e->process_id = process_id(fo, e, pid);
	return e->process_id == NONE ? oom(fo) : 0;
}

static const struct folded *sort_fo;

/* Events with the same process and frames next to each other. */
static int by_stack(const void *a, const void *b)
{
	const struct event *x = a, *y = b;
	const uint32_t *ids = sort_fo->ids;

	if (x->process_id != y->process_id)
		return x->process_id < y->process_id ? -1 : 1;
	if (x->nids != y->nids)
		return x->nids < y->nids ? -1 : 1;
	return memcmp(ids + x->first_id, ids + y->first_id, x->nids * sizeof(*ids));
}

static int by_string(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "process;outermost;...;innermost count" */
static char *format_line(const struct folded *fo, const struct event *e, unsigned long count)
{
	char *line = NULL;
	size_t size = 0;
	FILE *s = open_memstream(&line, &size);

	if (!s)
		return NULL;
	fputs(fo->names.v[e->process_id], s);
	for (size_t i = e->nids; i-- > 0;) {
		fputc(';', s);
		fputs(fo->names.v[fo->ids[e->first_id + i]], s);
	}
	fprintf(s, " %lu", count);
	if (fclose(s)) {
		free(line);
		return NULL;
	}
	return line;
}

/* Fold the named events and write one line per distinct stack, sorted. */
static int write_lines(struct folded *fo, FILE *out, struct event *v, size_t n)
{
	char **lines = calloc(n + 1, sizeof(*lines));
	size_t nlines = 0;
	int ret = -1;

	if (!lines)
		return oom(fo);
	sort_fo = fo;
	if (n)
		qsort(v, n, sizeof(*v), by_stack);
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && !by_stack(&v[i], &v[j]); j++)
			;
		lines[nlines] = format_line(fo, &v[i], j - i);
		if (!lines[nlines++]) {
			oom(fo);
			goto out;
		}
	}
	if (nlines)
		qsort(lines, nlines, sizeof(*lines), by_string);
	for (size_t i = 0; i < nlines; i++)
		if (fprintf(out, "%s\n", lines[i]) < 0) {
			etl_error_set(fo->err, "cannot write the folded stacks");
			goto out;
		}
	fo->st.lines = nlines;
	ret = 0;
out:
	for (size_t i = 0; i < nlines; i++)
		free(lines[i]);
	free(lines);
	return ret;
}

int etl_folded_write(FILE *out, const struct etl_file *f, enum etl_folded_event event,
		     unsigned int flags, struct sym_loader *ld, FILE *notes,
		     struct etl_folded_stats *stats, struct etl_error *err)
{
	struct folded fo = { .want = event, .flags = flags, .err = err, .ld = ld,
			     .notes = notes };
	struct etl_walker also = { .record = on_record, .ctx = &fo };
	struct etl_model m;
	size_t kept = 0;
	int ret = -1;

	if (etl_model_read(f, &m, &also, err))
		goto out;
	if (attach_later(&fo))
		goto out;
	fo.m = &m;
	fo.image_loaded = malloc((m.images.n + 1) * sizeof(*fo.image_loaded));
	if (!fo.image_loaded) {
		oom(&fo);
		goto out;
	}
	for (size_t i = 0; i < m.images.n; i++)
		fo.image_loaded[i] = SIZE_MAX;
	for (size_t i = 0; i < fo.nev; i++) {
		bool has_stack;

		if (name_event(&fo, &fo.ev[i], &has_stack))
			goto out;
		fo.st.stacks += has_stack;
		/* a switch without a stack has no frame to show */
		if (fo.ev[i].nids)
			fo.ev[kept++] = fo.ev[i];
	}
	ret = write_lines(&fo, out, fo.ev, kept);
out:
	if (stats)
		*stats = fo.st;
	etl_model_free(&m);
	for (size_t i = 0; i < fo.nloaded; i++) {
		free(fo.loaded[i].path);
		free(fo.loaded[i].ids);
		sym_table_free(&fo.loaded[i].t);
	}
	free(fo.loaded);
	free(fo.image_loaded);
	names_free(&fo.names);
	etl_stack_keys_free(&fo.keys);
	free(fo.ev);
	free(fo.frames);
	free(fo.cpus);
	free(fo.later);
	free(fo.ids);
	return ret;
}
