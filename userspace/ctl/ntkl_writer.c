// SPDX-License-Identifier: GPL-2.0
/*
 * Drain a bound logger into an ETL file and patch its header. See
 * ntkl_writer.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "etl/etl_io.h"
#include "etl/etl_reader.h"
#include "etl/etl_xpress.h"
#include "ntkl_sysconfig.h"
#include "ntkl_time_zone.h"
#include "ntkl_writer.h"
#include "ctl/ntkl_ctl.h"

static size_t page_size(void)
{
	long page = sysconf(_SC_PAGESIZE);

	return page > 0 ? (size_t)page : 4096;
}

/*
 * Map the logger's buffers if the module lets this reader (ntkl_writer.h);
 * where it does not, or in_fd is no logger (a test's pipe), w->map stays
 * NULL and the writer reads.
 */
static void map_buffers(struct ntkl_writer *w)
{
	struct ntkl_properties p;
	size_t page = page_size();
	size_t stride;
	void *m;

	if (ntkl_query_bound(w->in_fd, &p) ||
	    p.buffer_size_kb * 1024ULL != w->buffer_size || !p.number_of_buffers)
		return;
	stride = ((size_t)w->buffer_size + page - 1) / page * page;
	w->map_len = (1 + (size_t)p.number_of_buffers) * stride;
	m = mmap(NULL, w->map_len, PROT_READ, MAP_SHARED, w->in_fd, 0);
	if (m != MAP_FAILED)
		w->map = m;
}

int ntkl_writer_init(struct ntkl_writer *w, int in_fd, int out_fd,
		    uint32_t buffer_size)
{
	void *mem;

	memset(w, 0, sizeof(*w));
	w->in_fd = in_fd;
	w->out_fd = out_fd;
	w->buffer_size = buffer_size;
	w->direct = NTKL_DIRECT_NONE;
	/* aligned, so that direct I/O can take the buffers written from here */
	if (posix_memalign(&mem, page_size(), buffer_size))
		mem = NULL;
	w->buf = mem;
	if (!w->buf) {
		snprintf(w->error, sizeof(w->error), "cannot allocate a %u-byte buffer",
			 buffer_size);
		return -ENOMEM;
	}
	w->cur = w->buf;
	w->cur_records = -1;
	map_buffers(w);
	return 0;
}

void ntkl_writer_free(struct ntkl_writer *w)
{
	/* writes in flight read the mapping: done before it goes */
	ntkl_inflight_exit(&w->inflight);
	if (w->map)
		munmap((void *)w->map, w->map_len);
	w->map = NULL;
	ntkl_direct_close(&w->direct);
	free(w->buf);
	free(w->cbuf);
	w->buf = NULL;
	w->cbuf = NULL;
}

int ntkl_writer_compress(struct ntkl_writer *w)
{
	w->cbuf_cap = ETL_BUFFER_HEADER_SIZE + etl_xpress_bound(w->buffer_size);
	w->cbuf = malloc(w->cbuf_cap);
	if (!w->cbuf) {
		snprintf(w->error, sizeof(w->error), "cannot allocate a %zu-byte buffer",
			 w->cbuf_cap);
		return -ENOMEM;
	}
	return 0;
}

/*
 * What goes to the file for the buffer at w->cur: itself, or compressed
 * (ntkl_writer_compress()); -errno if it cannot be compressed.
 */
static int on_disk(struct ntkl_writer *w, const uint8_t **p, size_t *len)
{
	struct wmi_buffer_header bh;
	uint32_t mode;
	size_t n;

	*p = w->cur;
	*len = w->buffer_size;
	if (!w->cbuf)
		return 0;
	if (w->taken == 0) {
		/* the header buffer stays whole: readers need it as it is */
		memcpy(&mode, w->buf + ETL_LOGFILE_HEADER_OFFSET +
		       offsetof(struct trace_logfile_header, log_file_mode), sizeof(mode));
		mode |= EVENT_TRACE_COMPRESSED_MODE;
		memcpy(w->buf + ETL_LOGFILE_HEADER_OFFSET +
		       offsetof(struct trace_logfile_header, log_file_mode), &mode, sizeof(mode));
		return 0;
	}
	memcpy(&bh, w->cur, sizeof(bh));
	if (bh.saved_offset < ETL_BUFFER_HEADER_SIZE || bh.saved_offset > w->buffer_size ||
	    etl_xpress_compress(w->cur + ETL_BUFFER_HEADER_SIZE,
				bh.saved_offset - ETL_BUFFER_HEADER_SIZE,
				w->cbuf + ETL_BUFFER_HEADER_SIZE,
				w->cbuf_cap - ETL_BUFFER_HEADER_SIZE, &n)) {
		snprintf(w->error, sizeof(w->error), "cannot compress buffer %llu",
			 (unsigned long long)w->taken);
		return -EIO;
	}
	bh.buffer_size = (uint32_t)(ETL_BUFFER_HEADER_SIZE + n);
	bh.buffer_flag |= ETW_BUFFER_FLAG_COMPRESSED;
	memcpy(w->cbuf, &bh, sizeof(bh));
	*p = w->cbuf;
	*len = bh.buffer_size;
	return 0;
}

/*
 * Cut a half-written buffer off the end, so that the file stays readable.
 * If even that fails, the write error already says what went wrong.
 */
static void cut_back(int fd, uint64_t len)
{
	if (ftruncate(fd, (off_t)len) < 0)
		return;
}

/*
 * Records in a data buffer, for the progress line and the summary: as
 * the module counted them (mapped), else walked.
 */
static uint64_t count_records(const struct ntkl_writer *w)
{
	struct etl_buffer b;

	if (w->cur_records >= 0)
		return (uint64_t)w->cur_records;
	memset(&b, 0, sizeof(b));
	memcpy(&b.hdr, w->cur, sizeof(b.hdr));
	b.index = (uint32_t)w->taken;
	b.offset = w->next_offset;
	b.data = w->cur;
	/* the walk trusts filled: keep it inside the buffer we read */
	if (b.hdr.saved_offset < ETL_BUFFER_HEADER_SIZE ||
	    b.hdr.saved_offset > w->buffer_size)
		return 0;
	b.filled = b.hdr.saved_offset;
	return etl_count_records(&b);
}

/* Remember the first failure: every later step returns it. */
static int fail(struct ntkl_writer *w, int err)
{
	w->failed = err;
	return err;
}

static int keep_whole(struct ntkl_writer *w);

/* A buffer's write is done, and every earlier one's: it is in the file. */
static int written(struct ntkl_writer *w, uint64_t off, size_t len, uint64_t events)
{
	w->buffers++;
	w->events += events;
	w->last_offset = off;
	w->bytes = off + len;
	return keep_whole(w);
}

/*
 * The oldest write in flight, done (wait: waiting for it), its buffer
 * to be given back: 1, 0 if none is done, or -errno. What a direct write
 * left unwritten (refused, short) is written buffered first.
 */
static int complete_oldest(struct ntkl_writer *w, bool wait)
{
	struct ntkl_inflight_write iw;
	int ret = ntkl_inflight_pop(&w->inflight, wait, &iw);

	if (ret < 0) {
		snprintf(w->error, sizeof(w->error), "waiting for buffer %llu's write: %s",
			 (unsigned long long)w->buffers, strerror(-ret));
		return fail(w, ret);
	}
	if (!ret)
		return 0;
	w->release++;
	ret = ntkl_direct_complete(&w->direct, w->out_fd, iw.p, iw.len, iw.off, iw.res);
	if (ret) {
		snprintf(w->error, sizeof(w->error), "writing buffer %llu: %s",
			 (unsigned long long)w->buffers, strerror(-ret));
		return fail(w, ret);
	}
	ret = written(w, iw.off, iw.len, iw.events);
	return ret < 0 ? ret : 1;
}

/*
 * Every write in flight done. After a failure the file ends with the
 * last buffer written whole: what came after it is cut off again.
 */
static void settle(struct ntkl_writer *w)
{
	struct ntkl_inflight_write iw;

	while (w->inflight.count) {
		if (w->failed ? ntkl_inflight_pop(&w->inflight, true, &iw) < 0 :
				complete_oldest(w, true) < 0 && !w->failed)
			break;
	}
	if (w->failed && w->async)
		cut_back(w->out_fd, w->bytes);
}

/*
 * The logger's next buffer where it lies in the mapping (w->cur), the
 * header buffer copied to w->buf to be completed: 1, 0 at the end, or
 * -errno. The module keeps it for us until we give it back: at the next
 * call, or with writes in flight once its write is done.
 */
static int next_mapped(struct ntkl_writer *w)
{
	struct ntkl_next_buffer nb;
	int r, err;

	for (;;) {
		/* writes done give their buffers back; a full queue waits for its oldest */
		while (w->async && (r = complete_oldest(w, ntkl_inflight_full(&w->inflight))))
			if (r < 0)
				return r;
		memset(&nb, 0, sizeof(nb));
		nb.size = sizeof(nb);
		if (w->async) {
			/* while writes are in flight, wait for them rather than the logger */
			nb.flags = NTKL_NEXT_KEEP | (w->inflight.count ? NTKL_NEXT_NOWAIT : 0);
			nb.release = w->release;
		}
		r = ioctl(w->in_fd, NTKL_IOC_NEXT_BUFFER, &nb);
		err = r < 0 ? errno : 0;
		/* given back, and on every error but EINVAL too (uapi/ntkl.h) */
		if (err != EINVAL)
			w->release = 0;
		if (!r)
			break;
		if (err == EINTR)
			continue;
		if (w->async && (err == EAGAIN || err == EBUSY) && w->inflight.count) {
			r = complete_oldest(w, true);
			if (r < 0)
				return r;
			continue;
		}
		if (w->async && err == EINVAL) {
			/* a buffering-mode logger (or an older module): one at a time */
			settle(w);
			if (w->failed)
				return w->failed;
			w->async = 0;
			w->release = 0;
			continue;
		}
		snprintf(w->error, sizeof(w->error), "reading buffer %llu from the logger: %s",
			 (unsigned long long)w->taken, strerror(err));
		return fail(w, -err);
	}
	if (nb.length == 0) {
		settle(w);
		return w->failed ? w->failed : 0;
	}
	if (nb.length != w->buffer_size || nb.offset > w->map_len - nb.length) {
		snprintf(w->error, sizeof(w->error),
			 "reading buffer %llu from the logger: %u bytes at %llu, past the %zu mapped",
			 (unsigned long long)w->taken, nb.length,
			 (unsigned long long)nb.offset, w->map_len);
		return fail(w, -EIO);
	}
	w->cur = w->map + nb.offset;
	w->cur_records = nb.records;
	if (w->taken == 0) {
		memcpy(w->buf, w->cur, w->buffer_size);
		w->cur = w->buf;
	}
	return 1;
}

/*
 * One buffer from the logger at w->cur (in w->buf, or where it lies
 * mapped): 1, 0 at the end, or -errno.
 */
static int read_one(struct ntkl_writer *w)
{
	ssize_t n;

	if (w->map)
		return next_mapped(w);
	w->cur = w->buf;
	w->cur_records = -1;
	do
		n = read(w->in_fd, w->buf, w->buffer_size);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		int err = errno;

		snprintf(w->error, sizeof(w->error), "reading buffer %llu from the logger: %s",
			 (unsigned long long)w->taken, strerror(err));
		return fail(w, -err);
	}
	if (n == 0)
		return 0;
	/* the device hands out whole buffers only */
	if ((size_t)n != w->buffer_size) {
		snprintf(w->error, sizeof(w->error),
			 "reading buffer %llu from the logger: got %zd bytes, a buffer is %u",
			 (unsigned long long)w->taken, n, w->buffer_size);
		return fail(w, -EIO);
	}
	return 1;
}

/*
 * The header's counts as they are now, so that a file cut here (the
 * writer killed, the machine down, the disk full) opens with every buffer
 * it has: 1, or -errno.
 */
static int keep_whole(struct ntkl_writer *w)
{
	struct etl_header_patch patch;
	char err[128];
	int ret;

	ntkl_writer_patch_from(w, NULL, &patch);
	ret = etl_header_patch_fd(w->out_fd, &patch, err, sizeof(err));
	if (ret == -ESPIPE)
		return 1;	/* a pipe: nothing to keep whole */
	if (ret) {
		snprintf(w->error, sizeof(w->error), "after buffer %llu: %s",
			 (unsigned long long)w->buffers - 1, err);
		return fail(w, ret);
	}
	return 1;
}

/*
 * The header buffer, completed by the one who writes the file: the module
 * knows neither the file nor the zone beyond sys_tz's minutes.
 */
static int complete_header(struct ntkl_writer *w)
{
	struct etw_time_zone_information tz;
	char full[PATH_MAX];
	const char *name = NULL;

	ntkl_time_zone((int64_t)time(NULL), &tz);
	if (w->path)
		name = realpath(w->path, full) ? full : w->path;
	if (!etl_header_complete(w->buf, w->buffer_size, name, &tz, w->error,
				 sizeof(w->error)))
		return 0;
	/* a name too long for the header buffer: the file without it */
	if (name && !etl_header_complete(w->buf, w->buffer_size, NULL, &tz, w->error,
					 sizeof(w->error)))
		return 0;
	return -EINVAL;
}

/*
 * At the first buffer, how to write them all (ntkl_writer.h): buffered,
 * unless NTKL_DIRECT_IO=1 asks for direct I/O and the file system allows
 * it; then with writes in flight where the buffers are mapped and the
 * kernel has io_uring, else one at a time. Compressed buffers differ in
 * size: never direct.
 */
static void choose_io(struct ntkl_writer *w)
{
	const char *v = getenv("NTKL_DIRECT_IO");

	if (w->cbuf || !v || strcmp(v, "1"))
		return;
	if (ntkl_direct_open(&w->direct, w->out_fd, w->buffer_size, page_size()))
		return;
	w->at_offsets = 1;
	if (w->map && !ntkl_inflight_init(&w->inflight))
		w->async = 1;
}

/*
 * The buffer at w->cur to the file (compressed if asked), counted; one
 * the logger gave (from_logger) is given back once written: 1 or -errno.
 */
static int put_buffer(struct ntkl_writer *w, bool from_logger)
{
	const uint8_t *data;
	uint64_t events = 0;
	size_t len;
	int ret;

	if (w->taken > 0) {
		memcpy(&w->last_data, w->cur, sizeof(w->last_data));
		if (w->last_data.timestamp > w->max_time)
			w->max_time = w->last_data.timestamp;
		events = count_records(w);
	}
	ret = on_disk(w, &data, &len);
	if (ret)
		return fail(w, ret);
	if (w->taken == 0)
		choose_io(w);
	w->taken++;
	/* a mapped buffer, in flight: given back once written */
	if (w->async && from_logger && data != w->buf &&
	    ntkl_direct_usable(&w->direct, data, len) &&
	    !ntkl_inflight_submit(&w->inflight, w->direct.fd, data, (uint32_t)len,
				  w->next_offset, events)) {
		w->next_offset += len;
		return 1;
	}
	/* here and now, after the writes in flight: the file grows in order */
	settle(w);
	if (w->failed)
		return w->failed;
	if (w->at_offsets)
		ret = ntkl_direct_pwrite(&w->direct, w->out_fd, data, len, w->next_offset);
	else
		ret = etl_write_all(w->out_fd, data, len, -1);
	if (ret) {
		snprintf(w->error, sizeof(w->error), "writing buffer %llu: %s",
			 (unsigned long long)w->buffers, strerror(-ret));
		cut_back(w->out_fd, w->bytes);
		return fail(w, ret);
	}
	if (w->async && from_logger)
		w->release++;
	w->next_offset += len;
	ret = written(w, w->next_offset - len, len, events);
	return ret < 0 ? ret : 1;
}

int ntkl_writer_step(struct ntkl_writer *w)
{
	int ret;

	/* after a failed write the file offset is past the end: stop there */
	if (w->failed)
		return w->failed;
	ret = read_one(w);
	if (ret <= 0)
		return ret;
	if (w->taken == 0) {
		ret = complete_header(w);
		if (ret)
			return fail(w, ret);
	}
	return put_buffer(w, true);
}

/*
 * SystemConfig PhyDisk and LogDisk (ntkl_sysconfig.h), which the module
 * cannot write, in one last buffer of their own: 1 written, 0 none (no
 * disk, or no data buffer to model it on), -errno.
 */
static int put_sysconfig(struct ntkl_writer *w)
{
	if (w->buffers < 2 ||
	    !ntkl_sysconfig_disks(w->buf, w->buffer_size, &w->last_data,
				  (int64_t)w->buffers, w->max_time))
		return 0;
	w->cur = w->buf;
	w->cur_records = -1;
	return put_buffer(w, false);
}

int ntkl_writer_drain(struct ntkl_writer *w)
{
	int ret;

	while ((ret = ntkl_writer_step(w)) > 0)
		;
	return ret;
}

void ntkl_writer_patch_from(const struct ntkl_writer *w,
			   const struct ntkl_properties *final,
			   struct etl_header_patch *patch)
{
	etl_header_patch_init(patch, w->buffers, final);
}

int ntkl_writer_finish(struct ntkl_writer *w, const struct ntkl_properties *final)
{
	struct etl_header_patch patch;
	int ret;

	/* the header counts what is in the file: every write done first */
	settle(w);
	if (w->buffers == 0) {
		snprintf(w->error, sizeof(w->error),
			 "the logger gave no buffer, not even the header: the file is empty");
		return -ENODATA;
	}
	ntkl_writer_patch_from(w, final, &patch);
	ret = etl_header_patch_fd(w->out_fd, &patch, w->error, sizeof(w->error));
	if (!ret)
		ret = etl_mark_last_buffer_fd(w->out_fd, w->last_offset, w->error,
					      sizeof(w->error));
	if (ret)
		return ret;
	/* the file is complete once we say so: make it so on disk too */
	if (fsync(w->out_fd) < 0 && errno != EINVAL && errno != EROFS) {
		ret = -errno;
		snprintf(w->error, sizeof(w->error), "fsync: %s", strerror(-ret));
		return ret;
	}
	return 0;
}

int ntkl_writer_end(struct ntkl_writer *w, int error, struct ntkl_properties *final)
{
	char first[sizeof(w->error)];
	int ret;

	if (!error)
		error = ntkl_writer_drain(w);
	/* after an error too: what is in flight lands, or is cut off */
	settle(w);
	/* Windows writes SystemConfig at the end: the disks last */
	if (!error) {
		ret = put_sysconfig(w);
		error = ret < 0 ? ret : 0;
	}
	if (ntkl_query_bound(w->in_fd, final))
		memset(final, 0, sizeof(*final));
	if (!w->buffers) {
		if (!error) {
			snprintf(w->error, sizeof(w->error),
				 "the logger gave no buffer, not even the header: the file is empty");
			error = -ENODATA;
		}
		return error;
	}
	snprintf(first, sizeof(first), "%s", w->error);
	ret = ntkl_writer_finish(w, final);
	if (error) {
		/* the first error is the one to tell */
		snprintf(w->error, sizeof(w->error), "%s", first);
		return error;
	}
	return ret;
}

