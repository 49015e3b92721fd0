/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ntkl subcommands. Each lives in its own cmd_<name>.c and is listed
 * in the table in ntkl.c. A subcommand gets argv with argv[0] = its name
 * and returns the exit status: 0 success, 1 failure, 2 usage error.
 */
#ifndef NTKL_CMD_H
#define NTKL_CMD_H

#include <stdint.h>
#include <stdio.h>

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
int cmd_version(int argc, char **argv);
void cmd_version_usage(FILE *out);

#endif /* NTKL_CMD_H */
