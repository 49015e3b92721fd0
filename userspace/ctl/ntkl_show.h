/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How the commands print a logger: every property and counter by name
 * (ntkl query, as `xperf -loggers`), one line per logger (ntkl list), and
 * the settings a start applied. In the library so the tests can run it.
 */
#ifndef NTKL_SHOW_H
#define NTKL_SHOW_H

#include <stdint.h>
#include <stdio.h>

#include "ntkl_state.h"
#include "uapi/ntkl.h"

/*
 * Where a logger's events go, for query and list: its background writer
 * (state file read, busy = the writer still runs), buffering mode (in
 * memory), or a reader without a state file (ntkl record, ntkl save).
 */
struct ntkl_sink {
	const struct ntkl_writer_state *writer;	/* NULL: no state file */
	int busy;
};

/*
 * The events a logger takes that this kernel cannot give in full (START,
 * UPDATE and QUERY say so: absent_hooks): one warning line each on err,
 * "ntkl CMD: warning: ...". How many it printed.
 */
unsigned int ntkl_show_absent(FILE *err, const char *cmd, const struct ntkl_properties *p);

/* Every property and counter, "Name : value" lines. */
void ntkl_show_props(FILE *out, const struct ntkl_properties *p,
		     const struct ntkl_sink *sink);

/* The settings as applied (ntkl start, ntkl update). */
void ntkl_show_settings(FILE *out, const struct ntkl_properties *p);

/* The header line and one line per logger. */
void ntkl_show_list(FILE *out, const struct ntkl_properties *p,
		    const struct ntkl_sink *sinks, uint32_t count);

/*
 * Whose the logger is: "root", "alice" (from /etc/passwd), "uid 1000" (a
 * uid /etc/passwd lacks), or "-" from a module of ABI 3, which says not.
 */
const char *ntkl_owner_str(const struct ntkl_properties *p, char *buf, size_t size);

/* "running", "stopped"... */
const char *ntkl_status_name(uint32_t status);

/* "1 s", "500 ms", "none" for a logger's flush timer. */
const char *ntkl_flush_timer_str(const struct ntkl_properties *p, char *buf,
				 size_t size);

#endif /* NTKL_SHOW_H */
