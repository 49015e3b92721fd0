// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl report [--json] FILE.etl
 *
 * The first questions about a capture without opening WPA (etl_report.h):
 * duration, events, losses and their fix, CPU busy, context switches per
 * second, top processes and threads by CPU time, wait reasons, ready
 * latency, process and thread starts and ends, and the functions with the
 * most samples, named as ntkl symbols names them for WPA.
 */
#include <getopt.h>
#include <stdio.h>

#include "cmd.h"
#include "analysis/analysis.h"

void cmd_report_usage(FILE *out)
{
	fprintf(out,
		"usage: ntkl report [--json] FILE.etl\n"
		"\n"
		"What a capture says at first sight: its duration, events and bytes,\n"
		"events lost (and how to avoid losing them), how busy each CPU was,\n"
		"context switches per second, the processes and threads with the\n"
		"most CPU time, why threads waited, how long a thread made ready\n"
		"waited for a CPU (ReadyThread to switch in: p50, p90, p99, max),\n"
		"how many processes and threads started and ended, and the functions\n"
		"with the most samples (kernel and user), named from this machine's\n"
		"files and kernel as ntkl symbols names them for WPA (the table of\n"
		"dump --stats). CSwitch and CompCS captures alike; CPU time and busy\n"
		"need CSWITCH, ready latency DISPATCHER too, names PROC_THREAD,\n"
		"functions PROFILE.\n"
		"\n"
		"  -j, --json    one JSON object instead, every process and thread\n"
		"  -h, --help    this text\n"
		"\n"
		"Exit status: 0 reported, 1 unreadable file, 2 usage error.\n");
}

int cmd_report(int argc, char **argv)
{
	static const struct option options[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "pid", required_argument, NULL, 'p' },
		{ "tid", required_argument, NULL, 't' },
		{ "comm", required_argument, NULL, 'c' },
		{ "time", required_argument, NULL, 'T' },
		{ "top", required_argument, NULL, 'n' },
		{ "sort", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	struct etl_filter flt = { 0 };
	char why[256];
	struct etl_report r;
	struct sym_loader ld = { 0 };
	struct etl_error err;
	struct etl_file f;
	bool json = false;
	int opt;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":jh", options, NULL)) != -1) {
		switch (opt) {
		case 'j':
			json = true;
			break;
		case 'h':
			cmd_report_usage(stdout);
			return 0;
		case 'p':
		case 't':
		case 'c':
		case 'T':
		case 'n':
		case 's':
			if (etl_filter_option(&flt, opt, optarg, why, sizeof(why))) {
				fprintf(stderr, "ntkl report: %s\n", why);
				return EXIT_USAGE;
			}
			break;
		case ':':
			return cmd_usage_error("report", cmd_report_usage, "%s needs a value",
					       argv[optind - 1]);
		default:
			return cmd_usage_error("report", cmd_report_usage, "unknown option '%s'",
					       argv[optind - 1]);
		}
	}
	if (argc - optind != 1) {
		return cmd_usage_error("report", cmd_report_usage, "%s",
				       argc == optind ? "missing FILE" : "only one FILE, please");
	}
	if (etl_open(&f, argv[optind], &err)) {
		fprintf(stderr, "ntkl report: %s: %s\n", argv[optind], err.msg);
		return 1;
	}
	if (etl_report_read_filtered(&f, &r, &flt, &err) || etl_report_functions(&r, &ld, &err)) {
		fprintf(stderr, "ntkl report: %s: %s\n", argv[optind], err.msg);
		etl_report_free(&r);
		sym_loader_free(&ld);
		etl_close(&f);
		return 1;
	}
	if (json)
		etl_report_print_json(stdout, &r);
	else
		etl_report_print(stdout, &r);
	etl_report_free(&r);
	sym_loader_free(&ld);
	etl_close(&f);
	return 0;
}
