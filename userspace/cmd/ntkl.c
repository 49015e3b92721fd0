// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl: control the ntkl kernel logger and read its ETL files.
 *
 * A small dispatcher: `ntkl <command> [args]` runs the command's function
 * from the table below. To add a command, write cmd_<name>.c with a run
 * and a usage function, declare them in cmd.h and add a table line.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "cmd_output.h"

static const struct ntkl_cmd commands[] = {
	{ "record", "trace one command into an ETL file: record -on FLAGS -o FILE -- CMD",
	  cmd_record, cmd_record_usage },
	{ "start", "start a logger writing FILE in the background (or -buffering)",
	  cmd_start, cmd_start_usage },
	{ "stop", "stop a logger and wait until its file is complete",
	  cmd_stop, cmd_stop_usage },
	{ "query", "every setting and counter of one logger",
	  cmd_query, cmd_query_usage },
	{ "list", "one line per running logger",
	  cmd_list, cmd_list_usage },
	{ "flush", "hand a logger's partly filled buffers to its file now",
	  cmd_flush, cmd_flush_usage },
	{ "update", "change a running logger's flags, flush timer, max buffers",
	  cmd_update, cmd_update_usage },
	{ "save", "write a buffering-mode logger's snapshot to FILE",
	  cmd_save, cmd_save_usage },
	{ "spinlock-config", "spin lock sampling: spin=N acquire=N contention=N hold=N",
	  cmd_spinlock_config, cmd_spinlock_config_usage },
	{ "profile-interval", "PROFILE sampling interval, 100 ns units (xperf -SetProfInt)",
	  cmd_profile_interval, cmd_profile_interval_usage },
	{ "dump", "print an ETL file: header, buffers, events; --check, --stats, --switches",
	  cmd_dump, cmd_dump_usage },
	{ "report", "a capture at first sight: CPU busy, top threads, waits, ready latency",
	  cmd_report, cmd_report_usage },
	{ "relog", "rewrite an ETL file: relog --expand-compact|--expand-stacks IN OUT",
	  cmd_relog, cmd_relog_usage },
	{ "merge", "merge ETL files of one time into one: merge -o OUT IN... (xperf -merge)",
	  cmd_merge, cmd_merge_usage },
	{ "convert", "an ETL file for Perfetto UI or flame graphs: convert --to chrome-json|folded IN",
	  cmd_convert, cmd_convert_usage },
	{ "symbols", "PDBs that name a trace's Linux functions in WPA: symbols -o DIR FILE",
	  cmd_symbols, cmd_symbols_usage },
	{ "version", "this command's version and the loaded module's (also --version)",
	  cmd_version, cmd_version_usage },
};

#define NCOMMANDS	(sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *out)
{
	fprintf(out, "usage: ntkl <command> [options]\n"
		"       ntkl help [<command>]\n\ncommands:\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
}

/* Edit distance of a and b (short words): for "did you mean". */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), row[32], prev, tmp;

	if (la >= 32 || lb >= 32)
		return 99;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t best = prev + (a[i - 1] != b[j - 1]);

			tmp = row[j];
			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			prev = tmp;
		}
	}
	return row[lb];
}

/* The command closest to a mistyped name, if one is close; else NULL. */
static const char *closest_command(const char *name)
{
	const char *best = NULL;
	size_t d, best_d = 3;	/* at most two edits away */

	for (size_t i = 0; i < NCOMMANDS; i++) {
		d = distance(name, commands[i].name);
		if (d < best_d) {
			best_d = d;
			best = commands[i].name;
		}
	}
	return best;
}

static const struct ntkl_cmd *find_command(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static int help(int argc, char **argv)
{
	const struct ntkl_cmd *cmd;

	if (argc < 2) {
		usage(stdout);
		return 0;
	}
	cmd = find_command(argv[1]);
	if (!cmd) {
		fprintf(stderr, "ntkl help: unknown command '%s'\n", argv[1]);
		usage(stderr);
		return EXIT_USAGE;
	}
	cmd->usage(stdout);
	return 0;
}

/*
 * What a command printed must have reached its destination: a full disk
 * or a closed descriptor behind standard output is an error, said once
 * and exit status 1, as coreutils says it ("write error: No space left on
 * device"). Every command's output passes here, whatever it printed,
 * unless the command said so itself (its OUT was standard output).
 */
static int check_stdout(const char *name, int status)
{
	int e = 0;
	bool failed = false;

	if (fflush(stdout)) {
		e = errno;
		failed = true;
	}
	failed |= ferror(stdout) != 0;	/* an earlier write failed; its errno is gone */
	if (fclose(stdout)) {
		if (!e)
			e = errno;
		failed = true;
	}
	if (!failed || cmd_stdout_error_said)
		return failed ? 1 : status;
	if (e)
		fprintf(stderr, "ntkl %s: write error: %s\n", name, strerror(e));
	else
		fprintf(stderr, "ntkl %s: write error\n", name);
	return 1;
}

int main(int argc, char **argv)
{
	const struct ntkl_cmd *cmd;

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "-h"))
		return check_stdout("help", help(argc - 1, argv + 1));
	if (!strcmp(argv[1], "--version"))
		return check_stdout("version", cmd_version(argc - 1, argv + 1));
	cmd = find_command(argv[1]);
	if (!cmd) {
		const char *near = closest_command(argv[1]);

		if (near)
			fprintf(stderr, "ntkl: unknown command '%s': did you mean '%s'? (ntkl help lists them)\n",
				argv[1], near);
		else
			fprintf(stderr, "ntkl: unknown command '%s' (ntkl help lists them)\n", argv[1]);
		return EXIT_USAGE;
	}
	return check_stdout(cmd->name, cmd->run(argc - 1, argv + 1));
}
