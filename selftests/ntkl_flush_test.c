// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl_flush_test: what a logger holds back reaches its reader when asked.
 * A real-time reader of a COMPACT_CSWITCH logger must see its context
 * switches after FLUSH (ntkl flush NAME) or after the flush timer fires
 * (-flushtimer), before the logger stops, as it does for a CSWITCH logger.
 * CompCS batches (PERFINFO_CCSWAP_BUFFER) wait in per-CPU memory until a
 * batch fills, ages, or is flushed: the flush must write them out.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <time.h>

#include "kselftest_harness.h"
#include "ntkl_reader.h"

#define LOGGER	"selftest flush"

/* A few hundred switches: two threads pass a byte back and forth. */
struct pingpong {
	int ab[2], ba[2];
	int rounds;
	pid_t pong_tid;
};

static void *pong(void *arg)
{
	struct pingpong *pp = arg;
	char c;
	int i;

	pp->pong_tid = syscall(SYS_gettid);
	for (i = 0; i < pp->rounds; i++) {
		if (read(pp->ab[0], &c, 1) != 1 || write(pp->ba[1], &c, 1) != 1)
			break;
	}
	return NULL;
}

/* Returns the pong thread's id, or -1. */
static pid_t ping_pong(int rounds)
{
	struct pingpong pp = { .rounds = rounds };
	pthread_t th;
	char c = 'x';
	int i;

	if (pipe(pp.ab) || pipe(pp.ba))
		return -1;
	pthread_create(&th, NULL, pong, &pp);
	for (i = 0; i < rounds; i++) {
		if (write(pp.ab[1], &c, 1) != 1 || read(pp.ba[0], &c, 1) != 1)
			break;
	}
	pthread_join(th, NULL);
	close(pp.ab[0]);
	close(pp.ab[1]);
	close(pp.ba[0]);
	close(pp.ba[1]);
	return i == rounds ? pp.pong_tid : -1;
}

/* Does a CSwitch or CompCS record name thread tid (as the old thread)? */
static bool names_thread(const struct etl_record *r, uint32_t tid)
{
	if (r->hook_id == ETW_EVENT_CSWITCH_HOOK &&
	    r->payload_len >= sizeof(struct wmi_contextswap)) {
		const struct wmi_contextswap *cs = (const void *)r->payload;

		return cs->old_thread_id == tid || cs->new_thread_id == tid;
	}
	if (r->hook_id == ETW_EVENT_COMPACT_CSWITCH_HOOK &&
	    r->payload_len >= sizeof(struct perfinfo_ccswap_buffer)) {
		const struct perfinfo_ccswap_buffer *b = (const void *)r->payload;
		int i;

		for (i = 0; i < PERFINFO_CCSWAP_MAX_TID; i++)
			if (b->tid_table[i] == tid)
				return true;
	}
	return false;
}

struct naming {
	uint16_t hook;
	uint32_t tid;
	unsigned int n;
};

static void count_naming(void *ctx, const struct etl_file *f, const struct etl_buffer *b,
			 const struct etl_record *r)
{
	struct naming *nm = ctx;

	nm->n += r && r->kind == ETL_KIND_KERNEL && r->hook_id == nm->hook &&
		 names_thread(r, nm->tid);
}

/*
 * Records of hook naming thread tid in the buffers read so far (buffer 0
 * is the header).
 */
static unsigned int count_hook(struct capture *c, uint16_t hook, uint32_t tid)
{
	struct naming nm = { hook, tid, 0 };

	if (!c->buffers)
		return 0;
	/* what is read so far is a file whose header says so */
	capture_logfile_header(c)->buffers_written = c->buffers;
	capture_walk(c, count_naming, &nm, NULL);
	return nm.n;
}

/* Read every buffer ready now (the reader is non-blocking). */
static int read_ready(int fd, size_t buffer_size, struct capture *c)
{
	for (;;) {
		uint8_t *grown = realloc(c->data, c->size + buffer_size);
		ssize_t n;

		if (!grown)
			return -ENOMEM;
		c->data = grown;
		c->buffer_size = buffer_size;
		n = read(fd, c->data + c->size, buffer_size);
		if (n < 0)
			return errno == EAGAIN ? 0 : -errno;
		if (n == 0)
			return 0;
		c->size += n;
		c->buffers++;
	}
}

/* Wait up to ms for a record of hook naming tid; the count seen. */
static unsigned int wait_for_hook(int fd, size_t buffer_size, struct capture *c,
				  uint16_t hook, uint32_t tid, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	unsigned int n = 0;
	int waited = 0;

	while (waited <= ms) {
		if (read_ready(fd, buffer_size, c))
			return 0;
		n = count_hook(c, hook, tid);
		if (n)
			break;
		poll(&pfd, 1, 100);
		waited += 100;
	}
	return n;
}

FIXTURE(flush) {
	int ctl;
	int reader;
};

FIXTURE_VARIANT(flush) {
	bool compact;		/* COMPACT_CSWITCH, else CSWITCH */
	uint32_t flush_timer;	/* seconds; 0: NTKL_IOC_FLUSH instead */
};

FIXTURE_VARIANT_ADD(flush, compact_on_flush) { .compact = true, .flush_timer = 0 };
FIXTURE_VARIANT_ADD(flush, compact_on_flush_timer) { .compact = true, .flush_timer = 1 };
FIXTURE_VARIANT_ADD(flush, cswitch_on_flush) { .compact = false, .flush_timer = 0 };
FIXTURE_VARIANT_ADD(flush, cswitch_on_flush_timer) { .compact = false, .flush_timer = 1 };

FIXTURE_SETUP(flush)
{
	self->ctl = ntkl_open();
	ASSERT_GE(self->ctl, 0);
	self->reader = open(NTKL_DEVICE_PATH, O_RDWR | O_CLOEXEC | O_NONBLOCK);
	ASSERT_GE(self->reader, 0);
}

FIXTURE_TEARDOWN(flush)
{
	/* a failed case leaves no logger running into the next */
	ntkl_stop_every_logger(self->ctl);
	close(self->reader);
	close(self->ctl);
}

/* Switches reach a running logger's reader on FLUSH or on the flush timer. */
TEST_F_TIMEOUT(flush, switches_before_stop, 120)
{
	uint16_t hook = variant->compact ? ETW_EVENT_COMPACT_CSWITCH_HOOK : ETW_EVENT_CSWITCH_HOOK;
	struct ntkl_properties p, q;
	struct capture c = { 0 };
	size_t bsize;
	unsigned int seen;
	pid_t tid;

	props_init(&p, LOGGER, 0);
	p.group_masks[1] = PERF_GET_MASK_GROUP(PERF_CONTEXT_SWITCH) |
			   (variant->compact ? PERF_GET_MASK_GROUP(PERF_COMPACT_CSWITCH) : 0);
	p.flush_timer = variant->flush_timer;
	ASSERT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_START, &p));
	bsize = p.buffer_size_kb * 1024;
	ASSERT_EQ(0, ntkl_bind_id(self->reader, p.logger_id));
	/* the header buffer and the start rundown's buffers, if any are closed */
	ASSERT_EQ(0, read_ready(self->reader, bsize, &c));

	/*
	 * Fewer switches than fill a 64 KB buffer or a 1 KB CompCS batch, in
	 * less time than a batch lives (500 ticks, 2 s at HZ=250)...
	 */
	tid = ping_pong(20);
	ASSERT_GT(tid, 0);
	if (!variant->flush_timer) {
		props_select(&q, LOGGER);
		ASSERT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_FLUSH, &q));
	}
	/* ...so only the flush hands them over, within the timer's period */
	seen = wait_for_hook(self->reader, bsize, &c, hook, tid,
			     variant->flush_timer ? 1500 : 300);
	EXPECT_GT(seen, 0) TH_LOG("no %s record before STOP (%u buffers read)",
				  variant->compact ? "CompCS" : "CSwitch", c.buffers);
	capture_free(&c);
}

TEST_HARNESS_MAIN
