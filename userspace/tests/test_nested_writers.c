// SPDX-License-Identifier: GPL-2.0
/*
 * Writers nested on one CPU, in every context at once: the module's own
 * per-CPU buffer code (module/transport/buffers.c, compiled here against
 * tests/kshim/kshim.h) with a task-context writer that a softirq writer
 * interrupts, which a hardirq writer interrupts, which an NMI writer
 * interrupts, at any of their steps, while the reader on another CPU
 * takes buffers between any two steps.
 *
 * The VM cannot do this: an NMI that writes needs a PMU, which qemu's TCG
 * does not have, and a real interrupt lands where it lands. Here every
 * step another context can see (each local_t operation, READ_ONCE,
 * WRITE_ONCE, clock reading) is a point where a seeded random choice
 * runs a nested writer (up to NMI depth) or a reader step, hundreds of
 * thousands of times. Checked, for every record and every buffer the
 * reader gets: records exactly fill each buffer, each record is intact,
 * written once, and in time order within its CPU's stream; every record
 * written is read, and written + lost = generated, the loss counted where
 * the module says (EventsLost, and EVENTS_LOST on a later buffer).
 */
#include "kshim.h"
#include "ntkl.h"
#include "test.h"
#include "transport/reserve.h"

#define DEPTH_NMI	3		/* task 0, softirq 1, hardirq 2, NMI 3 */
#define BUF_SIZE	1024
#define REC_HDR		16		/* u32 size, u32 id, u64 time */
#define MAX_IDS		(1u << 22)

struct model {
	/* the scenario */
	const char *name;
	unsigned int writes;		/* task-context records */
	unsigned int nest_per_256;	/* chance a point runs a nested writer */
	unsigned int read_per_256;	/* chance a point runs a reader step */
	unsigned int max_buffers;
	u32 mode;
	bool at;			/* task-context writers stamp a time read beforehand */

	/* the run */
	struct ntkl_logger lg;
	u64 rng;
	int depth;
	bool live;			/* allocated: points may interrupt */
	bool in_reader;
	u64 clock;
	u32 next_id, lost;
	u8 *written, *seen;		/* per id */
	u64 reads, nested[DEPTH_NMI + 1], lost_flags;
	u64 last_time;			/* of the last record read */
	s64 last_seq;
	char why[200];
};

static struct model *m;

void irq_work_queue(struct irq_work *work)
{
}

u64 ntkl_qpc_slow(void)
{
	kshim_point();
	return ++m->clock;
}

u64 ktime_get_mono_fast_ns(void)
{
	return ntkl_qpc_slow();
}

u64 ntkl_clock_system(void)
{
	return ntkl_qpc_slow();
}

void ntkl_redact_addresses(u8 *data, u32 filled)
{
}

static u32 rnd(void)
{
	m->rng ^= m->rng << 13;
	m->rng ^= m->rng >> 7;
	m->rng ^= m->rng << 17;
	return (u32)(m->rng >> 11);
}

static u8 pattern(u32 id, unsigned int i)
{
	return (u8)(id * 31 + i);
}

static void fail(const char *fmt, ...)
{
	va_list ap;

	if (m->why[0])
		return;
	va_start(ap, fmt);
	vsnprintf(m->why, sizeof(m->why), fmt, ap);
	va_end(ap);
}

/*
 * One record: reserve, write, commit, as format/record.h does, through
 * its inline fast path (transport/reserve.h) or straight through
 * buffers.c's, at random, so that both meet every interruption.
 */
static void write_record(void)
{
	unsigned int size = REC_HDR + 8 * (rnd() % 8), i;
	/*
	 * As in the module: the writers given a time are the switch probe's,
	 * in task context with interrupts off; the writers that interrupt
	 * them read their clock as they reserve (transport/reserve.h).
	 */
	bool at = m->at && m->depth == 0;
	struct ntkl_buffer *buf;
	u32 id = m->next_id++;
	u64 time = 0;
	u8 *p;

	if (id >= MAX_IDS) {
		fail("more than %u records", MAX_IDS);
		return;
	}
	if (at)
		time = ntkl_qpc_slow();
	if (rnd() % 2) {
		if (!ntkl_reserve_fast(&m->lg, size, &buf, &time, at, &p))
			p = at ? ntkl_reserve_at(&m->lg, size, &buf, &time) :
				 ntkl_reserve(&m->lg, size, &buf, &time);
	} else if (at) {
		p = ntkl_reserve_at(&m->lg, size, &buf, &time);
	} else {
		p = ntkl_reserve(&m->lg, size, &buf, &time);
	}
	if (!p) {
		m->lost++;
		return;
	}
	memcpy(p, &size, 4);
	memcpy(p + 4, &id, 4);
	kshim_point();			/* an interrupt while the record is half written */
	memcpy(p + 8, &time, 8);
	for (i = REC_HDR; i < size; i++)
		p[i] = pattern(id, i);
	m->written[id] = 1 + m->depth;
	/* NEST_DEBUG=1: every record as written, to follow a failure */
	if (getenv("NEST_DEBUG"))
		fprintf(stderr, "id %u depth %d time %llu buf %p off %ld\n", id, m->depth,
			(unsigned long long)time, (void *)buf, (long)(p - buf->data));
	ntkl_commit(buf, size);
}

/* Check one buffer the reader got. */
static void check_buffer(const u8 *data)
{
	const struct wmi_buffer_header *h = (const void *)data;
	u32 off = sizeof(*h), i;

	if (h->buffer_size != BUF_SIZE || h->saved_offset > BUF_SIZE ||
	    h->saved_offset < sizeof(*h))
		return fail("buffer %lld: size %u, filled %u", (long long)h->sequence_number,
			    h->buffer_size, h->saved_offset);
	if (h->sequence_number != m->last_seq + 1)
		fail("buffer %lld after buffer %lld", (long long)h->sequence_number,
		     (long long)m->last_seq);
	m->last_seq = h->sequence_number;
	/* CurrentOffset: where the fill would have gone, past the end */
	if (h->current_offset <= BUF_SIZE || h->current_offset - h->saved_offset > BUF_SIZE)
		fail("buffer %lld: CurrentOffset %u, SavedOffset %u",
		     (long long)h->sequence_number, h->current_offset, h->saved_offset);
	if (h->buffer_flag & ETW_BUFFER_FLAG_EVENTS_LOST)
		m->lost_flags++;
	while (off < h->saved_offset) {
		u32 size, id;
		u64 time;

		memcpy(&size, data + off, 4);
		memcpy(&id, data + off + 4, 4);
		memcpy(&time, data + off + 8, 8);
		if (size < REC_HDR || size % 8 || off + size > h->saved_offset || id >= m->next_id)
			return fail("buffer %lld offset %u: a corrupt record (size %u, id %u)",
				    (long long)h->sequence_number, off, size, id);
		if (m->seen[id]++)
			fail("record %u read twice", id);
		if (time < m->last_time)
			fail("buffer %lld offset %u: record %u at time %llu after time %llu",
			     (long long)h->sequence_number, off, id, (unsigned long long)time,
			     (unsigned long long)m->last_time);
		m->last_time = time;
		for (i = REC_HDR; i < size; i++)
			if (data[off + i] != pattern(id, i))
				return fail("record %u: byte %u overwritten", id, i);
		off += size;
	}
	for (i = h->saved_offset; i < BUF_SIZE; i++)
		if (data[i] != ETW_BUFFER_FILL_BYTE)
			return fail("buffer %lld: byte %u of the tail is not 0xFF",
				    (long long)h->sequence_number, i);
}

/* The reader: take the next buffer if it is complete. */
static bool reader_step(void)
{
	static u8 data[BUF_SIZE];
	unsigned long slot;
	u32 records;
	ssize_t n;

	/* as read() does: hold the next buffer, copy it, give it back */
	m->in_reader = true;
	n = ntkl_hold_buffer(&m->lg, &slot, &records, true, false);
	if (n > 0) {
		memcpy(data, ntkl_buffers_slot(&m->lg, slot), BUF_SIZE);
		ntkl_buffers_release(&m->lg);
	}
	m->in_reader = false;
	if (n <= 0)
		return false;
	if (m->reads++)			/* the first is the header buffer */
		check_buffer(data);
	return true;
}

/* An interrupt: one to three records from the next context up. */
static void nested_writer(void)
{
	unsigned int n = 1 + rnd() % 3;

	m->depth++;
	m->nested[m->depth]++;
	while (n--)
		write_record();
	m->depth--;
}

void kshim_point(void)
{
	u32 r;

	if (!m || !m->live || m->in_reader)
		return;
	r = rnd() % 256;
	if (r < m->nest_per_256 && m->depth < DEPTH_NMI)
		nested_writer();
	else if (r >= 128 && r - 128 < m->read_per_256)
		reader_step();
}

static void run(struct model *sc, u64 seed)
{
	struct ntkl_logger *lg = &sc->lg;
	u32 id, missing = 0;

	m = sc;
	m->rng = seed;
	m->written = calloc(MAX_IDS, 1);
	m->seen = calloc(MAX_IDS, 1);
	lg->buffer_size = BUF_SIZE;
	lg->max_buffers = sc->max_buffers;
	lg->mode = sc->mode;
	lg->clock_type = NTKL_CLOCK_QPC;
	ntkl_accept(lg, true);
	CHECK(m->written && m->seen && ntkl_buffers_alloc(lg) == 0);
	if (!m->written || !m->seen || !lg->rings)
		return;
	memset(lg->header, 0, BUF_SIZE);
	m->live = true;

	while (m->next_id < sc->writes && !m->why[0])
		write_record();
	/*
	 * Losses come only while a context we interrupted holds the ring in
	 * a step (a buffer half reserved, half dropped): with no interrupt,
	 * two rings' worth of records all get in.
	 */
	m->nest_per_256 = 0;
	if (sc->mode & NTKL_MODE_BUFFERING) {
		u32 lost = m->lost, n = 2 * sc->max_buffers * BUF_SIZE / REC_HDR;

		while (n-- && !m->why[0])
			write_record();
		if (m->lost != lost)
			fail("%u of the records written with no interrupt lost", m->lost - lost);
	}
	/* stop: no writer, close the current buffer, read everything */
	ntkl_accept(lg, false);
	ntkl_flush_cpus(lg);
	/* as the device reads a stopped logger (control/device.c) */
	while (reader_step() || (ntkl_buffers_final(lg), reader_step()))
		;
	m->live = false;		/* no more points: just count */

	for (id = 0; id < m->next_id; id++)
		missing += m->written[id] && !m->seen[id];
	if (!(sc->mode & NTKL_MODE_BUFFERING)) {
		/* nothing overwritten: every record written was read */
		if (missing)
			fail("%u records written were never read", missing);
		CHECK_EQ(ntkl_events_lost(lg), m->lost);
		if (m->lost && !m->lost_flags)
			fail("%u events lost but no buffer says EVENTS_LOST", m->lost);
	}
	if (m->why[0])
		test_fail("%s (seed %llu)", m->why, (unsigned long long)seed);
	/* the scenario did what it says */
	CHECK(m->nested[DEPTH_NMI] > 0);
	ntkl_buffers_free(lg);
	free(m->written);
	free(m->seen);
	m = NULL;
}

#define SEEDS	8

/* A scenario, from SEEDS seeds: its line says how much nesting it ran. */
static void scenario(const struct model *sc, u64 seed)
{
	u64 nested[DEPTH_NMI + 1] = { 0 }, records = 0, lost = 0;
	int i, d;

	test_begin("%s", sc->name);
	for (i = 0; i < SEEDS && !test_state_.failed; i++) {
		struct model run_sc = *sc;

		run(&run_sc, seed * 1000 + i);
		records += run_sc.next_id;
		lost += run_sc.lost;
		for (d = 0; d <= DEPTH_NMI; d++)
			nested[d] += run_sc.nested[d];
	}
	test_end();
	printf("#   %s: %llu records, %llu lost, nested: softirq %llu hardirq %llu NMI %llu\n",
	       sc->name, (unsigned long long)records, (unsigned long long)lost,
	       (unsigned long long)nested[1], (unsigned long long)nested[2],
	       (unsigned long long)nested[DEPTH_NMI]);
}

int main(void)
{
	/* a reader that keeps up: nothing lost, every interleaving of steps */
	scenario(&(struct model){ .name = "reader_keeps_up", .writes = 300000,
				 .nest_per_256 = 24, .read_per_256 = 16, .max_buffers = 4 },
		 1);
	/* the same with times read before reserving (a switch's CSwitch + CompCS) */
	scenario(&(struct model){ .name = "reader_keeps_up_time_given", .writes = 300000,
				 .nest_per_256 = 24, .read_per_256 = 16, .max_buffers = 4,
				 .at = true }, 2);
	/* a slow reader: the ring fills, events are lost and counted */
	scenario(&(struct model){ .name = "slow_reader_loses_counted", .writes = 300000,
				 .nest_per_256 = 24, .read_per_256 = 1, .max_buffers = 2 },
		 3);
	scenario(&(struct model){ .name = "slow_reader_loses_counted_time_given",
				 .writes = 300000, .nest_per_256 = 24, .read_per_256 = 1,
				 .max_buffers = 2, .at = true }, 4);
	/* buffering mode: no reader while recording, the oldest overwritten */
	scenario(&(struct model){ .name = "buffering_overwrites_oldest", .writes = 100000,
				 .nest_per_256 = 24, .max_buffers = 4,
				 .mode = NTKL_MODE_BUFFERING, .at = true }, 5);
	return test_exit();
}
