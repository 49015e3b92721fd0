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
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "etl/etl_reader.h"
#include "etl/etl_utf16.h"
#include "etl/etl_xpress.h"
#include "ntkl_state.h"
#include "ntkl_sysconfig.h"
#include "ntkl_writer.h"
#include "ctl/ntkl_ctl.h"

/* The Header event: first record of buffer 0, a SYSTEM64 header, then this. */
#define HEADER_EVENT_OFFSET	ETL_BUFFER_HEADER_SIZE
#define LOGFILE_HEADER_OFFSET	(HEADER_EVENT_OFFSET + sizeof(struct system_trace_header))
#define PATCH_BYTES		(LOGFILE_HEADER_OFFSET + sizeof(struct trace_logfile_header))

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
		memcpy(&mode, w->buf + LOGFILE_HEADER_OFFSET +
		       offsetof(struct trace_logfile_header, log_file_mode), sizeof(mode));
		mode |= EVENT_TRACE_COMPRESSED_MODE;
		memcpy(w->buf + LOGFILE_HEADER_OFFSET +
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

int ntkl_write_all(int fd, const uint8_t *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
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

static void ascii_to_utf16(const char *src, uint16_t *dst, size_t units)
{
	size_t i;

	memset(dst, 0, units * 2);
	for (i = 0; src && src[i] && i + 1 < units; i++)
		dst[i] = (unsigned char)src[i];
}

/* Windows' recurring date of a transition: the wall clock before it. */
static void transition_date(time_t t, long old_gmtoff, struct etw_systemtime *d)
{
	static const int mdays[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	time_t wall = t + old_gmtoff;
	struct tm tm;
	int days;

	gmtime_r(&wall, &tm);
	days = mdays[tm.tm_mon];
	if (tm.tm_mon == 1 && ((tm.tm_year % 4 == 0 && tm.tm_year % 100 != 0) ||
			       (tm.tm_year + 1900) % 400 == 0))
		days = 29;
	memset(d, 0, sizeof(*d));
	d->month = (uint16_t)(tm.tm_mon + 1);
	d->day_of_week = (uint16_t)tm.tm_wday;
	/* the n-th such weekday of the month; 5 if it is the last */
	d->day = tm.tm_mday + 7 > days ? 5 : (uint16_t)((tm.tm_mday - 1) / 7 + 1);
	d->hour = (uint16_t)tm.tm_hour;
	d->minute = (uint16_t)tm.tm_min;
	d->second = (uint16_t)tm.tm_sec;
}

/* The first second in (lo, hi] whose tm_isdst differs from lo's. */
static time_t find_change(time_t lo, time_t hi)
{
	struct tm a, m;

	localtime_r(&lo, &a);
	while (hi - lo > 1) {
		time_t mid = lo + (hi - lo) / 2;

		localtime_r(&mid, &m);
		if (m.tm_isdst == a.tm_isdst && m.tm_gmtoff == a.tm_gmtoff)
			lo = mid;
		else
			hi = mid;
	}
	return hi;
}

void ntkl_time_zone(int64_t now, struct etw_time_zone_information *tz)
{
	time_t t = (time_t)now, year_start, step, when;
	struct tm tm, prev, cur;
	long std_off, dst_off;
	bool have_std = false, have_dst = false;
	char std_name[32] = "", dst_name[32] = "";

	memset(tz, 0, sizeof(*tz));
	tzset();
	localtime_r(&t, &tm);
	tm.tm_mon = 0;
	tm.tm_mday = 1;
	tm.tm_hour = 0;
	tm.tm_min = 0;
	tm.tm_sec = 0;
	tm.tm_isdst = -1;
	year_start = mktime(&tm);
	std_off = tm.tm_gmtoff;
	dst_off = tm.tm_gmtoff;
	/* walk the year by hours; each change found to the second */
	localtime_r(&year_start, &prev);
	for (step = year_start; step < year_start + 366 * 86400; step += 3600) {
		time_t next = step + 3600;

		localtime_r(&next, &cur);
		if (cur.tm_isdst != prev.tm_isdst || cur.tm_gmtoff != prev.tm_gmtoff) {
			when = find_change(step, next);
			localtime_r(&when, &cur);
			if (cur.tm_isdst > 0 && !have_dst) {
				/* summer time begins: DaylightDate, in standard time */
				transition_date(when, prev.tm_gmtoff, &tz->daylight_date);
				have_dst = true;
			} else if (cur.tm_isdst == 0 && !have_std) {
				transition_date(when, prev.tm_gmtoff, &tz->standard_date);
				have_std = true;
			}
		}
		if (cur.tm_isdst > 0) {
			dst_off = cur.tm_gmtoff;
			snprintf(dst_name, sizeof(dst_name), "%s", cur.tm_zone ? cur.tm_zone : "");
		} else {
			std_off = cur.tm_gmtoff;
			snprintf(std_name, sizeof(std_name), "%s", cur.tm_zone ? cur.tm_zone : "");
		}
		prev = cur;
	}
	tz->bias = (int32_t)(-std_off / 60);
	tz->standard_bias = 0;
	if (have_dst && have_std) {
		tz->daylight_bias = (int32_t)(-(dst_off - std_off) / 60);
	} else {
		memset(&tz->standard_date, 0, sizeof(tz->standard_date));
		memset(&tz->daylight_date, 0, sizeof(tz->daylight_date));
		tz->daylight_bias = 0;
	}
	ascii_to_utf16(std_name, tz->standard_name, 32);
	ascii_to_utf16(dst_name[0] ? dst_name : std_name, tz->daylight_name, 32);
}

/* Bytes of the NUL-terminated UTF-16 string at p (terminator in), or 0. */
static size_t utf16_bytes(const uint8_t *p, size_t max)
{
	size_t i;

	for (i = 0; i + 1 < max; i += 2)
		if (!p[i] && !p[i + 1])
			return i + 2;
	return 0;
}

#define ALIGN8(x)	(((x) + 7) & ~(size_t)7)

int etl_header_complete(uint8_t *buf, size_t size, const char *log_file_name,
			const struct etw_time_zone_information *tz,
			char *err, size_t err_size)
{
	struct wmi_buffer_header bh;
	struct system_trace_header ev;
	uint8_t name16[2 * PATH_MAX + 2];
	size_t strings, logger_bytes, file_bytes, old_file_bytes;
	size_t old_end, new_end, filled, new_size;

	if (size < PATCH_BYTES) {
		snprintf(err, err_size, "a %zu-byte buffer holds no header", size);
		return -1;
	}
	memcpy(&bh, buf, sizeof(bh));
	memcpy(&ev, buf + HEADER_EVENT_OFFSET, sizeof(ev));
	filled = bh.saved_offset;
	if (((ev.marker >> 16) & 0xFF) != ETW_HEADER_TYPE_SYSTEM64 ||
	    ev.hook_id != ETW_EVENT_HEADER_HOOK || ev.size < PATCH_BYTES - HEADER_EVENT_OFFSET ||
	    filled > size || HEADER_EVENT_OFFSET + ALIGN8(ev.size) > filled) {
		snprintf(err, err_size,
			 "buffer 0 does not start with the Header event (marker 0x%08x, hook 0x%04x, size 0x%x)",
			 ev.marker, ev.hook_id, ev.size);
		return -1;
	}
	if (tz) {
		struct trace_logfile_header h;

		memcpy(&h, buf + LOGFILE_HEADER_OFFSET, sizeof(h));
		h.time_zone = *tz;
		memcpy(buf + LOGFILE_HEADER_OFFSET, &h, sizeof(h));
	}
	if (!log_file_name)
		return 0;
	strings = PATCH_BYTES;
	old_end = HEADER_EVENT_OFFSET + ev.size;
	logger_bytes = utf16_bytes(buf + strings, old_end - strings);
	old_file_bytes = logger_bytes ? utf16_bytes(buf + strings + logger_bytes,
						    old_end - strings - logger_bytes) : 0;
	if (!old_file_bytes) {
		snprintf(err, err_size, "the Header event's names are not terminated");
		return -1;
	}
	file_bytes = etl_utf8_to_utf16(log_file_name, name16, sizeof(name16));
	if (!file_bytes) {
		snprintf(err, err_size, "the file name is too long for the Header event");
		return -1;
	}
	new_size = strings + logger_bytes + file_bytes - HEADER_EVENT_OFFSET;
	old_end = HEADER_EVENT_OFFSET + ALIGN8(ev.size);
	new_end = HEADER_EVENT_OFFSET + ALIGN8(new_size);
	if (new_size > UINT16_MAX || filled - old_end + new_end > size) {
		snprintf(err, err_size, "the file name does not fit in the header buffer");
		return -1;
	}
	/* the records after the Header event move with its end */
	memmove(buf + new_end, buf + old_end, filled - old_end);
	memcpy(buf + strings + logger_bytes, name16, file_bytes);
	memset(buf + strings + logger_bytes + file_bytes, 0,
	       new_end - (strings + logger_bytes + file_bytes));
	ev.size = (uint16_t)new_size;
	memcpy(buf + HEADER_EVENT_OFFSET, &ev, sizeof(ev));
	filled = filled - old_end + new_end;
	memset(buf + filled, ETW_BUFFER_FILL_BYTE, size - filled);
	bh.saved_offset = (uint32_t)filled;
	bh.current_offset = (uint32_t)filled;
	bh.offset = (uint32_t)filled;
	memcpy(buf, &bh, sizeof(bh));
	return 0;
}

int etl_mark_last_buffer_fd(int fd, uint64_t last, char *err, size_t err_size)
{
	off_t at = (off_t)last + (off_t)offsetof(struct wmi_buffer_header, buffer_flag);
	uint16_t flag;

	if (!last)
		return 0;	/* the header buffer alone carries it already */
	if (pread(fd, &flag, sizeof(flag), at) != (ssize_t)sizeof(flag)) {
		snprintf(err, err_size, "reading the last buffer back: %s",
			 strerror(errno ? errno : EIO));
		return -EIO;
	}
	flag |= ETW_BUFFER_FLAG_FLUSH_MARKER;
	if (pwrite(fd, &flag, sizeof(flag), at) != (ssize_t)sizeof(flag)) {
		snprintf(err, err_size, "marking the last buffer: %s",
			 strerror(errno ? errno : EIO));
		return -EIO;
	}
	return 0;
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
		if (!r)
			w->release = 0;
		if (!r)
			break;
		/* given back even so, but for EINVAL (uapi/ntkl.h) */
		if (err != EINVAL)
			w->release = 0;
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
		ret = ntkl_write_all(w->out_fd, data, len);
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

int64_t etl_filetime_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ETW_FILETIME_UNIX_EPOCH + (int64_t)ts.tv_sec * ETW_FILETIME_PER_SECOND +
	       ts.tv_nsec / 100;
}

static uint32_t clamp32(uint64_t v)
{
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

void ntkl_writer_patch_from(const struct ntkl_writer *w,
			   const struct ntkl_properties *final,
			   struct etl_header_patch *patch)
{
	memset(patch, 0, sizeof(*patch));
	patch->end_time = etl_filetime_now();
	patch->buffers_written = clamp32(w->buffers);
	if (final) {
		patch->events_lost = clamp32(final->events_lost);
		patch->buffers_lost = clamp32(final->log_buffers_lost);
	}
}

int etl_header_patch_mem(uint8_t *data, size_t len,
			 const struct etl_header_patch *patch,
			 char *err, size_t err_size)
{
	struct system_trace_header ev;
	struct trace_logfile_header h;

	if (len < PATCH_BYTES) {
		snprintf(err, err_size, "the file is %zu bytes, too short for a header buffer",
			 len);
		return -1;
	}
	memcpy(&ev, data + HEADER_EVENT_OFFSET, sizeof(ev));
	if (((ev.marker >> 16) & 0xFF) != ETW_HEADER_TYPE_SYSTEM64 ||
	    ev.hook_id != ETW_EVENT_HEADER_HOOK ||
	    ev.size < sizeof(ev) + sizeof(h)) {
		snprintf(err, err_size,
			 "buffer 0 does not start with the Header event (marker 0x%08x, hook 0x%04x, size 0x%x)",
			 ev.marker, ev.hook_id, ev.size);
		return -1;
	}
	memcpy(&h, data + LOGFILE_HEADER_OFFSET, sizeof(h));
	h.end_time = patch->end_time;
	h.buffers_written = patch->buffers_written;
	h.events_lost = patch->events_lost;
	h.buffers_lost = patch->buffers_lost;
	memcpy(data + LOGFILE_HEADER_OFFSET, &h, sizeof(h));
	return 0;
}

int etl_header_patch_fd(int fd, const struct etl_header_patch *patch,
			char *err, size_t err_size)
{
	uint8_t head[PATCH_BYTES];
	ssize_t n;

	n = pread(fd, head, sizeof(head), 0);
	if (n < 0) {
		int e = errno;

		snprintf(err, err_size, "reading the header buffer back: %s", strerror(e));
		return -e;
	}
	if (etl_header_patch_mem(head, (size_t)n, patch, err, err_size))
		return -EINVAL;
	n = pwrite(fd, head + LOGFILE_HEADER_OFFSET,
		   sizeof(head) - LOGFILE_HEADER_OFFSET, LOGFILE_HEADER_OFFSET);
	if (n < 0) {
		int e = errno;

		snprintf(err, err_size, "patching the header: %s", strerror(e));
		return -e;
	}
	if ((size_t)n != sizeof(head) - LOGFILE_HEADER_OFFSET) {
		snprintf(err, err_size, "patching the header: short write");
		return -EIO;
	}
	return 0;
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

int ntkl_file_complete(const char *path, const struct ntkl_properties *final,
		      uint64_t *buffers, char *err, size_t err_size)
{
	struct wmi_buffer_header bh;
	struct etl_header_patch patch;
	struct ntkl_writer w = { .buffers = 0 };
	uint64_t whole = 0, last = 0;
	struct stat st;
	int fd, ret = 0;

	*buffers = 0;
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, err_size, "cannot open %s: %s", path, strerror(-ret));
		return ret;
	}
	if (fstat(fd, &st) < 0 || pread(fd, &bh, sizeof(bh), 0) != (ssize_t)sizeof(bh)) {
		snprintf(err, err_size, "%s: no header buffer to complete", path);
		ret = -EINVAL;
		goto out;
	}
	/* buffer 0, the header buffer, is never compressed: a sane size or no ETL file */
	if (bh.buffer_size < PATCH_BYTES || bh.buffer_size > NTKL_MAX_BUFFER_KB * 1024) {
		snprintf(err, err_size, "%s: buffer 0 has BufferSize 0x%x: not an ntkl file",
			 path, bh.buffer_size);
		ret = -EINVAL;
		goto out;
	}
	/* buffer by buffer: a compressed one's BufferSize is its own */
	for (uint64_t off = 0;;) {
		struct wmi_buffer_header next;

		if ((uint64_t)st.st_size - off < sizeof(next) ||
		    pread(fd, &next, sizeof(next), (off_t)off) != (ssize_t)sizeof(next) ||
		    next.buffer_size < ETL_BUFFER_HEADER_SIZE ||
		    next.buffer_size > (uint64_t)st.st_size - off) {
			whole = off;
			break;
		}
		last = off;
		off += next.buffer_size;
		w.buffers++;
	}
	if (whole < (uint64_t)st.st_size && ftruncate(fd, (off_t)whole) < 0) {
		ret = -errno;
		snprintf(err, err_size, "%s: cannot cut the partial buffer off: %s", path,
			 strerror(-ret));
		goto out;
	}
	ntkl_writer_patch_from(&w, final, &patch);
	ret = etl_header_patch_fd(fd, &patch, err, err_size);
	if (!ret)
		ret = etl_mark_last_buffer_fd(fd, w.buffers > 1 ? last : 0, err, err_size);
	if (!ret && fsync(fd) < 0 && errno != EINVAL && errno != EROFS) {
		ret = -errno;
		snprintf(err, err_size, "%s: fsync: %s", path, strerror(-ret));
	}
	if (!ret)
		*buffers = w.buffers;
out:
	close(fd);
	return ret;
}

int ntkl_output_create(const char *path, char *err, size_t err_size)
{
	struct ntkl_writer_state other;
	int fd, e;

	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		e = errno;
		snprintf(err, err_size, "cannot create %s: %s", path, strerror(e));
		return -e;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		e = errno;
		close(fd);
		if (e != EWOULDBLOCK) {
			snprintf(err, err_size, "cannot lock %s: %s", path, strerror(e));
			return -e;
		}
		if (!ntkl_state_find_file(path, &other))
			snprintf(err, err_size,
				 "%s is being written by logger %s (writer pid %ld): ERROR_ALREADY_EXISTS: choose another file, or ntkl stop %s first",
				 path, other.logger, other.pid, other.logger);
		else
			snprintf(err, err_size,
				 "%s is being written by another ntkl command (record or save): ERROR_ALREADY_EXISTS: choose another file",
				 path);
		return -EEXIST;
	}
	if (ftruncate(fd, 0) < 0) {
		e = errno;
		close(fd);
		snprintf(err, err_size, "cannot empty %s: %s", path, strerror(e));
		return -e;
	}
	return fd;
}
