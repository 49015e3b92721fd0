/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the storage did, for whom, and with which files (ntkl report's
 * storage section, WPA's Disk Usage, File I/O and Hard Faults in brief):
 *
 *   - disks: per DiskNumber, the DiskIo Read and Write completions, their
 *     bytes (TransferSize) and their service time (HighResResponseTime:
 *     issue to completion) as p50, p90, p99 and max in ms; FlushBuffers
 *     counted apart (a flush moves no bytes);
 *   - processes: per process, the bytes its threads made the disks read
 *     and write (IssuingThreadId: the thread that issued the request, a
 *     kernel writeback thread for most buffered writes, as Windows shows
 *     the System process), the bytes of its FileIo Read and Write
 *     requests (page-cache hits included) and its hard faults; ordered
 *     by all the bytes it moved, most first;
 *   - files: per file name, the FileIo Read and Write requests and their
 *     bytes, and the hard faults that read it; ordered by bytes, then
 *     hard faults. A request's file is named by the FileIo Name,
 *     FileCreate or FileRundown record of its FileKey, else of its
 *     FileObject, else by its Create record's path; a hard fault's by
 *     its FileObject's; one with none is "?";
 *   - a request's bytes are those its OperationEnd (same IrpPtr, at or
 *     after it) says it moved (a read at the end of a file asks for more
 *     than it gets), else (no FILE_IO recorded) its IoSize;
 *   - hard faults: how many, and their bytes (ByteCount).
 *
 * The window and the threads are report's (etl_filter.h): --time counts
 * only what completed inside it (a disk request by its completion, a
 * file request by its record, a hard fault by its record), and --pid,
 * --tid, --comm keep the requests and faults of the threads they select.
 */
#ifndef NTKL_ETL_STORAGE_H
#define NTKL_ETL_STORAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "etl/etl.h"
#include "etl_filter.h"

struct etl_model;

struct etl_storage_disk {
	uint32_t disk;			/* DiskNumber */
	unsigned long reads, writes, flushes;
	uint64_t read_bytes, write_bytes;
	double p50_ms, p90_ms, p99_ms, max_ms;	/* of its reads and writes */
};

struct etl_storage_process {
	uint32_t pid;			/* UINT32_MAX: a thread no Thread event names */
	char name[64];
	uint64_t disk_read, disk_write;	/* bytes */
	uint64_t file_read, file_write;	/* bytes */
	unsigned long hard_faults;
};

struct etl_storage_file {
	char *name;			/* the Linux path, UTF-8; "?" if no record names it */
	unsigned long reads, writes, hard_faults;
	uint64_t read_bytes, write_bytes;
};

struct etl_storage {
	bool any;			/* the file has storage events at all */
	unsigned long disk_ios, file_ops, hard_faults;
	uint64_t hard_fault_bytes;
	struct etl_storage_disk *disks;	/* by DiskNumber */
	size_t ndisks;
	struct etl_storage_process *procs;	/* by bytes moved, most first */
	size_t nprocs;
	struct etl_storage_file *files;	/* by bytes, then hard faults */
	size_t nfiles;
};

/*
 * Work out s, of what flt selects (NULL: all), inside a pass with its
 * model (etl_model_read_all()): begin (NULL, err set, out of memory), the
 * walker to add to the pass, then end with the pass's model, or NULL if
 * the walk failed: 0, or -1 with err set. end frees the reader.
 */
struct etl_storage_reader *etl_storage_begin(struct etl_storage *s, const struct etl_filter *flt,
					     struct etl_error *err);
struct etl_walker etl_storage_walker(struct etl_storage_reader *rd);
int etl_storage_end(struct etl_storage_reader *rd, const struct etl_file *f,
		    const struct etl_model *m);

void etl_storage_free(struct etl_storage *s);

/* The section as text (top rows per table), or as a JSON object's value. */
void etl_storage_print(FILE *out, const struct etl_storage *s, size_t top);
void etl_storage_print_json(FILE *out, const struct etl_storage *s);

#endif /* NTKL_ETL_STORAGE_H */
