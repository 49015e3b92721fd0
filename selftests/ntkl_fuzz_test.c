// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl_fuzz_test: hostile input to the control ABI (issue 12, item 3).
 *
 * Every ioctl of uapi/ntkl.h gets edge-case and random struct sizes (0, 1,
 * the first published size - 1, exact, larger with a zero and a non-zero
 * tail, huge), ioctl numbers encoding other sizes and directions, pointers
 * to NULL, to a page that is not mapped, to structs that straddle the
 * end of a mapped page and wild ones (wild_ptr()), names without a terminator, out-of-range
 * settings and random bytes; then several threads control a few loggers
 * at once while readers sit blocked in read() and poll() and have their
 * descriptors closed under them, and pairs of threads race BIND.
 *
 * The truth is the ABI's promise: each call returns 0 or an errno from
 * its command's list (uapi/ntkl.h), the kernel log stays clean (vm-run
 * fails the run on any WARNING, BUG, KASAN, lockdep or kmemleak report;
 * this test also reads /dev/kmsg itself to say which case it was), and a
 * CSWITCH logger works afterwards.
 *
 * Environment: NTKL_FUZZ_SECONDS (default 45, the whole run) and
 * NTKL_FUZZ_SEED (default: from the clock; printed, to replay a run).
 */
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <sys/mman.h>
#include <time.h>

#include "kselftest_harness.h"
#include "ntkl_reader.h"

#define FUZZ_PREFIX	"fz"	/* every logger this test starts */
#define NAMES		6	/* the concurrent phase's loggers: few, so they collide */
#define CTL_THREADS	4
#define READERS		2
#define BIG_KB		(16 * 1024)	/* keep a START's buffers under 16 MB */

/* --- the run's time, seed and random numbers ---------------------------- */

static unsigned int fuzz_seconds(void)
{
	const char *s = getenv("NTKL_FUZZ_SECONDS");
	unsigned int v = s ? strtoul(s, NULL, 10) : 0;

	return v ? v : 45;
}

static uint64_t fuzz_seed(void)
{
	const char *s = getenv("NTKL_FUZZ_SEED");
	struct timespec ts;

	if (s && *s)
		return strtoull(s, NULL, 0);
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000003u ^ ts.tv_nsec;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* xorshift64*: one state per thread, so a seed replays the single-threaded phase. */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
}

static uint32_t rnd_below(uint64_t *s, uint32_t n)
{
	return n ? rnd(s) % n : 0;
}

/* A value at or next to a bound, or anything. */
static uint32_t edge_u32(uint64_t *s, const uint32_t *edges, int n)
{
	uint32_t pick = rnd_below(s, n + 3);

	if (pick < (uint32_t)n)
		return edges[pick];
	if (pick == (uint32_t)n)
		return 0xffffffffu;
	if (pick == (uint32_t)n + 1)
		return 1u << rnd_below(s, 32);
	return (uint32_t)rnd(s);
}

/* The case in progress, for the one line a crash of this program prints. */
static __thread char last_case[200];

/* --- the commands and what each may answer ------------------------------ */

/* errno sets: bit e for errno e (EOPNOTSUPP is 95: 128 bits) */
typedef unsigned __int128 errset;
#define E(x)	((errset)1 << (x))
/* Every command: bad sizes, faults, an ioctl number with too small a size. */
#define E_ANY	(E(0) | E(EINVAL) | E(E2BIG) | E(EFAULT) | E(ENOTTY))
/* A logger by name or id; START and UPDATE also allocate and enable. */
#define E_SEL	(E_ANY | E(ENOENT))
#define E_GROW	(E(ENOMEM) | E(EOPNOTSUPP))

enum kind { K_PROPS, K_LIST, K_BIND, K_SPIN, K_PROF, K_VERSION, K_STACK };

static const struct cmd {
	const char *name;
	unsigned long cmd;
	uint32_t ver0, size;
	enum kind kind;
	errset allowed;
} cmds[] = {
	{ "START", NTKL_IOC_START, NTKL_PROPERTIES_SIZE_VER0, sizeof(struct ntkl_properties),
	  K_PROPS, E_ANY | E(EEXIST) | E(ENOSPC) | E_GROW },
	{ "STOP", NTKL_IOC_STOP, NTKL_PROPERTIES_SIZE_VER0, sizeof(struct ntkl_properties),
	  K_PROPS, E_SEL },
	{ "QUERY", NTKL_IOC_QUERY, NTKL_PROPERTIES_SIZE_VER0, sizeof(struct ntkl_properties),
	  K_PROPS, E_SEL },
	{ "UPDATE", NTKL_IOC_UPDATE, NTKL_PROPERTIES_SIZE_VER0, sizeof(struct ntkl_properties),
	  K_PROPS, E_SEL | E_GROW },
	{ "FLUSH", NTKL_IOC_FLUSH, NTKL_PROPERTIES_SIZE_VER0, sizeof(struct ntkl_properties),
	  K_PROPS, E_SEL },
	{ "LIST", NTKL_IOC_LIST, NTKL_LIST_SIZE_VER0, sizeof(struct ntkl_list), K_LIST,
	  E_ANY | E(ENOMEM) },
	{ "BIND", NTKL_IOC_BIND, NTKL_BIND_SIZE_VER0, sizeof(struct ntkl_bind), K_BIND,
	  E_SEL | E(EBUSY) },
	{ "SET_SPINLOCK_CONFIG", NTKL_IOC_SET_SPINLOCK_CONFIG, NTKL_SPINLOCK_CONFIG_SIZE_VER0,
	  sizeof(struct ntkl_spinlock_config), K_SPIN, E_ANY },
	{ "GET_SPINLOCK_CONFIG", NTKL_IOC_GET_SPINLOCK_CONFIG, NTKL_SPINLOCK_CONFIG_SIZE_VER0,
	  sizeof(struct ntkl_spinlock_config), K_SPIN, E_ANY },
	{ "GET_VERSION", NTKL_IOC_GET_VERSION, NTKL_VERSION_SIZE_VER0,
	  sizeof(struct ntkl_version), K_VERSION, E_ANY },
	{ "SET_PROFILE_INTERVAL", NTKL_IOC_SET_PROFILE_INTERVAL, NTKL_PROFILE_INTERVAL_SIZE_VER0,
	  sizeof(struct ntkl_profile_interval), K_PROF, E_ANY },
	{ "GET_PROFILE_INTERVAL", NTKL_IOC_GET_PROFILE_INTERVAL, NTKL_PROFILE_INTERVAL_SIZE_VER0,
	  sizeof(struct ntkl_profile_interval), K_PROF, E_ANY },
	{ "SET_STACK_TRACING", NTKL_IOC_SET_STACK_TRACING, NTKL_STACK_TRACING_SIZE_VER0,
	  sizeof(struct ntkl_stack_tracing), K_STACK, E_SEL | E(ENOMEM) },
	{ "GET_STACK_TRACING", NTKL_IOC_GET_STACK_TRACING, NTKL_STACK_TRACING_SIZE_VER0,
	  sizeof(struct ntkl_stack_tracing), K_STACK, E_SEL | E(ENOMEM) },
};
#define NCMDS	(sizeof(cmds) / sizeof(cmds[0]))

/* --- memory to point at ------------------------------------------------ */

/*
 * Two pages, the second PROT_NONE: a struct ending at the boundary is
 * whole, one that runs past it faults in the kernel's copy.
 */
struct arena {
	uint8_t *base;
	size_t page;
};

static int arena_init(struct arena *a)
{
	a->page = sysconf(_SC_PAGESIZE);
	a->base = mmap(NULL, 3 * a->page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a->base == MAP_FAILED)
		return -errno;
	return mprotect(a->base + a->page, a->page, PROT_NONE) ? -errno : 0;
}

static void arena_free(struct arena *a)
{
	munmap(a->base, 3 * a->page);
}

/* The page after the boundary: mapped, but neither readable nor writable. */
static void *arena_hole(struct arena *a)
{
	return a->base + a->page;
}

/*
 * A wild pointer the kernel must refuse: a kernel or non-canonical
 * address, or one inside a gigabyte reserved PROT_NONE. Never a random
 * user address: one that lands in our own stacks or heap (a few percent
 * of runs, with 6 threads' stacks) lets the kernel rightly write there,
 * and the test corrupts itself.
 */
#define VOID_SIZE	(1ul << 30)

static uint8_t *void_base;

static uint64_t wild_ptr(uint64_t *s)
{
	uint64_t r = rnd(s);

	if (void_base && rnd_below(s, 2))
		return (uintptr_t)void_base + r % VOID_SIZE;
	return r | 1ull << 63;
}

/* --- one case: build an argument, call, judge ---------------------------- */

struct stats {
	unsigned long cases;
	unsigned long ok;
	unsigned long bad;		/* answers outside the command's list */
	char first_bad[256];
	unsigned long per_errno[160];
};

static void judge(struct stats *st, const struct cmd *c, int ret, const char *what)
{
	int e = -ret;

	st->cases++;
	if (e >= 0 && e < 160)
		st->per_errno[e]++;
	if (!ret)
		st->ok++;
	if (e >= 0 && e < 128 && (c->allowed & E(e)))
		return;
	if (!st->bad++)
		snprintf(st->first_bad, sizeof(st->first_bad), "%s (%s): %s",
			 c->name, what, ret ? strerror(e) : "0");
}

static const uint32_t kb_edges[] = { 0, 1, 3, 4, 5, 64, 1024, NTKL_MAX_BUFFER_KB,
				     NTKL_MAX_BUFFER_KB + 1 };
static const uint32_t nbuf_edges[] = { 0, 1, 2, 3, 7, 8, 64, NTKL_MAX_BUFFERS,
				       NTKL_MAX_BUFFERS + 1 };
static const uint32_t mode_edges[] = { 0, NTKL_MODE_BUFFERING, NTKL_MODE_REAL_TIME,
				       NTKL_MODE_SEQUENTIAL, NTKL_MODE_MS_FLUSH_TIMER,
				       NTKL_MODE_SYSTEM_LOGGER, NTKL_MODE_OWNED,
				       NTKL_MODES_ALLOWED, 0x00000800u, 0x80000000u };
static const uint32_t clock_edges[] = { 0, NTKL_CLOCK_QPC, NTKL_CLOCK_SYSTEM,
					NTKL_CLOCK_CYCLE, 4 };
static const uint32_t timer_edges[] = { 0, 1, 2, NTKL_MAX_FLUSH_TIMER,
					NTKL_MAX_FLUSH_TIMER + 1 };
/* EVENT_TRACE_FLAG_*: process, thread, image, cswitch, dispatcher, profile, dpc... */
static const uint32_t flag_edges[] = { 0, 0x1, 0x2, 0x3, 0x4, 0x10, 0x800, 0x1000000,
				       0x10000, 0x20, 0x40, 0x20000000 };
static const uint32_t spin_edges[] = { 0, 1, 2, 999, 1000, 1001, 999999, 1000000 };
static const uint32_t prof_edges[] = { 0, 1, 1220, 1221, 10000, 10000000, 10000001 };
static const uint32_t hook_edges[] = { 0, NTKL_STACK_HOOK_CSWITCH, NTKL_STACK_HOOK_SPINLOCK,
				       NTKL_STACK_HOOK_READY_THREAD, NTKL_STACK_HOOK_PROFILE,
				       0x0525, 0xffff };

/* A logger name: one of a few (so calls meet), empty, odd, or unterminated. */
static void fill_name(uint64_t *s, char *name, int names)
{
	switch (rnd_below(s, 8)) {
	case 0:
		name[0] = 0;	/* select by id */
		break;
	case 1:
		memset(name, 'N', NTKL_NAME_MAX);	/* no terminator */
		break;
	case 2: {
		int i, n = rnd_below(s, NTKL_NAME_MAX);

		for (i = 0; i < n; i++)
			name[i] = (char)(1 + rnd_below(s, 255));	/* any byte but NUL */
		name[n] = 0;
		break;
	}
	case 3:
		snprintf(name, NTKL_NAME_MAX, "FZ%u", rnd_below(s, names));	/* case-insensitive */
		break;
	default:
		snprintf(name, NTKL_NAME_MAX, FUZZ_PREFIX "%u", rnd_below(s, names));
	}
}

/* Keep a START that is valid otherwise from asking for more than 16 MB of buffers. */
static void cap_memory(struct ntkl_properties *p)
{
	uint64_t kb = p->buffer_size_kb ? p->buffer_size_kb : NTKL_DEFAULT_BUFFER_KB;
	uint64_t n = p->maximum_buffers ? p->maximum_buffers :
		NTKL_DEFAULT_BUFFERS_PER_CPU * sysconf(_SC_NPROCESSORS_CONF);

	if (kb <= NTKL_MAX_BUFFER_KB && n <= NTKL_MAX_BUFFERS && kb * n > BIG_KB) {
		p->buffer_size_kb = 0;
		p->maximum_buffers = 0;
		p->minimum_buffers = 0;
	}
}

static void fill_props(uint64_t *s, struct ntkl_properties *p, int names, bool mostly_valid)
{
	unsigned int i;

	memset(p, 0, sizeof(*p));
	p->size = sizeof(*p);
	fill_name(s, p->logger_name, names);
	p->logger_id = rnd_below(s, 4) ? rnd_below(s, NTKL_MAX_LOGGERS + 2) : (uint32_t)rnd(s);
	if (mostly_valid && rnd_below(s, 4)) {
		p->enable_flags = flag_edges[rnd_below(s, 6)];
		p->flush_timer = rnd_below(s, 3);
		p->log_file_mode = rnd_below(s, 3) ? 0 : NTKL_MODE_REAL_TIME;
		return;
	}
	p->buffer_size_kb = edge_u32(s, kb_edges, 9);
	p->minimum_buffers = edge_u32(s, nbuf_edges, 9);
	p->maximum_buffers = edge_u32(s, nbuf_edges, 9);
	p->log_file_mode = edge_u32(s, mode_edges, 10);
	p->clock_type = edge_u32(s, clock_edges, 5);
	p->flush_timer = edge_u32(s, timer_edges, 5);
	p->enable_flags = edge_u32(s, flag_edges, 12);
	if (!rnd_below(s, 8))
		p->logger_options = (uint32_t)rnd(s);
	for (i = 0; i < 8; i++)
		if (!rnd_below(s, 6))
			p->group_masks[i] = (uint32_t)rnd(s);
	if (!rnd_below(s, 10))	/* an out field set on input */
		((uint8_t *)p)[offsetof(struct ntkl_properties, instance_guid) +
			       rnd_below(s, sizeof(*p) -
					 offsetof(struct ntkl_properties, instance_guid))] = 1;
	cap_memory(p);
}

/*
 * Fill buf (room bytes) with an argument for c, its size field already
 * set to what the case wants. ptrs: where LIST and STACK point to.
 */
static void fill_arg(uint64_t *s, const struct cmd *c, uint8_t *buf, size_t room,
		     struct arena *a, int names)
{
	uint8_t tmp[1024];
	size_t n = c->size < room ? c->size : room;
	bool ours = false;	/* points into our own memory: no random flips */

	memset(tmp, 0, sizeof(tmp));
	switch (c->kind) {
	case K_PROPS:
		fill_props(s, (struct ntkl_properties *)tmp, names, rnd_below(s, 2));
		break;
	case K_LIST: {
		struct ntkl_list *l = (struct ntkl_list *)tmp;
		static struct ntkl_properties sink[NTKL_MAX_LOGGERS + 1];

		l->count = edge_u32(s, (const uint32_t[]){ 0, 1, 2, NTKL_MAX_LOGGERS,
							  NTKL_MAX_LOGGERS + 1 }, 5);
		l->props_size = rnd_below(s, 2) ? sizeof(struct ntkl_properties) :
			edge_u32(s, (const uint32_t[]){ 0, 1, NTKL_PROPERTIES_SIZE_VER0 - 1,
							NTKL_PROPERTIES_SIZE_VER0 + 8 }, 4);
		switch (rnd_below(s, 5)) {
		case 0: l->props = 0; break;
		case 1: l->props = (uintptr_t)arena_hole(a); break;
		case 2: l->props = (uintptr_t)arena_hole(a) - sizeof(struct ntkl_properties) / 2;
			break;
		case 3: l->props = wild_ptr(s); break;
		default: l->props = (uintptr_t)sink;
			ours = true;
			/*
			 * The kernel writes (and zeroes) count * props_size
			 * bytes there: keep them inside sink.
			 */
			if (l->props_size > sizeof(struct ntkl_properties))
				l->props_size = sizeof(struct ntkl_properties) + 8;
			if ((uint64_t)l->count * l->props_size > sizeof(sink))
				l->count = sizeof(sink) / l->props_size;
		}
		if (!rnd_below(s, 8))
			l->__reserved0 = 1;
		break;
	}
	case K_BIND: {
		struct ntkl_bind *b = (struct ntkl_bind *)tmp;

		b->logger_id = rnd_below(s, NTKL_MAX_LOGGERS + 2);
		fill_name(s, b->logger_name, names);
		break;
	}
	case K_SPIN: {
		struct ntkl_spinlock_config *sc = (struct ntkl_spinlock_config *)tmp;

		if (rnd_below(s, 4)) {
			sc->spin_threshold = edge_u32(s, spin_edges, 8);
			sc->acquire_sample_rate = edge_u32(s, spin_edges, 8);
			sc->contention_sample_rate = edge_u32(s, spin_edges, 8);
			sc->hold_threshold = edge_u32(s, spin_edges, 8);
		}
		if (!rnd_below(s, 8))
			sc->__reserved0 = 1;
		break;
	}
	case K_PROF: {
		struct ntkl_profile_interval *pi = (struct ntkl_profile_interval *)tmp;

		pi->source = rnd_below(s, 8) ? 0 : (uint32_t)rnd(s);
		pi->interval = edge_u32(s, prof_edges, 7);
		/* a fast sampler on a slow emulated CPU: not the default for long */
		if (pi->interval && pi->interval < 10000 && rnd_below(s, 4))
			pi->interval = 10000;
		if (!rnd_below(s, 8))
			pi->__reserved0 = 1;
		break;
	}
	case K_VERSION:
		if (!rnd_below(s, 4))
			tmp[rnd_below(s, c->size)] = (uint8_t)rnd(s);
		break;
	case K_STACK: {
		struct ntkl_stack_tracing *t = (struct ntkl_stack_tracing *)tmp;
		static uint16_t hooks[NTKL_STACK_HOOKS_MAX + 1];
		unsigned int i;

		t->logger_id = rnd_below(s, NTKL_MAX_LOGGERS + 2);
		fill_name(s, t->logger_name, names);
		t->count = edge_u32(s, (const uint32_t[]){ 0, 1, 2, 4, NTKL_STACK_HOOKS_MAX,
							  NTKL_STACK_HOOKS_MAX + 1 }, 6);
		for (i = 0; i < 4; i++)
			hooks[i] = hook_edges[rnd_below(s, 7)];
		switch (rnd_below(s, 5)) {
		case 0: t->hooks = 0; break;
		case 1: t->hooks = (uintptr_t)arena_hole(a); break;
		case 2: t->hooks = (uintptr_t)arena_hole(a) - 2; break;
		case 3: t->hooks = wild_ptr(s); break;
		default: t->hooks = (uintptr_t)hooks;
			ours = true;
			if (t->count > NTKL_STACK_HOOKS_MAX + 1)
				t->count = 4;
		}
		if (!rnd_below(s, 8))
			t->__reserved0 = 1;
		if (!rnd_below(s, 8))
			t->stacks_truncated = 1;
		if (!rnd_below(s, 8))
			t->user_stops[rnd_below(s, NTKL_USTOP_COUNT)] = 1;
		break;
	}
	}
	/*
	 * Random bytes anywhere, now and then; not in a struct that points
	 * into this process (the kernel would write where a flip sends it),
	 * and never in the pointer LIST and GET_STACK_TRACING write through:
	 * a flip of a pointer next to the arena or into the reserved void can
	 * send it into a thread's stack (a run died of SIGSEGV so, its
	 * handler unable to run).
	 */
	if (!ours && !rnd_below(s, 8)) {
		size_t ptr_at = c->kind == K_LIST ? offsetof(struct ntkl_list, props) :
				c->kind == K_STACK ? offsetof(struct ntkl_stack_tracing, hooks) :
				SIZE_MAX;
		int k, flips = 1 + rnd_below(s, 4);

		for (k = 0; k < flips; k++) {
			size_t at = rnd_below(s, c->size);

			if (at >= ptr_at && at < ptr_at + sizeof(uint64_t))
				continue;
			tmp[at] ^= (uint8_t)(1u << rnd_below(s, 8));
		}
	}
	memcpy(buf, tmp, n);
}

/* Sizes to put in the size field: the edges of the ABI's size rule, or any. */
static uint32_t pick_size(uint64_t *s, const struct cmd *c, bool *nonzero_tail)
{
	const uint32_t sizes[] = { 0, 1, c->ver0 - 1, c->ver0, c->size, c->size + 8,
				   c->size + 64, 4096, 1u << 20, 0xffffffffu };
	uint32_t pick = rnd_below(s, 12);

	*nonzero_tail = false;
	if (pick >= 10)
		return c->size;	/* often exact: the rest of the struct gets exercised */
	if ((pick == 5 || pick == 6) && rnd_below(s, 2))
		*nonzero_tail = true;
	return sizes[pick];
}

/*
 * One call of c: the argument lies in the arena, either well inside the
 * first page or ending at (or running over) its end, or the pointer is
 * NULL, the unmapped page, or random; the ioctl number may encode
 * another size or direction.
 */
static int one_case(uint64_t *s, int fd, const struct cmd *c, struct arena *a, int names,
		    char *what, size_t wlen)
{
	bool tail;
	uint32_t size = pick_size(s, c, &tail);
	size_t room, shift;
	unsigned long cmd = c->cmd;
	uint8_t *arg;
	void *ptr;
	int where = rnd_below(s, 10);

	/* room: the arg sits so that exactly room bytes are readable */
	if (where <= 5) {
		room = a->page;
		arg = a->base;
	} else {
		shift = rnd_below(s, 3);	/* 0: ends at the boundary; else runs over */
		room = size < c->size + 64 ? size : c->size + 64;
		if (room > a->page)
			room = a->page;
		if (room > shift * 8)
			room -= shift * 8;
		arg = a->base + a->page - room;
	}
	memset(arg, 0, room);
	fill_arg(s, c, arg, room, a, names);
	if (room >= 4)
		memcpy(arg, &size, 4);
	if (tail && size <= room && size > c->size)
		arg[c->size + rnd_below(s, size - c->size)] = 0x5a;
	ptr = arg;
	switch (where) {
	case 8: ptr = rnd_below(s, 2) ? NULL : arena_hole(a); break;
	case 9: if (!rnd_below(s, 3)) ptr = (void *)(uintptr_t)wild_ptr(s); break;
	default: break;
	}
	if (!rnd_below(s, 12)) {	/* the number: another encoded size or direction */
		unsigned int dir = rnd_below(s, 2) ? _IOC_DIR(cmd) : rnd_below(s, 4);

		cmd = _IOC(dir, _IOC_TYPE(cmd), _IOC_NR(cmd), rnd_below(s, _IOC_SIZEMASK + 1));
	}
	snprintf(what, wlen, "size %u, room %zu, ptr %s, cmd 0x%lx", size, room,
		 ptr == arg ? "arena" : ptr ? "bad" : "NULL", cmd);
	snprintf(last_case, sizeof(last_case), "%s %s", c->name, what);
	return ioctl(fd, cmd, ptr) ? -errno : 0;
}

/* Unknown numbers: other numbers of our magic, other magics. */
static int unknown_case(uint64_t *s, int fd, struct arena *a)
{
	unsigned long cmd;

	if (rnd_below(s, 2))
		cmd = _IOC(rnd_below(s, 4), NTKL_IOC_MAGIC, 0x10 + rnd_below(s, 0xEF),
			   rnd_below(s, 1024));
	else
		/*
		 * Any number, but not one of ours by type and number: the
		 * module matches those whatever size they encode (its size
		 * rule), so a draw of one is a known command, not an unknown.
		 */
		do
			cmd = (unsigned long)rnd(s) & 0xffffffffu;
		while (_IOC_TYPE(cmd) == NTKL_IOC_MAGIC && _IOC_NR(cmd) < 0x10);
	snprintf(last_case, sizeof(last_case), "unknown cmd 0x%lx", cmd);
	return ioctl(fd, cmd, a->base) ? -errno : 0;
}

/*
 * mmap() of the descriptor (mapped reading): any pages, offset and
 * protection; what maps is touched page by page (a fault in range must
 * find its page), then unmapped.
 */
static int map_case(uint64_t *s, int fd, struct arena *a)
{
	size_t len = (1 + rnd_below(s, 64)) * a->page;
	off_t off = (off_t)rnd_below(s, 3) * (off_t)rnd_below(s, 64) * (off_t)a->page;
	int prot = rnd_below(s, 4) ? PROT_READ : PROT_READ | PROT_WRITE;
	volatile const uint8_t *m;
	size_t i;

	snprintf(last_case, sizeof(last_case), "mmap %zu bytes at %lld prot %d", len,
		 (long long)off, prot);
	m = mmap(NULL, len, prot, MAP_SHARED, fd, off);
	if (m == MAP_FAILED)
		return -errno;
	for (i = 0; i < len; i += a->page)
		(void)m[i];
	munmap((void *)m, len);
	return 0;
}

/* NEXT_BUFFER, its struct's fields and size at their edges. */
static int next_case(uint64_t *s, int fd, struct arena *a)
{
	struct ntkl_next_buffer nb = { .size = sizeof(nb) };

	if (!rnd_below(s, 4))
		nb.size = edge_u32(s, (const uint32_t[]){ 0, 4, NTKL_NEXT_BUFFER_SIZE_VER0 - 1,
							 NTKL_NEXT_BUFFER_SIZE_VER0,
							 NTKL_NEXT_BUFFER_SIZE_VER1 + 8 }, 5);
	if (!rnd_below(s, 8))
		nb.flags = 1u << rnd_below(s, 32);
	else if (!rnd_below(s, 2))
		nb.flags = NTKL_NEXT_KEEP | NTKL_NEXT_NOWAIT;
	if (!rnd_below(s, 4))
		nb.release = rnd_below(s, NTKL_NEXT_MAX_HELD + 2);
	if (!rnd_below(s, 8))
		nb.length = (uint32_t)rnd(s);
	snprintf(last_case, sizeof(last_case), "NEXT_BUFFER size %u flags 0x%x release %u",
		 nb.size, nb.flags, nb.release);
	if (!rnd_below(s, 8))
		return ioctl(fd, NTKL_IOC_NEXT_BUFFER, arena_hole(a)) ? -errno : 0;
	return ioctl(fd, NTKL_IOC_NEXT_BUFFER, &nb) ? -errno : 0;
}

/*
 * read(), NEXT_BUFFER or mmap() of an fd that may or may not be bound:
 * sizes and pointers.
 */
static int read_case(uint64_t *s, int fd, struct arena *a)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	void *ptr = rnd_below(s, 3) ? (void *)a->base : arena_hole(a);
	size_t len = rnd_below(s, 2) ? rnd_below(s, 2 * a->page) : (size_t)rnd(s) & 0xffffff;

	if (!rnd_below(s, 4))
		return map_case(s, fd, a);
	snprintf(last_case, sizeof(last_case), "read %zu bytes at %p", len, ptr);
	poll(&pfd, 1, 0);
	if (!(pfd.revents & POLLIN))
		return 0;	/* never block here */
	if (!rnd_below(s, 3))
		return next_case(s, fd, a);
	return read(fd, ptr, len) < 0 ? -errno : 0;
}

#define E_READ	(E(0) | E(EINVAL) | E(EFAULT) | E(EAGAIN) | E(E2BIG) | E(EPERM) | E(ENOMEM))

/* --- the fixture --------------------------------------------------------- */

static void on_crash(int sig, siginfo_t *si, void *uc)
{
	char line[320];
	int n = snprintf(line, sizeof(line), "# fuzz: signal %d at %p during: %s\n", sig,
			 si->si_addr, last_case);

	if (write(2, line, n) < 0)
		_exit(128 + sig);
	_exit(128 + sig);
}

FIXTURE(fuzz) {
	int ctl;
	int kmsg;
	uint64_t seed;
	unsigned int seconds;
};

FIXTURE_SETUP(fuzz)
{
	self->ctl = ntkl_open();
	ASSERT_GE(self->ctl, 0) TH_LOG("open %s: %s", NTKL_DEVICE_PATH, strerror(errno));
	self->kmsg = kmsg_open_at_end();
	self->seed = fuzz_seed();
	self->seconds = fuzz_seconds();
	if (!void_base) {
		void_base = mmap(NULL, VOID_SIZE, PROT_NONE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (void_base == MAP_FAILED)
			void_base = NULL;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!getenv("NTKL_FUZZ_CORE")) {	/* set: dump core instead */
		struct sigaction sa = { .sa_sigaction = on_crash, .sa_flags = SA_SIGINFO };

		sigaction(SIGSEGV, &sa, NULL);
		sigaction(SIGBUS, &sa, NULL);
	}
}

FIXTURE_TEARDOWN(fuzz)
{
	ntkl_stop_every_logger(self->ctl);
	close(self->ctl);
	if (self->kmsg >= 0)
		close(self->kmsg);
}

static void report(struct __test_metadata *_metadata, const char *phase, struct stats *st,
		   double secs)
{
	char line[1024];
	int e, n = 0;

	for (e = 0; e < 160; e++)
		if (st->per_errno[e])
			n += snprintf(line + n, sizeof(line) - n, " %s=%lu",
				      e ? strerrorname_np(e) ?: "?" : "0", st->per_errno[e]);
	printf("# fuzz %s: %lu cases in %.1f s (%lu succeeded);%s\n", phase, st->cases, secs,
	       st->ok, line);
	fflush(stdout);
	EXPECT_EQ(0, st->bad) TH_LOG("%lu answers outside the ABI's errnos, first: %s",
				     st->bad, st->first_bad);
}

static void expect_clean_kmsg(struct __test_metadata *_metadata, int kmsg)
{
	char first[512];
	int bad;

	if (kmsg < 0)
		return;
	bad = kmsg_bad_since(kmsg, first, sizeof(first));
	EXPECT_EQ(0, bad) TH_LOG("%d kernel log lines report bugs, first: %s", bad, first);
}

/*
 * Phase 1, one thread: every command in turn with an edge case or a
 * random one, plus unknown numbers and reads, on a control fd and on a
 * fd that gets bound now and then. Replays exactly from its seed.
 */
TEST_F_TIMEOUT(fuzz, single_thread, 600)
{
	struct stats st = { 0 };
	struct arena a;
	uint64_t s = self->seed | 1;
	double t0 = now_s(), end = t0 + self->seconds * 0.4;
	int bound = ntkl_open();
	char what[160];
	unsigned long i;

	ASSERT_GE(bound, 0);
	ASSERT_EQ(0, arena_init(&a));
	printf("# fuzz seed %#llx (NTKL_FUZZ_SEED=%#llx replays), %u s in all\n",
	       (unsigned long long)self->seed, (unsigned long long)self->seed, self->seconds);
	for (i = 0; now_s() < end; i++) {
		const struct cmd *c = &cmds[i % NCMDS];
		int fd = rnd_below(&s, 4) ? self->ctl : bound, ret;

		ret = one_case(&s, fd, c, &a, NAMES, what, sizeof(what));
		judge(&st, c, ret, what);
		if (c->cmd == NTKL_IOC_BIND && !ret && fd == bound) {
			/* bound: read it a little, then start over with a fresh fd */
			ret = read_case(&s, bound, &a);
			judge(&st, &(struct cmd){ "read", 0, 0, 0, 0, E_READ }, ret, "read");
			close(bound);
			bound = ntkl_open();
			ASSERT_GE(bound, 0);
		}
		if (!(i % 16)) {
			ret = unknown_case(&s, self->ctl, &a);
			judge(&st, &(struct cmd){ "unknown", 0, 0, 0, 0, E(0) | E(ENOTTY) | E_ANY },
			      ret, "unknown number");
			ret = read_case(&s, self->ctl, &a);
			judge(&st, &(struct cmd){ "read unbound", 0, 0, 0, 0, E_READ }, ret,
			      "read");
		}
		if (!(i % 64))
			ntkl_stop_every_logger(self->ctl);	/* or the table fills: ENOSPC only */
	}
	close(bound);
	arena_free(&a);
	report(_metadata, "single thread", &st, now_s() - t0);
	expect_clean_kmsg(_metadata, self->kmsg);
}

/* --- phase 2: several threads ------------------------------------------ */

struct shared {
	volatile int stop;
	uint64_t seed;
	pthread_mutex_t lock;
	struct stats st;
	int reader_fds[READERS];	/* closed and replaced by control threads */
	unsigned long reads, eofs, closes;
};

static void merge(struct shared *sh, struct stats *st)
{
	int e;

	pthread_mutex_lock(&sh->lock);
	sh->st.cases += st->cases;
	sh->st.ok += st->ok;
	if (st->bad && !sh->st.bad)
		memcpy(sh->st.first_bad, st->first_bad, sizeof(st->first_bad));
	sh->st.bad += st->bad;
	for (e = 0; e < 160; e++)
		sh->st.per_errno[e] += st->per_errno[e];
	pthread_mutex_unlock(&sh->lock);
}

struct worker {
	struct shared *sh;
	int id;
};

/* Control: random commands on the few shared names, some valid, some not. */
static void *control_thread(void *arg)
{
	struct worker *w = arg;
	struct shared *sh = w->sh;
	struct stats st = { 0 };
	struct arena a;
	uint64_t s = (sh->seed + 0x9E3779B97F4A7C15ULL * (w->id + 1)) | 1;
	int fd = ntkl_open();
	char what[160];

	if (fd < 0 || arena_init(&a))
		return NULL;
	while (!sh->stop) {
		const struct cmd *c = &cmds[rnd_below(&s, NCMDS)];
		int ret, r;

		if (rnd_below(&s, 3)) {
			/* a well-formed call, so the loggers actually live and die */
			struct ntkl_properties p;

			fill_props(&s, &p, NAMES, true);
			snprintf(p.logger_name, sizeof(p.logger_name), FUZZ_PREFIX "%u",
				 rnd_below(&s, NAMES));
			c = &cmds[rnd_below(&s, 5)];	/* START..FLUSH */
			ret = ioctl(fd, c->cmd, &p) ? -errno : 0;
			snprintf(what, sizeof(what), "well-formed, threads");
		} else {
			ret = one_case(&s, fd, c, &a, NAMES, what, sizeof(what));
		}
		judge(&st, c, ret, what);
		if (!rnd_below(&s, 50)) {
			/* close a reader's fd under it (its read() goes on with the file) */
			r = rnd_below(&s, READERS);
			pthread_mutex_lock(&sh->lock);
			close(sh->reader_fds[r]);
			sh->reader_fds[r] = ntkl_open();
			sh->closes++;
			pthread_mutex_unlock(&sh->lock);
		}
	}
	merge(sh, &st);
	arena_free(&a);
	close(fd);
	return NULL;
}

/* A reader: bind to one of the loggers, then block in poll() or read(). */
static void *reader_thread(void *arg)
{
	struct worker *w = arg;
	struct shared *sh = w->sh;
	struct stats st = { 0 };
	uint64_t s = (sh->seed * 31 + w->id) | 1;
	/* room for the largest buffer (16 MB), so every read() can succeed */
	size_t room = (size_t)NTKL_MAX_BUFFER_KB * 1024;
	uint8_t *buf = malloc(room);
	const struct cmd bindc = cmds[6], readc = { "read (blocking)", 0, 0, 0, 0, E_READ };

	if (!buf)
		return NULL;
	while (!sh->stop) {
		struct ntkl_bind b = { .size = sizeof(b) };
		int fd, ret;

		pthread_mutex_lock(&sh->lock);
		fd = dup(sh->reader_fds[w->id]);	/* our own reference to the file */
		pthread_mutex_unlock(&sh->lock);
		if (fd < 0)
			continue;
		snprintf(b.logger_name, sizeof(b.logger_name), FUZZ_PREFIX "%u",
			 rnd_below(&s, NAMES));
		ret = ioctl(fd, NTKL_IOC_BIND, &b) ? -errno : 0;
		judge(&st, &bindc, ret, "reader bind");
		while (!sh->stop) {
			ssize_t n;

			if (rnd_below(&s, 2)) {
				struct pollfd pfd = { .fd = fd, .events = POLLIN };

				poll(&pfd, 1, 200);
				if (!(pfd.revents & POLLIN))
					continue;
			}
			/*
			 * Blocks until a buffer, the logger's end, or a not-bound
			 * fd's EINVAL; the control threads stop loggers, so it ends.
			 */
			n = read(fd, buf, room);
			judge(&st, &readc, n < 0 ? -errno : 0, "read");
			if (n <= 0)
				break;
			__atomic_add_fetch(&sh->reads, 1, __ATOMIC_RELAXED);
		}
		__atomic_add_fetch(&sh->eofs, 1, __ATOMIC_RELAXED);
		close(fd);
		usleep(1000);
	}
	free(buf);
	merge(sh, &st);
	return NULL;
}

TEST_F_TIMEOUT(fuzz, threads, 600)
{
	pthread_t ctl[CTL_THREADS], rd[READERS];
	struct worker wc[CTL_THREADS], wr[READERS];
	struct shared sh = { .seed = self->seed };
	double t0 = now_s();
	int i;

	pthread_mutex_init(&sh.lock, NULL);
	for (i = 0; i < READERS; i++)
		ASSERT_GE(sh.reader_fds[i] = ntkl_open(), 0);
	for (i = 0; i < CTL_THREADS; i++) {
		wc[i] = (struct worker){ &sh, i };
		ASSERT_EQ(0, pthread_create(&ctl[i], NULL, control_thread, &wc[i]));
	}
	for (i = 0; i < READERS; i++) {
		wr[i] = (struct worker){ &sh, i };
		ASSERT_EQ(0, pthread_create(&rd[i], NULL, reader_thread, &wr[i]));
	}
	while (now_s() < t0 + self->seconds * 0.45)
		usleep(100 * 1000);
	sh.stop = 1;
	for (i = 0; i < CTL_THREADS; i++)
		pthread_join(ctl[i], NULL);
	/* readers blocked in read() wake when their logger stops */
	ntkl_stop_every_logger(self->ctl);
	for (i = 0; i < READERS; i++)
		pthread_join(rd[i], NULL);
	for (i = 0; i < READERS; i++)
		close(sh.reader_fds[i]);
	printf("# fuzz threads: %d control, %d readers: %lu buffers read, %lu binds ended, %lu fds closed under readers\n",
	       CTL_THREADS, READERS, sh.reads, sh.eofs, sh.closes);
	report(_metadata, "threads", &sh.st, now_s() - t0);
	expect_clean_kmsg(_metadata, self->kmsg);
}

/* --- phase 3: BIND races ------------------------------------------------- */

struct racer {
	int fd;
	uint32_t id;
	pthread_barrier_t *go;
	int ret;
};

static void *race_bind(void *arg)
{
	struct racer *r = arg;

	pthread_barrier_wait(r->go);
	r->ret = ntkl_bind_id(r->fd, r->id);
	return NULL;
}

/*
 * Two threads BIND one fd to two loggers, or two fds to one logger, while
 * a third stops a logger: exactly one bind of a kind wins, the rest get
 * EBUSY (or ENOENT once stopped), and nothing stays bound after close.
 */
TEST_F_TIMEOUT(fuzz, bind_races, 600)
{
	struct stats st = { 0 };
	pthread_barrier_t go;
	double t0 = now_s(), end = t0 + self->seconds * 0.15;
	const struct cmd bindc = cmds[6];
	unsigned long rounds = 0, two_wins = 0;

	pthread_barrier_init(&go, NULL, 2);
	while (now_s() < end) {
		struct ntkl_properties a, b;
		int f1 = ntkl_open(), f2 = ntkl_open(), same_fd = rounds & 1;
		struct racer r1, r2;
		pthread_t t1, t2;

		props_init(&a, FUZZ_PREFIX "race a", EVENT_TRACE_FLAG_PROCESS);
		props_init(&b, FUZZ_PREFIX "race b", EVENT_TRACE_FLAG_PROCESS);
		ASSERT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_START, &a));
		ASSERT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_START, &b));
		r1 = (struct racer){ f1, a.logger_id, &go, 0 };
		r2 = (struct racer){ same_fd ? f1 : f2, same_fd ? b.logger_id : a.logger_id,
				     &go, 0 };
		pthread_create(&t1, NULL, race_bind, &r1);
		pthread_create(&t2, NULL, race_bind, &r2);
		pthread_join(t1, NULL);
		pthread_join(t2, NULL);
		judge(&st, &bindc, r1.ret, "race");
		judge(&st, &bindc, r2.ret, "race");
		two_wins += !r1.ret && !r2.ret;
		close(f1);
		close(f2);
		/* both free again: a fresh fd binds each */
		f1 = ntkl_open();
		EXPECT_EQ(0, ntkl_bind_id(f1, a.logger_id));
		close(f1);
		f1 = ntkl_open();
		EXPECT_EQ(0, ntkl_bind_id(f1, b.logger_id));
		close(f1);
		EXPECT_EQ(0, ntkl_stop_name(self->ctl, FUZZ_PREFIX "race a"));
		EXPECT_EQ(0, ntkl_stop_name(self->ctl, FUZZ_PREFIX "race b"));
		rounds++;
	}
	pthread_barrier_destroy(&go);
	printf("# fuzz bind races: %lu rounds\n", rounds);
	EXPECT_EQ(0, two_wins) TH_LOG("two binds won the same race in %lu rounds", two_wins);
	report(_metadata, "bind races", &st, now_s() - t0);
}

/* --- phase 4: every entry point a reader reaches -------------------------- */

/*
 * read(), poll(), mmap()/munmap(), NEXT_BUFFER, fork() and close() on a
 * bound reader, on loggers of every kind a reader meets: a file logger,
 * a real-time one, a buffering one (read: a snapshot, paused), and each
 * stopped. read() points anywhere (issue 38: a NULL buffer once took
 * NEXT_BUFFER's path in the kernel): each call answers within its list,
 * and what is left of the logger then drains whole buffers to the end.
 */
enum entry { EP_READ, EP_POLL, EP_MMAP, EP_NEXT, EP_MUNMAP_HELD, EP_FORK, EP_CLOSE_READING,
	     EP_COUNT };
static const char * const entry_names[EP_COUNT] = {
	"read", "poll", "mmap", "next_buffer", "munmap_held", "fork", "close_reading",
};

enum dest_kind { DK_GOOD, DK_HUGE, DK_NULL, DK_NONE, DK_RO, DK_STRADDLE, DK_KERNEL,
		 DK_NONCANON, DK_OWN_MAP, DK_SHORT, DK_ZERO, DK_COUNT };

struct entry_run {
	struct stats st;
	unsigned long per_entry[EP_COUNT];
	unsigned long per_dest[DK_COUNT];
	unsigned long loggers, buffers_read, drained;
	size_t size, room, page;
	uint8_t *good, *ro, *none, *straddle;
	void *own_map;
};

#define E_RD	(E(0) | E(EINVAL) | E(EFAULT) | E(EAGAIN) | E(EINTR))

/* Where a read() goes: dest kind k, for a logger of buffer size r->size. */
static ssize_t read_to(struct entry_run *r, int fd, enum dest_kind k)
{
	void *ptr = NULL;
	size_t len = r->size;

	switch (k) {
	case DK_GOOD: ptr = r->good; break;
	case DK_HUGE: ptr = r->good; len = (size_t)1 << 40; break;
	case DK_NULL: len = 1 << 20; break;	/* ptr stays NULL */
	case DK_NONE: ptr = r->none; break;
	case DK_RO: ptr = r->ro; break;
	case DK_STRADDLE: ptr = r->straddle; break;
	case DK_KERNEL: ptr = (void *)0xffffffff81000000ul; break;
	case DK_NONCANON: ptr = (void *)0x8000000000000000ul; break;
	case DK_OWN_MAP: ptr = r->own_map; break;
	case DK_SHORT: ptr = r->good; len = r->size - 1; break;
	case DK_ZERO: len = 0; break;
	default: break;
	}
	snprintf(last_case, sizeof(last_case), "entry read: dest %d, %zu bytes at %p", k, len,
		 ptr);
	return read(fd, ptr, len);
}

static void entry_judge(struct entry_run *r, enum entry e, int ret, errset allowed,
			const char *what)
{
	const struct cmd c = { entry_names[e], 0, 0, 0, 0, allowed };

	r->per_entry[e]++;
	judge(&r->st, &c, ret, what);
}

/* One read() to a random place; a good one must be a whole buffer. */
static void entry_read(struct entry_run *r, uint64_t *s, int fd)
{
	enum dest_kind k = rnd_below(s, DK_COUNT);
	ssize_t n;
	int ret;

	if (k == DK_OWN_MAP && !r->own_map)
		k = DK_NULL;
	r->per_dest[k]++;
	n = read_to(r, fd, k);
	ret = n < 0 ? -errno : 0;
	if (n > 0 && k != DK_GOOD && k != DK_HUGE)
		ret = -EBADMSG;		/* a copy to where none can be made */
	if (n > 0 && (size_t)n != r->size)
		ret = -EMSGSIZE;	/* read() gives whole buffers */
	r->buffers_read += n > 0;
	entry_judge(r, EP_READ, ret, E_RD, "read");
}

/* mmap() of odd offsets, lengths, protections and flags; every page touched. */
static void entry_mmap(struct entry_run *r, uint64_t *s, int fd)
{
	static const int prots[] = { PROT_READ, PROT_READ | PROT_WRITE, PROT_READ | PROT_EXEC,
				     PROT_NONE, PROT_WRITE };
	size_t len = rnd_below(s, 4) ? (1 + rnd_below(s, 40)) * r->page :
				       (size_t)rnd(s) & 0xffffffff;
	off_t off = rnd_below(s, 2) ? (off_t)rnd_below(s, 40) * (off_t)r->page :
				      (off_t)(rnd(s) & 0xfffffffff);
	int prot = prots[rnd_below(s, 5)];
	int flags = rnd_below(s, 4) ? MAP_SHARED : MAP_PRIVATE;
	volatile const uint8_t *m;
	size_t i;

	snprintf(last_case, sizeof(last_case), "entry mmap %zu bytes at %lld prot %d flags %d",
		 len, (long long)off, prot, flags);
	m = mmap(NULL, len, prot, flags, fd, off);
	if (m == MAP_FAILED) {
		entry_judge(r, EP_MMAP, -errno,
			    E(EINVAL) | E(EPERM) | E(EACCES) | E(ENOMEM) | E(EOVERFLOW),
			    "mmap");
		return;
	}
	if (prot & PROT_READ)
		for (i = 0; i < len; i += r->page)
			(void)m[i];
	munmap((void *)m, len);
	entry_judge(r, EP_MMAP, 0, E(0), "mmap");
}

/* NEXT_BUFFER, then (now and then) its mapping unmapped while held. */
static void entry_next(struct entry_run *r, uint64_t *s, int fd)
{
	struct ntkl_next_buffer nb = { .size = sizeof(nb) };
	size_t len = r->page * 64;
	volatile const uint8_t *m = NULL;
	int ret;

	if (rnd_below(s, 2))
		nb.flags = NTKL_NEXT_NOWAIT | (rnd_below(s, 2) ? NTKL_NEXT_KEEP : 0);
	if ((nb.flags & NTKL_NEXT_KEEP) && rnd_below(s, 2))
		nb.release = rnd_below(s, 3);
	if (r->own_map) {
		m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
		if (m == MAP_FAILED)
			m = NULL;
	}
	snprintf(last_case, sizeof(last_case), "entry NEXT_BUFFER flags 0x%x release %u",
		 nb.flags, nb.release);
	if (!(nb.flags & NTKL_NEXT_NOWAIT))
		nb.flags |= NTKL_NEXT_NOWAIT;	/* never block the phase */
	ret = ioctl(fd, NTKL_IOC_NEXT_BUFFER, &nb) ? -errno : 0;
	entry_judge(r, EP_NEXT, ret, E(0) | E(EINVAL) | E(EAGAIN) | E(EBUSY) | E(EPERM),
		    "NEXT_BUFFER");
	if (!m)
		return;
	if (!ret && nb.length && nb.offset + nb.length <= len)
		(void)m[nb.offset + nb.length - 1];	/* the held buffer, where it lies */
	/* unmapped while it holds buffers: the next call or close gives them back */
	munmap((void *)m, len);
	entry_judge(r, EP_MUNMAP_HELD, 0, E(0), "munmap while held");
}

/* A child with the reader's file (not its mapping: VM_DONTCOPY) reads it. */
static void entry_fork(struct entry_run *r, uint64_t *s, int fd)
{
	enum dest_kind k = rnd_below(s, DK_OWN_MAP);	/* never the parent's mapping */
	int status = 0, ret;
	pid_t pid = fork();

	if (pid == 0) {
		int flags = fcntl(fd, F_GETFL);
		ssize_t n;

		fcntl(fd, F_SETFL, flags | O_NONBLOCK);
		n = read_to(r, fd, k);
		_exit(n < 0 ? errno : 0);
	}
	if (pid < 0) {
		entry_judge(r, EP_FORK, -errno, E(EAGAIN) | E(ENOMEM), "fork");
		return;
	}
	waitpid(pid, &status, 0);
	ret = WIFEXITED(status) ? -WEXITSTATUS(status) : -EBADMSG;
	entry_judge(r, EP_FORK, ret, E_RD, "read in a forked child");
}

struct close_reader {
	int fd;
	ssize_t n;
	int err;
	struct entry_run *r;
	enum dest_kind k;
};

static void *close_reader_thread(void *arg)
{
	struct close_reader *c = arg;

	c->n = read_to(c->r, c->fd, c->k);
	c->err = c->n < 0 ? errno : 0;
	return NULL;
}

/*
 * Another thread reads (good or bad memory) while this one reads too and
 * closes its descriptor: the file lives on until that read returns.
 */
static void entry_close_reading(struct entry_run *r, uint64_t *s, int *fd)
{
	struct close_reader c = { .fd = dup(*fd), .r = r,
				  .k = rnd_below(s, 2) ? DK_GOOD : DK_NULL };
	pthread_t t;
	int fl;

	if (c.fd < 0)
		return;
	fl = fcntl(c.fd, F_GETFL);
	fcntl(c.fd, F_SETFL, fl | O_NONBLOCK);	/* never wait for a logger that idles */
	if (pthread_create(&t, NULL, close_reader_thread, &c)) {
		close(c.fd);
		return;
	}
	entry_read(r, s, *fd);
	pthread_join(t, NULL);
	close(c.fd);
	entry_judge(r, EP_CLOSE_READING, c.n < 0 ? -c.err : 0, E_RD, "read beside close");
	if (c.n > 0)
		r->buffers_read++;
}

static const uint32_t entry_modes[] = { NTKL_MODE_SEQUENTIAL, NTKL_MODE_REAL_TIME,
					NTKL_MODE_BUFFERING };

TEST_F_TIMEOUT(fuzz, entry_points, 600)
{
	struct entry_run r = { 0 };
	uint64_t s = (self->seed * 0x9E3779B97F4A7C15ULL) | 1;
	double t0 = now_s(), end = t0 + self->seconds * 0.3;
	char line[512];
	int e, n;

	r.page = sysconf(_SC_PAGESIZE);
	r.room = 64 * 1024;	/* the largest buffer this phase asks for */
	r.good = mmap(NULL, r.room, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	r.ro = mmap(NULL, r.room, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	r.none = mmap(NULL, r.room, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	r.straddle = mmap(NULL, r.room, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);
	ASSERT_NE(MAP_FAILED, r.good);
	ASSERT_NE(MAP_FAILED, r.ro);
	ASSERT_NE(MAP_FAILED, r.none);
	ASSERT_NE(MAP_FAILED, r.straddle);
	while (now_s() < end) {
		static const uint32_t kbs[] = { 4, 8, 64 };
		struct ntkl_properties p, final;
		bool stop_first = rnd_below(&s, 4) == 0;
		int fd = open(NTKL_DEVICE_PATH, O_RDWR | O_CLOEXEC |
			      (rnd_below(&s, 2) ? O_NONBLOCK : 0));
		unsigned int ops, i, drain;

		ASSERT_GE(fd, 0);
		props_init(&p, FUZZ_PREFIX " entry", EVENT_TRACE_FLAG_PROCESS |
			   EVENT_TRACE_FLAG_THREAD | EVENT_TRACE_FLAG_CSWITCH);
		p.log_file_mode = entry_modes[rnd_below(&s, 3)];
		p.buffer_size_kb = kbs[rnd_below(&s, 3)];
		ASSERT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_START, &p));
		ASSERT_EQ(0, ntkl_bind_id(fd, p.logger_id));
		r.size = (size_t)p.buffer_size_kb * 1024;
		/* whole but its last page: a copy faults part way through */
		mprotect(r.straddle, r.room, PROT_READ | PROT_WRITE);
		mprotect(r.straddle + r.size - r.page, r.page, PROT_NONE);
		r.own_map = mmap(NULL, r.size, PROT_READ, MAP_SHARED, fd, 0);
		if (r.own_map == MAP_FAILED)
			r.own_map = NULL;
		usleep(2000);	/* a few switches */
		props_select(&final, FUZZ_PREFIX " entry");
		if (stop_first) {
			ASSERT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_STOP, &final));
		} else {
			ntkl_ctl(self->ctl, NTKL_IOC_FLUSH, &final);
		}
		ops = 8 + rnd_below(&s, 24);
		for (i = 0; i < ops; i++) {
			struct pollfd pfd = { .fd = fd, .events = POLLIN };

			switch (rnd_below(&s, 8)) {
			case 0: case 1: case 2:
				/* a blocking read waits only where something is ready */
				poll(&pfd, 1, 0);
				if (!(pfd.revents & POLLIN) && !(fcntl(fd, F_GETFL) & O_NONBLOCK))
					break;
				entry_read(&r, &s, fd);
				break;
			case 3:
				n = poll(&pfd, 1, rnd_below(&s, 2));
				entry_judge(&r, EP_POLL, n < 0 ? -errno : 0, E(0) | E(EINTR),
					    "poll");
				break;
			case 4:
				entry_mmap(&r, &s, fd);
				break;
			case 5:
				entry_next(&r, &s, fd);
				break;
			case 6:
				entry_fork(&r, &s, fd);
				break;
			default:
				entry_close_reading(&r, &s, &fd);
				break;
			}
		}
		if (!stop_first)
			EXPECT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_STOP, &final));
		/* what is left drains, whole buffers, to the end */
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
		for (drain = 0; drain < 100000; drain++) {
			ssize_t got = read(fd, r.good, r.size);

			if (got == 0)
				break;
			EXPECT_EQ((ssize_t)r.size, got) TH_LOG("draining: %s", strerror(errno));
			if (got != (ssize_t)r.size)
				break;
		}
		r.drained += drain < 100000;
		if (r.own_map)
			munmap(r.own_map, r.size);
		close(fd);
		r.loggers++;
	}
	n = 0;
	for (e = 0; e < EP_COUNT; e++)
		n += snprintf(line + n, sizeof(line) - n, " %s=%lu", entry_names[e],
			      r.per_entry[e]);
	printf("# fuzz entry points: %lu loggers (%lu drained to the end), %lu buffers read;%s\n",
	       r.loggers, r.drained, r.buffers_read, line);
	n = 0;
	for (e = 0; e < DK_COUNT; e++)
		n += snprintf(line + n, sizeof(line) - n, " %lu", r.per_dest[e]);
	printf("# fuzz read destinations (good huge NULL none ro straddle kernel noncanonical own-map short zero):%s\n",
	       line);
	fflush(stdout);
	EXPECT_EQ(r.loggers, r.drained);
	munmap(r.good, r.room);
	munmap(r.ro, r.room);
	munmap(r.none, r.room);
	munmap(r.straddle, r.room);
	report(_metadata, "entry points", &r.st, now_s() - t0);
	expect_clean_kmsg(_metadata, self->kmsg);
}

/* --- afterwards: a logger still works ------------------------------------ */

TEST_F_TIMEOUT(fuzz, logger_works_after, 300)
{
	struct ntkl_properties p, final;
	struct capture cap = { 0 };
	struct capture_verdict v;
	struct ntkl_spinlock_config sc = { .size = sizeof(sc) };
	struct ntkl_profile_interval pi = { .size = sizeof(pi) };
	int reader = ntkl_open(), i;
	unsigned int cswitch;

	ASSERT_GE(reader, 0);
	/* the fuzzing may have left odd machine-wide settings: restore defaults */
	EXPECT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_SET_SPINLOCK_CONFIG, &sc));
	EXPECT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_SET_PROFILE_INTERVAL, &pi));
	EXPECT_GE(ntkl_stop_every_logger(self->ctl), 0);
	props_init(&p, FUZZ_PREFIX " after", EVENT_TRACE_FLAG_CSWITCH);
	ASSERT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_START, &p));
	ASSERT_EQ(0, ntkl_bind_id(reader, p.logger_id));
	for (i = 0; i < 50; i++)
		usleep(1000);	/* context switches */
	props_select(&final, FUZZ_PREFIX " after");
	ASSERT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_STOP, &final));
	ASSERT_EQ(0, capture_drain(reader, p.buffer_size_kb * 1024, &cap, 0));
	ASSERT_GE(cap.buffers, 2);
	capture_patch(&cap, &final);
	cswitch = capture_count_hook(&cap, 0x0524);
	ASSERT_EQ(0, capture_walk(&cap, NULL, NULL, &v));
	printf("# logger after fuzzing: %u buffers, %u CSwitch events, %llu lost\n",
	       cap.buffers, cswitch, (unsigned long long)final.events_lost);
	EXPECT_GE(cswitch, 50);
	EXPECT_EQ(0, v.violations) TH_LOG("%s", v.first_violation);
	/* the header buffer and every buffer the logger closed */
	EXPECT_EQ(cap.buffers, final.sequence_number + 1);
	capture_free(&cap);
	close(reader);
	expect_clean_kmsg(_metadata, self->kmsg);
}

TEST_HARNESS_MAIN
