/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ntkl subcommands. Each lives in its own cmd_<name>.c and is listed
 * in the table in ntkl.c. A subcommand gets argv with argv[0] = its name
 * and returns the exit status: 0 success, 1 failure, 2 usage error.
 */
#ifndef NTKL_CMD_H
#define NTKL_CMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ctl/ntkl_control.h"

#define EXIT_USAGE	2

struct ntkl_cmd {
	const char *name;
	const char *summary;		/* one line for `ntkl help` */
	int (*run)(int argc, char **argv);
	void (*usage)(FILE *out);	/* full usage text */
};

int cmd_dump(int argc, char **argv);
void cmd_dump_usage(FILE *out);
int cmd_start(int argc, char **argv);
void cmd_start_usage(FILE *out);
int cmd_stop(int argc, char **argv);
void cmd_stop_usage(FILE *out);
int cmd_query(int argc, char **argv);
void cmd_query_usage(FILE *out);
int cmd_list(int argc, char **argv);
void cmd_list_usage(FILE *out);
int cmd_flush(int argc, char **argv);
void cmd_flush_usage(FILE *out);
int cmd_update(int argc, char **argv);
void cmd_update_usage(FILE *out);
int cmd_save(int argc, char **argv);
void cmd_save_usage(FILE *out);
int cmd_record(int argc, char **argv);
void cmd_record_usage(FILE *out);
int cmd_spinlock_config(int argc, char **argv);
void cmd_spinlock_config_usage(FILE *out);
int cmd_profile_interval(int argc, char **argv);
void cmd_profile_interval_usage(FILE *out);
int profile_interval_apply(int fd, const char *cmd, uint32_t interval);
int cmd_report(int argc, char **argv);
void cmd_report_usage(FILE *out);
/* cmd_repair.c: ntkl dump --repair FILE; the exit status */
int cmd_dump_repair(const char *path);
int cmd_relog(int argc, char **argv);
void cmd_relog_usage(FILE *out);
int cmd_merge(int argc, char **argv);
void cmd_merge_usage(FILE *out);
/* cmd_stackwalk.c: -stackwalk, and query's lines for it */
int stackwalk_apply(int fd, const char *cmd, const char *logger, uint32_t id,
		    const struct ntkl_stackwalk *sw);
void stackwalk_show(FILE *out, int fd, const char *logger, uint32_t id);
/* lead, then "N whole, N ended early, N why..." (nothing if none was walked) */
void user_stops_show(FILE *out, const char *lead, const uint64_t stops[NTKL_USTOP_COUNT]);
int cmd_version(int argc, char **argv);
void cmd_version_usage(FILE *out);
int cmd_convert(int argc, char **argv);
void cmd_convert_usage(FILE *out);
int cmd_symbols(int argc, char **argv);
void cmd_symbols_usage(FILE *out);
/* ntkl symbols -o DIR TRACE, for record --symbols: 0, or 1 (said on stderr) */
int cmd_symbols_write(const char *trace, const char *dir);

/*
 * A usage error of command name, the same for every command: "ntkl NAME:
 * REASON", the synopsis (the lines of usage()'s text before its first
 * blank line) and where the options are, on stderr. Returns EXIT_USAGE.
 */
int cmd_usage_error(const char *name, void (*usage)(FILE *out), const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* cmd_logger.c: the commands on one running logger (stop, query, flush, save) */
struct cmd_logger_op {
	const char *cmd;		/* "flush" */
	void (*usage)(FILE *out);
	int nargs;			/* NAME and the rest */
	const char *count_msg;		/* for a wrong count; NULL: the one-NAME lines */
	enum ntkl_op op;		/* for the error's text */
	const char *verb;		/* "cannot VERB logger NAME" */
	int (*call)(int fd, struct ntkl_properties *p);	/* ntkl_flush ... */
};
enum { CMD_STOP, CMD_QUERY, CMD_FLUSH, CMD_SAVE };
extern const struct cmd_logger_op cmd_logger_ops[];
/*
 * `ntkl CMD NAME ...`: its help, its arguments, then op->call on logger
 * NAME. 0: p holds the logger as the call left it; -1: the command is
 * done with *status (0 help shown, 2 usage error, 1 failed, said).
 */
int cmd_on_logger(int argc, char **argv, const struct cmd_logger_op *op,
		  struct ntkl_properties *p, int *status);

#endif /* NTKL_CMD_H */
