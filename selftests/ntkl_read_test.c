// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl_read_test: read() into memory the kernel must not or cannot write
 * (issue 38). A read() whose buffer was NULL used to take NEXT_BUFFER's
 * path and write through a NULL pointer in the kernel: a user pointer is
 * data, never a mode.
 *
 * On a logger of every kind a reader meets (file, real-time, buffering,
 * stopped before the first read, a buffering snapshot paused half way),
 * before the header buffer, after it and after a data buffer, each bad
 * destination must fail with its errno (EFAULT for memory, EINVAL for a
 * length under one buffer) and leave that buffer to be read again: the
 * good reads that follow get buffers 0, 1, 2 ... with none missing, and
 * the whole file passes the strict checker. The kernel log stays clean
 * (vm-run also fails the run on any report). The mapped reader's
 * NEXT_BUFFER whose answer cannot be copied out (its struct in read-only
 * memory) likewise puts its buffer back.
 */
#define _GNU_SOURCE
#include <sys/mman.h>

#include "kselftest_harness.h"
#include "ntkl_reader.h"

#define READ_LOGGER	"ntkl read test"

/* Where a read() may be pointed, and what it must answer. */
struct dest {
	const char *what;
	void *ptr;
	size_t len;
	int err;		/* the errno: the read fails */
};

enum { D_NULL, D_UNMAPPED, D_READ_ONLY, D_STRADDLE, D_KERNEL, D_NONCANONICAL,
       D_OWN_MAPPING, D_SHORT, D_ZERO, D_COUNT };

FIXTURE(read) {
	int ctl, reader, kmsg;
	size_t size;		/* the logger's buffer size */
	uint32_t nbufs;		/* and how many it has */
	size_t page;
	uint8_t *good;		/* room for one buffer */
	uint8_t *ro, *none, *straddle;
	void *own_map;		/* the reader's own mapping of the logger, or NULL */
	struct dest dests[D_COUNT];
	struct capture cap;
	struct ntkl_properties final;	/* what STOP said */
	int64_t next_seq;	/* the sequence number the next good read must get */
	unsigned int bad_reads;
};

FIXTURE_VARIANT(read) {
	uint32_t mode;
	bool stop_first;	/* stopped before anything is read */
	bool read_ahead;	/* bad reads only once a buffer was read (a paused snapshot) */
};

FIXTURE_VARIANT_ADD(read, file) { .mode = NTKL_MODE_SEQUENTIAL };
FIXTURE_VARIANT_ADD(read, real_time) { .mode = NTKL_MODE_REAL_TIME };
FIXTURE_VARIANT_ADD(read, buffering) { .mode = NTKL_MODE_BUFFERING };
FIXTURE_VARIANT_ADD(read, stopped) { .mode = NTKL_MODE_REAL_TIME, .stop_first = true };
FIXTURE_VARIANT_ADD(read, paused) { .mode = NTKL_MODE_BUFFERING, .read_ahead = true };

static void *map_anon(size_t len, int prot)
{
	void *p = mmap(NULL, len, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

FIXTURE_SETUP(read)
{
	struct ntkl_properties p;
	size_t pages;

	self->ctl = ntkl_open();
	ASSERT_GE(self->ctl, 0) TH_LOG("open %s: %s", NTKL_DEVICE_PATH, strerror(errno));
	ntkl_stop_every_logger(self->ctl);
	self->kmsg = kmsg_open_at_end();
	self->page = sysconf(_SC_PAGESIZE);

	/* the case: process and thread events, in the variant's mode */
	props_init(&p, READ_LOGGER, EVENT_TRACE_FLAG_PROCESS | EVENT_TRACE_FLAG_THREAD);
	p.log_file_mode = variant->mode;
	ASSERT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_START, &p));
	self->size = (size_t)p.buffer_size_kb * 1024;
	self->nbufs = p.number_of_buffers;
	self->reader = ntkl_open();
	ASSERT_GE(self->reader, 0);
	ASSERT_EQ(0, ntkl_bind_id(self->reader, p.logger_id));
	run_execs("/bin/true", 20);
	props_select(&p, READ_LOGGER);
	ASSERT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_FLUSH, &p));
	if (variant->stop_first) {
		props_select(&self->final, READ_LOGGER);
		ASSERT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_STOP, &self->final));
	}

	pages = (self->size + self->page - 1) / self->page;
	self->good = map_anon(pages * self->page, PROT_READ | PROT_WRITE);
	self->ro = map_anon(pages * self->page, PROT_READ);
	self->none = map_anon(pages * self->page, PROT_NONE);
	/* whole but its last page: the copy faults part way through */
	self->straddle = map_anon(pages * self->page, PROT_READ | PROT_WRITE);
	ASSERT_TRUE(self->good && self->ro && self->none && self->straddle);
	ASSERT_EQ(0, mprotect(self->straddle + (pages - 1) * self->page, self->page, PROT_NONE));
	/* a reader that may see addresses may map its logger, read-only */
	self->own_map = mmap(NULL, self->size, PROT_READ, MAP_SHARED, self->reader, 0);
	if (self->own_map == MAP_FAILED)
		self->own_map = NULL;

	self->dests[D_NULL] = (struct dest){ "NULL (the issue's read(fd, NULL, 1 << 20))", NULL,
					     1 << 20, EFAULT };
	self->dests[D_UNMAPPED] = (struct dest){ "a PROT_NONE mapping", self->none, self->size,
						 EFAULT };
	self->dests[D_READ_ONLY] = (struct dest){ "a read-only mapping", self->ro, self->size,
						  EFAULT };
	self->dests[D_STRADDLE] = (struct dest){ "a buffer whose last page is PROT_NONE",
						 self->straddle, self->size, EFAULT };
	self->dests[D_KERNEL] = (struct dest){ "a kernel address",
					       (void *)0xffffffff81000000ul, self->size, EFAULT };
	self->dests[D_NONCANONICAL] = (struct dest){ "a non-canonical address",
						     (void *)0x8000000000000000ul, self->size,
						     EFAULT };
	self->dests[D_OWN_MAPPING] = (struct dest){ "the reader's own mapping of the logger",
						    self->own_map, self->size, EFAULT };
	self->dests[D_SHORT] = (struct dest){ "one byte short of a buffer", self->good,
					      self->size - 1, EINVAL };
	self->dests[D_ZERO] = (struct dest){ "NULL, 0 bytes", NULL, 0, EINVAL };
}

FIXTURE_TEARDOWN(read)
{
	size_t len = ((self->size + self->page - 1) / self->page) * self->page;

	if (self->own_map)
		munmap(self->own_map, self->size);
	munmap(self->good, len);
	munmap(self->ro, len);
	munmap(self->none, len);
	munmap(self->straddle, len);
	capture_free(&self->cap);
	close(self->reader);
	ntkl_stop_every_logger(self->ctl);
	close(self->ctl);
	if (self->kmsg >= 0)
		close(self->kmsg);
}

/* Every bad destination in turn: each fails with its errno, nothing is taken. */
static void read_bad(struct __test_metadata *_metadata, FIXTURE_DATA(read) *self,
		     const char *when)
{
	int i;

	for (i = 0; i < D_COUNT; i++) {
		const struct dest *d = &self->dests[i];
		ssize_t n;

		if (i == D_OWN_MAPPING && !d->ptr)
			continue;	/* this reader may not map its logger */
		errno = 0;
		n = read(self->reader, d->ptr, d->len);
		EXPECT_EQ(-1, n) TH_LOG("%s: read into %s returned %zd", when, d->what, n);
		EXPECT_EQ(d->err, errno) TH_LOG("%s: read into %s: %s, not %s", when, d->what,
						strerror(errno), strerror(d->err));
		self->bad_reads++;
	}
}

/*
 * A good read: the buffer the bad ones left, whole, numbered next.
 * Every other time the length is huge first: read() copies one buffer
 * whatever the length, or the VFS refuses a range that runs past the
 * user address space (EFAULT, 6.1's access_ok()) before ntkl sees it;
 * then the buffer is still next, for a read of its size. Returns its
 * size, 0 at the end.
 */
static ssize_t read_good(struct __test_metadata *_metadata, FIXTURE_DATA(read) *self)
{
	const struct wmi_buffer_header *h = (const void *)self->good;
	ssize_t n = -1;
	uint8_t *grown;

	if (self->next_seq & 1) {
		n = read(self->reader, self->good, (size_t)1 << 40);
		if (n < 0)
			EXPECT_EQ(EFAULT, errno) TH_LOG("a huge length: %s", strerror(errno));
	}
	if (n < 0)
		n = read(self->reader, self->good, self->size);

	if (n <= 0) {
		EXPECT_EQ(0, n) TH_LOG("a good read after %u bad ones: %s", self->bad_reads,
				       strerror(errno));
		return n;
	}
	EXPECT_EQ((ssize_t)self->size, n);
	EXPECT_EQ(self->next_seq, h->sequence_number)
		TH_LOG("after bad reads, buffer %lld came instead of %lld",
		       (long long)h->sequence_number, (long long)self->next_seq);
	self->next_seq = h->sequence_number + 1;
	grown = realloc(self->cap.data, self->cap.size + n);
	if (!grown)
		return -1;
	memcpy(grown + self->cap.size, self->good, n);
	self->cap.data = grown;
	self->cap.size += n;
	self->cap.buffers++;
	self->cap.buffer_size = self->size;
	return n;
}

TEST_F_TIMEOUT(read, bad_destinations, 120)
{
	struct ntkl_properties *final = &self->final;
	struct capture_verdict v;
	char first[512];
	ssize_t n;

	if (!variant->read_ahead)
		read_bad(_metadata, self, "before the header buffer");
	ASSERT_GT(read_good(_metadata, self), 0);	/* the header buffer */
	read_bad(_metadata, self, "after the header buffer");
	ASSERT_GT(read_good(_metadata, self), 0);	/* the first data buffer */
	read_bad(_metadata, self, "after a data buffer");

	if (!variant->stop_first) {
		props_select(final, READ_LOGGER);
		ASSERT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_STOP, final));
	}
	do
		n = read_good(_metadata, self);
	while (n > 0);
	ASSERT_EQ(0, n);
	/* at the end there is nothing to copy: 0, wherever it points */
	EXPECT_EQ(0, read(self->reader, self->dests[D_NULL].ptr, 1 << 20));

	capture_patch(&self->cap, final);
	ASSERT_EQ(0, capture_walk(&self->cap, NULL, NULL, &v));
	EXPECT_EQ(0, v.violations) TH_LOG("%s", v.first_violation);
	/* a snapshot holds what its buffers had; else every buffer closed */
	if (!(variant->mode & NTKL_MODE_BUFFERING))
		EXPECT_EQ(self->cap.buffers, final->sequence_number + 1);
	EXPECT_GE(capture_count_hook(&self->cap, 0x0301) +	/* Process/DCStart */
		  capture_count_hook(&self->cap, 0x0303), 1);
	printf("# %u bad reads refused; then %u buffers read whole, in order\n",
	       self->bad_reads, self->cap.buffers);
	fflush(stdout);
	if (self->kmsg >= 0) {
		EXPECT_EQ(0, kmsg_bad_since(self->kmsg, first, sizeof(first)))
			TH_LOG("the kernel log reports a bug: %s", first);
	}
}

/* The buffer a NEXT_BUFFER answer points at, kept as read_good() keeps its. */
static ssize_t next_good(struct __test_metadata *_metadata, FIXTURE_DATA(read) *self,
			 const uint8_t *map, size_t map_len)
{
	struct ntkl_next_buffer nb = { .size = sizeof(nb) };
	const struct wmi_buffer_header *h;
	uint8_t *grown;

	if (ioctl(self->reader, NTKL_IOC_NEXT_BUFFER, &nb)) {
		EXPECT_EQ(0, errno) TH_LOG("a good NEXT_BUFFER: %s", strerror(errno));
		return -1;
	}
	if (!nb.length)
		return 0;
	EXPECT_EQ(self->size, nb.length);
	if (nb.offset + nb.length > map_len)
		return -1;
	h = (const void *)(map + nb.offset);
	EXPECT_EQ(self->next_seq, h->sequence_number)
		TH_LOG("after a NEXT_BUFFER that faulted, buffer %lld came instead of %lld",
		       (long long)h->sequence_number, (long long)self->next_seq);
	self->next_seq = h->sequence_number + 1;
	grown = realloc(self->cap.data, self->cap.size + nb.length);
	if (!grown)
		return -1;
	memcpy(grown + self->cap.size, h, nb.length);
	self->cap.data = grown;
	self->cap.size += nb.length;
	self->cap.buffers++;
	self->cap.buffer_size = self->size;
	return nb.length;
}

/* NEXT_BUFFER with its struct in read-only memory: read, not answered. */
static void next_bad(struct __test_metadata *_metadata, FIXTURE_DATA(read) *self,
		     struct ntkl_next_buffer *ro, const char *when)
{
	errno = 0;
	EXPECT_EQ(-1, ioctl(self->reader, NTKL_IOC_NEXT_BUFFER, ro)) TH_LOG("%s", when);
	EXPECT_EQ(EFAULT, errno) TH_LOG("%s: %s", when, strerror(errno));
	self->bad_reads++;
}

TEST_F_TIMEOUT(read, next_buffer_answer_faults, 120)
{
	size_t stride = (self->size + self->page - 1) / self->page * self->page;
	size_t map_len = (1 + (size_t)self->nbufs) * stride;
	struct ntkl_properties *final = &self->final;
	struct ntkl_next_buffer *ro;
	struct capture_verdict v;
	const uint8_t *map;
	ssize_t n;

	map = mmap(NULL, map_len, PROT_READ, MAP_SHARED, self->reader, 0);
	if (map == MAP_FAILED)
		SKIP(return, "this reader may not map its logger: %s", strerror(errno));
	ro = mmap(NULL, self->page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	*ro = (struct ntkl_next_buffer){ .size = sizeof(*ro) };
	ASSERT_EQ(0, mprotect(ro, self->page, PROT_READ));

	next_bad(_metadata, self, ro, "before the header buffer");
	ASSERT_GT(next_good(_metadata, self, map, map_len), 0);
	next_bad(_metadata, self, ro, "after the header buffer");
	ASSERT_GT(next_good(_metadata, self, map, map_len), 0);
	next_bad(_metadata, self, ro, "after a data buffer");
	if (!variant->stop_first) {
		props_select(final, READ_LOGGER);
		ASSERT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_STOP, final));
	}
	do
		n = next_good(_metadata, self, map, map_len);
	while (n > 0);
	ASSERT_EQ(0, n);
	capture_patch(&self->cap, final);
	ASSERT_EQ(0, capture_walk(&self->cap, NULL, NULL, &v));
	EXPECT_EQ(0, v.violations) TH_LOG("%s", v.first_violation);
	if (!(variant->mode & NTKL_MODE_BUFFERING))
		EXPECT_EQ(self->cap.buffers, final->sequence_number + 1);
	printf("# %u NEXT_BUFFER answers that faulted; then %u buffers, in order\n",
	       self->bad_reads, self->cap.buffers);
	fflush(stdout);
	munmap(ro, self->page);
	munmap((void *)map, map_len);
}

TEST_HARNESS_MAIN
