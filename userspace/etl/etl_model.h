/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a file's rundown and lifetime records say about the system, read
 * in one pass: its processes (one name each), its threads (their process
 * and name) and its images with their identities (etl_images.h). Every
 * reader that names a thread, a process or an address takes them from
 * here: ntkl report, dump --stats, chrome-json (analysis/) and the
 * symbols (symbols/sym_trace.c), so a process has one name everywhere.
 *
 * The rules:
 *
 *   - a thread's process and name are its latest Thread Start, End,
 *     DCStart or DCEnd record's (version 3; the latest in time, as
 *     buffers of different CPUs interleave in a file and an exec renames
 *     a thread); the idle thread (0) is process 0, "Idle";
 *   - a process's name is the one WPA shows: the ImageFileName of its
 *     Process Start or DCStart record (version 4), or of a later Process
 *     End or DCEnd record where an exec changed it (Linux: a fork starts
 *     with its parent's name, an exec renames it); else the name of its
 *     leader, the thread whose id is the process id (as Linux names a
 *     thread group); process 0 is "Idle".
 *
 * The pass can carry a reader's own work (etl_model_read()'s also), so
 * an analysis that needs the model and its own records walks the file
 * once.
 */
#ifndef NTKL_ETL_MODEL_H
#define NTKL_ETL_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "etl_images.h"
#include "etl_reader.h"

#define ETL_MODEL_NO_PID	UINT32_MAX

struct etl_model_thread {
	uint32_t tid;
	uint32_t pid;			/* ETL_MODEL_NO_PID: no Thread event named it */
	char name[64];			/* the Thread event's ThreadName, UTF-8 */
	int64_t named_at;		/* the time of the Thread event that named it */
};

struct etl_model_process {
	uint32_t pid;
	char name[64];			/* the Process record's ImageFileName, UTF-8 */
	int64_t named_at;
};

struct etl_model {
	struct etl_model_thread *threads;	/* by tid */
	size_t nthreads;
	struct etl_model_process *procs;	/* by pid: those a Process record names */
	size_t nprocs;
	struct etl_images images;		/* sorted by pid, base */
	size_t threads_cap, procs_cap;
};

/*
 * Read f into m in one pass, calling also's callbacks (also may be NULL)
 * on every buffer and record of the same pass. 0, or -1 with err set;
 * etl_model_free() either way.
 */
int etl_model_read(const struct etl_file *f, struct etl_model *m, const struct etl_walker *also,
		   struct etl_error *err);

/*
 * The same with several analyses' walkers in the one pass: also[0..nalso),
 * each callback called in turn (ntkl report: its counts, the switches,
 * the profile and the storage records, with one model); a buffer one of
 * them skips is skipped for all.
 */
int etl_model_read_all(const struct etl_file *f, struct etl_model *m,
		       const struct etl_walker *also, size_t nalso, struct etl_error *err);

/* The thread tid, or NULL if no Thread event names it (tid 0: "Idle"). */
const struct etl_model_thread *etl_model_thread(const struct etl_model *m, uint32_t tid);

/* The pid of thread tid, ETL_MODEL_NO_PID if unknown. */
uint32_t etl_model_pid(const struct etl_model *m, uint32_t tid);

/* Process pid's one name (the rules above), or NULL if nothing names it. */
const char *etl_model_process_name(const struct etl_model *m, uint32_t pid);

void etl_model_free(struct etl_model *m);

#endif /* NTKL_ETL_MODEL_H */
