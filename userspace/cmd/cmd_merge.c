// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl merge -o OUT.etl IN.etl...
 *
 * xperf -merge's job: a kernel capture and the files of the user-mode
 * loggers (libntkl) of the same time made one trace, so that a program's
 * own events sit beside the kernel's context switches in WPA. The work is
 * etl_merge()'s (etl_relog.h); OUT is whole or not there at all.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "cmd_output.h"
#include "analysis/analysis.h"

void cmd_merge_usage(FILE *out)
{
	fprintf(out,
		"usage: ntkl merge -o OUT.etl IN.etl...\n"
		"\n"
		"Merge ETL files of one machine and time into OUT.etl (xperf -merge):\n"
		"every event of every IN, in time order per CPU, in buffers of the\n"
		"largest IN's size. Put the kernel capture first: OUT keeps its\n"
		"header (machine, clock, StartTime), with BuffersWritten counted\n"
		"again and every IN's EventsLost and BuffersLost summed. The INs\n"
		"must use the same clock (-clock; qpc by default in ntkl and\n"
		"libntkl); an IN may be compressed, OUT never is. Refused: an IN of\n"
		"another boot than the first IN's (QPC and cycle times count from\n"
		"boot), and two INs of one recording (a copy, or its relog: every\n"
		"event would be there twice).\n"
		"\n"
		"  -o, --output OUT.etl  the merged file, written whole, then renamed\n"
		"                        over the old one (a symlink's target is\n"
		"                        replaced, not the link); not an IN, a\n"
		"                        device or a FIFO; - for standard output\n"
		"  -h, --help            this text\n"
		"\n"
		"Exit status: 0 written, 1 an IN unreadable or not mergeable, or OUT\n"
		"unwritable, 2 usage error.\n");
}

/*
 * Refuse the two merges whose file would mislead, in one line each: an IN
 * of another boot (its QPC or cycle times count from another zero, so its
 * events would sit at meaningless times among the first IN's), and two
 * INs of one recording (a copy, or its relog --expand-compact: the same
 * logger, StartTime and BootTime), whose every event would be counted twice.
 * etl_merge() itself counts the first (other_boot) and allows the second.
 */
static int merge_refused(const struct etl_file *const *files, size_t n)
{
	const struct trace_logfile_header *h0 = &files[0]->header;

	for (size_t i = 0; i < n; i++) {
		const struct trace_logfile_header *h = &files[i]->header;
		/* in 64 bits however far apart the two BootTimes are */
		uint64_t apart = h->boot_time > h0->boot_time ?
			(uint64_t)h->boot_time - (uint64_t)h0->boot_time :
			(uint64_t)h0->boot_time - (uint64_t)h->boot_time;

		/* SYSTEM time (reserved_flags 2) is wall-clock time: any boot's compare */
		if (i && h0->reserved_flags != 2 && h->reserved_flags != 2 &&
		    h->boot_time && h0->boot_time &&
		    apart > (uint64_t)ETL_MERGE_BOOT_SLACK) {
			fprintf(stderr, "ntkl merge: %s was recorded in another boot than %s (their BootTimes %.0f s apart): their clocks count from different boots, so the merged times would mean nothing; merge files of one boot (or record both with -clock system)\n",
				files[i]->path, files[0]->path, (double)apart / 1e7);
			return 1;
		}
		for (size_t j = 0; j < i; j++) {
			const struct trace_logfile_header *o = &files[j]->header;

			if (h->start_time && h->start_time == o->start_time &&
			    h->boot_time == o->boot_time &&
			    !strcmp(files[i]->logger_name, files[j]->logger_name)) {
				fprintf(stderr, "ntkl merge: %s and %s are one recording (logger '%s', same StartTime: a copy, or a relog of the other): merged, every event would be there twice; merge one of them with the other loggers' files\n",
					files[j]->path, files[i]->path, files[i]->logger_name);
				return 1;
			}
		}
	}
	return 0;
}

int cmd_merge(int argc, char **argv)
{
	static const struct option options[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct etl_file **files = NULL;
	struct etl_file *opened = NULL;
	struct etl_relog_stats st;
	struct cmd_output output = { 0 };
	struct etl_error err;
	const char *out = NULL;
	uint8_t *img = NULL;
	size_t size, n = 0;
	int opt, ret = 1;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "o:h", options, NULL)) != -1) {
		switch (opt) {
		case 'o':
			out = optarg;
			break;
		case 'h':
			cmd_merge_usage(stdout);
			return 0;
		default:
			return cmd_usage_error("merge", cmd_merge_usage, "%s '%s'",
					       optopt == 'o' ? "no file after" : "unknown option",
					       argv[optind - 1]);
		}
	}
	if (!out || argc - optind < 1)
		return cmd_usage_error("merge", cmd_merge_usage, "%s",
				       !out ? "say where to write: -o OUT.etl" :
				       "needs at least one IN.etl");
	if (cmd_output_check(&output, "merge", out, CMD_OUTPUT_FILE_TOOL, &argv[optind],
			     argc - optind))
		goto out;
	opened = calloc((size_t)(argc - optind), sizeof(*opened));
	files = calloc((size_t)(argc - optind), sizeof(*files));
	if (!opened || !files) {
		fprintf(stderr, "ntkl merge: out of memory\n");
		goto out;
	}
	for (; n < (size_t)(argc - optind); n++) {
		if (etl_open(&opened[n], argv[optind + (int)n], &err)) {
			fprintf(stderr, "ntkl merge: %s: %s\n", argv[optind + (int)n], err.msg);
			goto out;
		}
		files[n] = &opened[n];
	}
	if (merge_refused(files, n))
		goto out;
	if (etl_merge(files, n, &img, &size, &st, &err)) {
		fprintf(stderr, "ntkl merge: %s\n", err.msg);
		goto out;
	}
	ret = cmd_output_write_whole(&output, img, size);
	if (ret)
		goto out;
	/* with OUT on standard output, the summary goes to stderr */
	fprintf(output.to_stdout ? stderr : stdout, "%s: %lu files merged: %lu events in %lu buffers (from %lu)\n", out, st.files,
	       st.records, st.buffers_out, st.buffers_in);
out:
	cmd_output_free(&output);
	free(img);
	while (n--)
		etl_close(&opened[n]);
	free(opened);
	free(files);
	return ret;
}
