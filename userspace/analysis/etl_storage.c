// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl report's storage section: disks, processes and files. See
 * etl_storage.h.
 */
#include <stdlib.h>
#include <string.h>

#include "etl/etl_events.h"
#include "etl/etl_model.h"
#include "etl/etl_utf16.h"
#include "etl_array.h"
#include "etl_json.h"
#include "etl_report.h"
#include "etl_storage.h"

#define NO_PID	UINT32_MAX

enum io_kind { IO_READ, IO_WRITE, IO_FLUSH };

/* A DiskIo completion. */
struct disk_io {
	int64_t time;
	uint32_t tid, disk;
	uint64_t bytes, response;	/* response: clock ticks */
	uint8_t kind;			/* enum io_kind */
};

/* A FileIo Read or Write request. */
struct file_op {
	int64_t time;
	uint32_t tid;
	uint64_t key, object, irp, bytes;
	bool write;
};

/* A FileIo OperationEnd: the bytes its request (IrpPtr) moved. */
struct op_end {
	uint64_t irp;
	int64_t time;
	uint64_t bytes;
};

struct fault {
	int64_t time;
	uint32_t tid, bytes;
	uint64_t object;
};

/* A name record: a FileKey or FileObject and its path. */
struct name {
	uint64_t key;
	int64_t time;
	char *path;
};

struct etl_storage_reader {
	const struct etl_filter *flt;
	struct etl_storage *s;
	struct etl_error *err;
	const struct etl_model *m;	/* the pass's */
	struct disk_io *ios;
	size_t nios, ios_cap;
	struct file_op *ops;
	size_t nops, ops_cap;
	struct op_end *ends;
	size_t nends, ends_cap;
	struct fault *faults;
	size_t nfaults, faults_cap;
	struct name *names;
	size_t nnames, names_cap;
	struct etl_span span;		/* the records' times, the activity's */
};

static int oom(struct etl_storage_reader *rd)
{
	return etl_error_set(rd->err, "out of memory reading the storage events");
}


/* A name record's path (UTF-16 from offset at), kept under key. */
static int add_name(struct etl_storage_reader *rd, const struct etl_record *rec, uint64_t key, size_t at)
{
	struct name *n;
	char *path;

	if (!key || rec->payload_len <= at)
		return 0;
	path = etl_utf16_to_utf8_alloc(rec->payload + at, rec->payload_len - at, NULL, NULL);
	if (!path)
		return oom(rd);
	if (!path[0]) {
		free(path);
		return 0;
	}
	n = ETL_ARRAY_PUSH(rd, names);
	if (!n) {
		free(path);
		return oom(rd);
	}
	*n = (struct name){ .key = key, .time = rec->timestamp, .path = path };
	return 0;
}

static int add_disk_io(struct etl_storage_reader *rd, const struct etl_record *rec, enum io_kind kind)
{
	const uint8_t *p = rec->payload;
	struct disk_io *io;

	if (kind == IO_FLUSH ? rec->payload_len < ETW_DISKIO_FLUSH_SIZE :
			       rec->payload_len < ETW_DISKIO_RW_SIZE)
		return 0;
	io = ETL_ARRAY_PUSH(rd, ios);
	if (!io)
		return oom(rd);
	io->time = rec->timestamp;
	io->kind = kind;
	io->disk = etl_le32(p + offsetof(struct etw_diskio_rw, disk_number));
	if (kind == IO_FLUSH) {
		io->bytes = 0;
		io->response = etl_le64(p + offsetof(struct etw_diskio_flush,
						     high_res_response_time));
		io->tid = etl_le32(p + offsetof(struct etw_diskio_flush, issuing_thread_id));
	} else {
		io->bytes = etl_le32(p + offsetof(struct etw_diskio_rw, transfer_size));
		io->response = etl_le64(p + offsetof(struct etw_diskio_rw, high_res_response_time));
		io->tid = etl_le32(p + offsetof(struct etw_diskio_rw, issuing_thread_id));
	}
	return 0;
}

static int add_file_op(struct etl_storage_reader *rd, const struct etl_record *rec, bool write)
{
	const uint8_t *p = rec->payload;
	struct file_op *op;

	if (rec->payload_len < ETW_FILEIO_READ_WRITE_SIZE)
		return 0;
	op = ETL_ARRAY_PUSH(rd, ops);
	if (!op)
		return oom(rd);
	op->time = rec->timestamp;
	op->write = write;
	op->object = etl_le64(p + offsetof(struct etw_fileio_read_write, file_object));
	op->key = etl_le64(p + offsetof(struct etw_fileio_read_write, file_key));
	op->tid = etl_le32(p + offsetof(struct etw_fileio_read_write, ttid));
	op->irp = etl_le64(p + offsetof(struct etw_fileio_read_write, irp_ptr));
	op->bytes = etl_le32(p + offsetof(struct etw_fileio_read_write, io_size));
	return 0;
}

static int add_op_end(struct etl_storage_reader *rd, const struct etl_record *rec)
{
	struct op_end *e;

	if (rec->payload_len < ETW_FILEIO_OP_END_SIZE)
		return 0;
	e = ETL_ARRAY_PUSH(rd, ends);
	if (!e)
		return oom(rd);
	e->irp = etl_le64(rec->payload + offsetof(struct etw_fileio_op_end, irp_ptr));
	e->bytes = etl_le64(rec->payload + offsetof(struct etw_fileio_op_end, extra_info));
	e->time = rec->timestamp;
	return 0;
}

static int end_by_irp_time(const void *a, const void *b)
{
	const struct op_end *x = a, *y = b;

	if (x->irp != y->irp)
		return x->irp < y->irp ? -1 : 1;
	return x->time < y->time ? -1 : x->time > y->time;
}

/*
 * A request's bytes: what its OperationEnd says it moved (a read at the
 * end of a file asks for more than it gets), the first end of its IrpPtr
 * at or after it; without one (FILE_IO not recorded), what it asked for.
 */
static uint64_t op_bytes(const struct etl_storage_reader *rd, const struct file_op *op)
{
	size_t lo = 0, hi = rd->nends;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct op_end *e = &rd->ends[mid];

		if (e->irp < op->irp || (e->irp == op->irp && e->time < op->time))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < rd->nends && rd->ends[lo].irp == op->irp)
		return rd->ends[lo].bytes;
	return op->bytes;
}

static int add_fault(struct etl_storage_reader *rd, const struct etl_record *rec)
{
	const uint8_t *p = rec->payload;
	struct fault *f;

	if (rec->payload_len < sizeof(struct perfinfo_hard_fault))
		return 0;
	f = ETL_ARRAY_PUSH(rd, faults);
	if (!f)
		return oom(rd);
	f->time = rec->timestamp;
	f->object = etl_le64(p + offsetof(struct perfinfo_hard_fault, file_object));
	f->tid = etl_le32(p + offsetof(struct perfinfo_hard_fault, thread_id));
	f->bytes = etl_le32(p + offsetof(struct perfinfo_hard_fault, byte_count));
	return 0;
}

static int on_record(void *ctx, const struct etl_buffer *b, const struct etl_record *rec)
{
	struct etl_storage_reader *rd = ctx;

	etl_span_add(&rd->span, b, rec);
	if (rec->kind != ETL_KIND_KERNEL)
		return 0;
	switch (rec->hook_id) {
	case ETW_EVENT_DISKIO_READ_HOOK:
		return add_disk_io(rd, rec, IO_READ);
	case ETW_EVENT_DISKIO_WRITE_HOOK:
		return add_disk_io(rd, rec, IO_WRITE);
	case ETW_EVENT_DISKIO_FLUSH_BUFFERS_HOOK:
		return add_disk_io(rd, rec, IO_FLUSH);
	case ETW_EVENT_FILEIO_READ_HOOK:
		return add_file_op(rd, rec, false);
	case ETW_EVENT_FILEIO_WRITE_HOOK:
		return add_file_op(rd, rec, true);
	case ETW_EVENT_FILEIO_OP_END_HOOK:
		return add_op_end(rd, rec);
	case ETW_EVENT_HARD_FAULT_HOOK:
		return add_fault(rd, rec);
	case ETW_EVENT_FILEIO_NAME_HOOK:
	case ETW_EVENT_FILEIO_FILE_CREATE_HOOK:
	case ETW_EVENT_FILEIO_FILE_RUNDOWN_HOOK:
		if (rec->payload_len >= sizeof(struct etw_fileio_name))
			return add_name(rd, rec, etl_le64(rec->payload),
					sizeof(struct etw_fileio_name));
		return 0;
	case ETW_EVENT_FILEIO_CREATE_HOOK:
		if (rec->payload_len >= sizeof(struct etw_fileio_create))
			return add_name(rd, rec,
					etl_le64(rec->payload +
						 offsetof(struct etw_fileio_create, file_object)),
					sizeof(struct etw_fileio_create));
		return 0;
	}
	return 0;
}

/* Names by key, the latest of a key first: lookups take the first. */
static int name_by_key(const void *a, const void *b)
{
	const struct name *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->time > y->time ? -1 : x->time < y->time;
}

static const char *find_name(const struct etl_storage_reader *rd, uint64_t key)
{
	size_t lo = 0, hi = rd->nnames;

	if (!key)
		return NULL;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (rd->names[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < rd->nnames && rd->names[lo].key == key ? rd->names[lo].path : NULL;
}

/* The collection's window ([a, b], in the file's clock), --time's part of it. */
static void window(const struct etl_file *f, const struct etl_storage_reader *rd, int64_t *a, int64_t *b)
{
	double freq = f->header.perf_freq > 0 ? (double)f->header.perf_freq : 1e7;
	etl_span_collection(&rd->span, a, b);
	if (rd->flt && rd->flt->has_time && *b >= *a) {
		int64_t w0 = *a + (int64_t)(rd->flt->start_s * freq);
		int64_t w1 = *a + (int64_t)(rd->flt->end_s * freq);

		*a = w0 > *b ? *b : w0;
		*b = w1 < *b ? w1 : *b;
	}
}

/* Whether the filter keeps thread tid; its process in *pid. */
static bool selected(const struct etl_storage_reader *rd, uint32_t tid, uint32_t *pid)
{
	const struct etl_model_thread *t = etl_model_thread(rd->m, tid);

	*pid = t ? t->pid : NO_PID;
	if (!etl_filter_by_thread(rd->flt))
		return true;
	return etl_filter_thread(rd->flt, tid, *pid, t ? t->name : NULL,
				 etl_model_process_name(rd->m, *pid));
}

static struct etl_storage_process *process(struct etl_storage_reader *rd, uint32_t pid)
{
	struct etl_storage *s = rd->s;
	struct etl_storage_process *p;
	const char *name;

	for (size_t i = 0; i < s->nprocs; i++)
		if (s->procs[i].pid == pid)
			return &s->procs[i];
	p = realloc(s->procs, (s->nprocs + 1) * sizeof(*p));
	if (!p)
		return NULL;
	s->procs = p;
	p = &s->procs[s->nprocs++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	name = pid == NO_PID ? NULL : etl_model_process_name(rd->m, pid);
	snprintf(p->name, sizeof(p->name), "%s", name ? name : "?");
	return p;
}

static struct etl_storage_file *file(struct etl_storage_reader *rd, const char *path)
{
	struct etl_storage *s = rd->s;
	struct etl_storage_file *f;

	if (!path)
		path = "?";
	for (size_t i = 0; i < s->nfiles; i++)
		if (!strcmp(s->files[i].name, path))
			return &s->files[i];
	f = realloc(s->files, (s->nfiles + 1) * sizeof(*f));
	if (!f)
		return NULL;
	s->files = f;
	f = &s->files[s->nfiles];
	memset(f, 0, sizeof(*f));
	f->name = strdup(path);
	if (!f->name)
		return NULL;
	s->nfiles++;
	return f;
}

static struct etl_storage_disk *disk(struct etl_storage *s, uint32_t number)
{
	struct etl_storage_disk *d;

	for (size_t i = 0; i < s->ndisks; i++)
		if (s->disks[i].disk == number)
			return &s->disks[i];
	d = realloc(s->disks, (s->ndisks + 1) * sizeof(*d));
	if (!d)
		return NULL;
	s->disks = d;
	d = &s->disks[s->ndisks++];
	memset(d, 0, sizeof(*d));
	d->disk = number;
	return d;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Each disk's service times, from its reads and writes in the window. */
static int service_times(struct etl_storage_reader *rd, double freq, int64_t a, int64_t b)
{
	struct etl_storage *s = rd->s;
	double *ms = malloc((rd->nios + 1) * sizeof(*ms));

	if (!ms)
		return oom(rd);
	for (size_t i = 0; i < s->ndisks; i++) {
		struct etl_storage_disk *d = &s->disks[i];
		size_t n = 0;
		uint32_t pid;

		for (size_t j = 0; j < rd->nios; j++) {
			const struct disk_io *io = &rd->ios[j];

			if (io->disk != d->disk || io->kind == IO_FLUSH || io->time < a ||
			    io->time > b || !selected(rd, io->tid, &pid))
				continue;
			ms[n++] = (double)io->response / freq * 1e3;
		}
		if (!n)
			continue;
		qsort(ms, n, sizeof(*ms), cmp_double);
		d->p50_ms = ms[n / 2];
		d->p90_ms = ms[n * 9 / 10];
		d->p99_ms = ms[n * 99 / 100];
		d->max_ms = ms[n - 1];
	}
	free(ms);
	return 0;
}

static int count_disks(struct etl_storage_reader *rd, int64_t a, int64_t b)
{
	for (size_t i = 0; i < rd->nios; i++) {
		const struct disk_io *io = &rd->ios[i];
		struct etl_storage_process *p;
		struct etl_storage_disk *d;
		uint32_t pid;

		if (io->time < a || io->time > b || !selected(rd, io->tid, &pid))
			continue;
		d = disk(rd->s, io->disk);
		p = io->kind == IO_FLUSH ? NULL : process(rd, pid);
		if (!d || (io->kind != IO_FLUSH && !p))
			return oom(rd);
		rd->s->disk_ios++;
		if (io->kind == IO_FLUSH) {
			d->flushes++;
		} else if (io->kind == IO_READ) {
			d->reads++;
			d->read_bytes += io->bytes;
			p->disk_read += io->bytes;
		} else {
			d->writes++;
			d->write_bytes += io->bytes;
			p->disk_write += io->bytes;
		}
	}
	return 0;
}

static int count_files(struct etl_storage_reader *rd, int64_t a, int64_t b)
{
	for (size_t i = 0; i < rd->nops; i++) {
		const struct file_op *op = &rd->ops[i];
		uint64_t bytes = op_bytes(rd, op);
		struct etl_storage_process *p;
		struct etl_storage_file *f;
		const char *path;
		uint32_t pid;

		if (op->time < a || op->time > b || !selected(rd, op->tid, &pid))
			continue;
		path = find_name(rd, op->key);
		if (!path)
			path = find_name(rd, op->object);
		f = file(rd, path);
		p = process(rd, pid);
		if (!f || !p)
			return oom(rd);
		rd->s->file_ops++;
		if (op->write) {
			f->writes++;
			f->write_bytes += bytes;
			p->file_write += bytes;
		} else {
			f->reads++;
			f->read_bytes += bytes;
			p->file_read += bytes;
		}
	}
	for (size_t i = 0; i < rd->nfaults; i++) {
		const struct fault *ft = &rd->faults[i];
		struct etl_storage_process *p;
		struct etl_storage_file *f;
		uint32_t pid;

		if (ft->time < a || ft->time > b || !selected(rd, ft->tid, &pid))
			continue;
		f = file(rd, find_name(rd, ft->object));
		p = process(rd, pid);
		if (!f || !p)
			return oom(rd);
		rd->s->hard_faults++;
		rd->s->hard_fault_bytes += ft->bytes;
		f->hard_faults++;
		p->hard_faults++;
	}
	return 0;
}

static uint64_t proc_bytes(const struct etl_storage_process *p)
{
	return p->disk_read + p->disk_write + p->file_read + p->file_write;
}

static int proc_by_bytes(const void *a, const void *b)
{
	const struct etl_storage_process *x = a, *y = b;
	uint64_t bx = proc_bytes(x), by = proc_bytes(y);

	if (bx != by)
		return bx > by ? -1 : 1;
	if (x->hard_faults != y->hard_faults)
		return x->hard_faults > y->hard_faults ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static int file_by_bytes(const void *a, const void *b)
{
	const struct etl_storage_file *x = a, *y = b;
	uint64_t bx = x->read_bytes + x->write_bytes, by = y->read_bytes + y->write_bytes;

	if (bx != by)
		return bx > by ? -1 : 1;
	if (x->hard_faults != y->hard_faults)
		return x->hard_faults > y->hard_faults ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int disk_by_number(const void *a, const void *b)
{
	const struct etl_storage_disk *x = a, *y = b;

	return x->disk < y->disk ? -1 : x->disk > y->disk;
}

struct etl_storage_reader *etl_storage_begin(struct etl_storage *s, const struct etl_filter *flt,
					     struct etl_error *err)
{
	struct etl_storage_reader *rd = calloc(1, sizeof(*rd));

	memset(s, 0, sizeof(*s));
	if (!rd) {
		etl_error_set(err, "out of memory reading the storage events");
		return NULL;
	}
	rd->s = s;
	rd->flt = flt;
	rd->err = err;
	etl_span_init(&rd->span);
	return rd;
}

struct etl_walker etl_storage_walker(struct etl_storage_reader *rd)
{
	return (struct etl_walker){ .record = on_record, .ctx = rd };
}

int etl_storage_end(struct etl_storage_reader *rd, const struct etl_file *f,
		    const struct etl_model *m)
{
	struct etl_storage *s = rd->s;
	double freq = f->header.perf_freq > 0 ? (double)f->header.perf_freq : 1e7;
	int64_t a, b;
	int ret = -1;

	rd->m = m;
	if (!m)
		goto out;
	s->any = rd->nios || rd->nops || rd->nfaults;
	if (rd->nnames)
		qsort(rd->names, rd->nnames, sizeof(*rd->names), name_by_key);
	if (rd->nends)
		qsort(rd->ends, rd->nends, sizeof(*rd->ends), end_by_irp_time);
	window(f, rd, &a, &b);
	if (count_disks(rd, a, b) || service_times(rd, freq, a, b) || count_files(rd, a, b))
		goto out;
	if (s->ndisks)
		qsort(s->disks, s->ndisks, sizeof(*s->disks), disk_by_number);
	if (s->nprocs)
		qsort(s->procs, s->nprocs, sizeof(*s->procs), proc_by_bytes);
	if (s->nfiles)
		qsort(s->files, s->nfiles, sizeof(*s->files), file_by_bytes);
	ret = 0;
out:
	for (size_t i = 0; i < rd->nnames; i++)
		free(rd->names[i].path);
	free(rd->names);
	free(rd->ios);
	free(rd->ops);
	free(rd->ends);
	free(rd->faults);
	free(rd);
	if (ret)
		etl_storage_free(s);
	return ret;
}

void etl_storage_free(struct etl_storage *s)
{
	for (size_t i = 0; i < s->nfiles; i++)
		free(s->files[i].name);
	free(s->files);
	free(s->procs);
	free(s->disks);
	memset(s, 0, sizeof(*s));
}

static double mib(uint64_t bytes)
{
	return (double)bytes / (1024.0 * 1024.0);
}

static void print_pid(FILE *out, uint32_t pid)
{
	if (pid == NO_PID)
		fprintf(out, "%8s", "?");
	else
		fprintf(out, "%8u", pid);
}

void etl_storage_print(FILE *out, const struct etl_storage *s, size_t top)
{
	if (!s->any)
		return;
	fprintf(out, "\nStorage: %lu disk I/Os, %lu file reads and writes, %lu hard faults (%.1f MiB)\n",
		s->disk_ios, s->file_ops, s->hard_faults, mib(s->hard_fault_bytes));
	if (s->ndisks) {
		fprintf(out, "\nDisks (DiskIo, as WPA's Disk Usage; service time: issue to completion):\n"
			"%5s %8s %10s %8s %10s %7s %9s %9s %9s %9s\n", "disk", "reads", "read MiB",
			"writes", "write MiB", "flushes", "p50 ms", "p90 ms", "p99 ms", "max ms");
		for (size_t i = 0; i < s->ndisks; i++) {
			const struct etl_storage_disk *d = &s->disks[i];

			fprintf(out, "%5u %8lu %10.2f %8lu %10.2f %7lu %9.3f %9.3f %9.3f %9.3f\n",
				d->disk, d->reads, mib(d->read_bytes), d->writes,
				mib(d->write_bytes), d->flushes, d->p50_ms, d->p90_ms, d->p99_ms,
				d->max_ms);
		}
	}
	if (s->nprocs) {
		fprintf(out, "\nProcesses by bytes moved (top %zu; disk: the I/O its threads issued, file: its FileIo requests):\n"
			"%8s %13s %14s %13s %14s %11s  %s\n", top, "pid", "disk read MiB",
			"disk write MiB", "file read MiB", "file write MiB", "hard faults", "name");
		for (size_t i = 0; i < s->nprocs && i < top; i++) {
			const struct etl_storage_process *p = &s->procs[i];

			print_pid(out, p->pid);
			fprintf(out, " %13.2f %14.2f %13.2f %14.2f %11lu  %s\n", mib(p->disk_read),
				mib(p->disk_write), mib(p->file_read), mib(p->file_write),
				p->hard_faults, p->name);
		}
	}
	if (s->nfiles) {
		fprintf(out, "\nFiles by bytes (top %zu; FileIo Read and Write, hard faults that read them):\n"
			"%8s %10s %8s %10s %11s  %s\n", top, "reads", "read MiB", "writes",
			"write MiB", "hard faults", "file");
		for (size_t i = 0; i < s->nfiles && i < top; i++) {
			const struct etl_storage_file *f = &s->files[i];

			fprintf(out, "%8lu %10.2f %8lu %10.2f %11lu  %s\n", f->reads,
				mib(f->read_bytes), f->writes, mib(f->write_bytes), f->hard_faults,
				f->name);
		}
	}
}

void etl_storage_print_json(FILE *out, const struct etl_storage *s)
{
	fprintf(out, "{\"disk_ios\": %lu, \"file_ops\": %lu, \"hard_faults\": %lu, \"hard_fault_bytes\": %llu,\n",
		s->disk_ios, s->file_ops, s->hard_faults, (unsigned long long)s->hard_fault_bytes);
	fprintf(out, "    \"disks\": [");
	for (size_t i = 0; i < s->ndisks; i++) {
		const struct etl_storage_disk *d = &s->disks[i];

		fprintf(out, "%s\n      {\"disk\": %u, \"reads\": %lu, \"read_bytes\": %llu, \"writes\": %lu, \"write_bytes\": %llu, \"flushes\": %lu, \"p50_ms\": %.6f, \"p90_ms\": %.6f, \"p99_ms\": %.6f, \"max_ms\": %.6f}",
			i ? "," : "", d->disk, d->reads, (unsigned long long)d->read_bytes, d->writes,
			(unsigned long long)d->write_bytes, d->flushes, d->p50_ms, d->p90_ms,
			d->p99_ms, d->max_ms);
	}
	fprintf(out, "],\n    \"processes\": [");
	for (size_t i = 0; i < s->nprocs; i++) {
		const struct etl_storage_process *p = &s->procs[i];

		fprintf(out, "%s\n      {\"pid\": ", i ? "," : "");
		if (p->pid == NO_PID)
			fprintf(out, "null");
		else
			fprintf(out, "%u", p->pid);
		fprintf(out, ", \"name\": ");
		etl_json_str(out, p->name);
		fprintf(out, ", \"disk_read_bytes\": %llu, \"disk_write_bytes\": %llu, \"file_read_bytes\": %llu, \"file_write_bytes\": %llu, \"hard_faults\": %lu}",
			(unsigned long long)p->disk_read, (unsigned long long)p->disk_write,
			(unsigned long long)p->file_read, (unsigned long long)p->file_write,
			p->hard_faults);
	}
	fprintf(out, "],\n    \"files\": [");
	for (size_t i = 0; i < s->nfiles; i++) {
		const struct etl_storage_file *f = &s->files[i];

		fprintf(out, "%s\n      {\"name\": ", i ? "," : "");
		etl_json_str(out, f->name);
		fprintf(out, ", \"reads\": %lu, \"read_bytes\": %llu, \"writes\": %lu, \"write_bytes\": %llu, \"hard_faults\": %lu}",
			f->reads, (unsigned long long)f->read_bytes, f->writes,
			(unsigned long long)f->write_bytes, f->hard_faults);
	}
	fprintf(out, "]}");
}
