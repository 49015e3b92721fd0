/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The state file of a logger's background writer (ntkl start -f):
 *
 *	/run/ntkl/<logger id>-<instance GUID>.pid	($NTKL_RUN_DIR for /run/ntkl)
 *
 * Text, one "key=value" per line: pid, logger, file, state (writing, done
 * or failed), and at the end the file's counters and any error. The
 * writer holds an exclusive flock() on it from before `ntkl start` returns
 * until it exits, so `ntkl stop` waits for the file to be complete by
 * taking the lock. The GUID in the name keeps a new logger that reuses an
 * id apart from an old writer still draining. The directory is every
 * tracing user's: sticky and writable by /dev/ntkl's group
 * (udev/ntkl-tmpfiles.conf at boot, or ntkl when it creates it as root).
 */
#ifndef NTKL_STATE_H
#define NTKL_STATE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "uapi/ntkl.h"

struct ntkl_writer_state {
	long pid;
	char logger[NTKL_NAME_MAX];
	char file[PATH_MAX];
	char state[16];			/* "writing", "done", "failed" */
	uint64_t buffers;		/* in the file, header buffer included */
	uint64_t bytes;
	uint64_t events;		/* records in the data buffers */
	uint64_t events_lost;
	uint64_t buffers_lost;
	char error[320];
};

const char *ntkl_run_dir(void);

/* The state file's path for a logger, into buf. */
const char *ntkl_state_path(char *buf, size_t size, uint32_t logger_id,
			    const uint8_t guid[16]);

/*
 * Create (or replace) the state file, creating its directory, and lock it
 * exclusively: a descriptor (close-on-exec) or -errno.
 */
int ntkl_state_create(const char *path);

/* Rewrite the whole file from s: 0 or -errno. */
int ntkl_state_write(int fd, const struct ntkl_writer_state *s);

/* Parse the file at path: 0, or -errno (-ENOENT: no writer). */
int ntkl_state_read(const char *path, struct ntkl_writer_state *s);

/*
 * The running background writer whose file is file (by its real path),
 * into s: 0, or -ENOENT if none writes it.
 */
int ntkl_state_find_file(const char *file, struct ntkl_writer_state *s);

/* true while a writer holds the lock on path. */
bool ntkl_state_busy(const char *path);

/*
 * Wait until no writer holds the lock on path, at most timeout_ms (< 0:
 * for ever); after waiting_ms, call waiting(ctx) once (to say so).
 * 0, -ENOENT (no state file), -ETIMEDOUT or another -errno.
 */
int ntkl_state_wait(const char *path, int timeout_ms, int waiting_ms,
		    void (*waiting)(void *ctx), void *ctx);

#endif /* NTKL_STATE_H */
