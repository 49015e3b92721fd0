/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A failed control call, said the way an ETW user knows it:
 *
 *	ntkl <cmd>: <what>: <strerror> (ERROR_XXX): <what to do>
 *
 * e.g. "ntkl start: cannot start logger foo: File exists
 * (ERROR_ALREADY_EXISTS): a logger named foo is running: stop it (ntkl
 * stop foo) or pick another name". The errno-to-ETW map is the one in
 * uapi/ntkl.h's top comment; the advice depends on which call failed.
 */
#ifndef NTKL_ERRORS_H
#define NTKL_ERRORS_H

#include <stddef.h>
#include <stdio.h>

#include "uapi/ntkl.h"

/* Which call failed: the same errno means different things. */
enum ntkl_op {
	NTKL_OP_OPEN,		/* opening /dev/ntkl */
	NTKL_OP_START,
	NTKL_OP_STOP,
	NTKL_OP_QUERY,
	NTKL_OP_UPDATE,
	NTKL_OP_FLUSH,
	NTKL_OP_LIST,
	NTKL_OP_BIND,
	NTKL_OP_READ,		/* read() on a bound descriptor */
	NTKL_OP_SPINLOCK,	/* spin lock sampling settings */
	NTKL_OP_PROFILE_INTERVAL, /* the sampled profile interval */
};

struct ntkl_error_ctx {
	const char *cmd;		/* "start": the ntkl subcommand */
	enum ntkl_op op;
	const char *logger;		/* the logger's name, or NULL */
	/* START, UPDATE: what was asked (names the bad bound on EINVAL) */
	const struct ntkl_properties *asked;
	/*
	 * UPDATE: the logger as it runs (its allocated buffers); any call on
	 * one logger: that logger (EACCES names its owner), or NULL
	 */
	const struct ntkl_properties *current;
	/* a SET of a machine-wide setting: EPERM means no CAP_SYS_ADMIN */
	int machine_wide;
};

/* "ERROR_ALREADY_EXISTS" for EEXIST...; err is a positive errno. */
const char *ntkl_etw_error_name(int err, enum ntkl_op op);

/* The "what to do" part into buf (may be empty). */
const char *ntkl_error_advice(const struct ntkl_error_ctx *ctx, int err,
			      char *buf, size_t size);

/* The whole line, without the newline, into buf. */
const char *ntkl_error_format(const struct ntkl_error_ctx *ctx, const char *what,
			      int err, char *buf, size_t size);

/* Print the line on out (stderr for the commands); err may be negative. */
void ntkl_error_print(FILE *out, const struct ntkl_error_ctx *ctx,
		      const char *what, int err);

/*
 * Open /dev/ntkl for command cmd: a descriptor, or -1 after printing why
 * not (module not loaded, not root).
 */
int ntkl_open_device(const char *cmd);

#endif /* NTKL_ERRORS_H */
