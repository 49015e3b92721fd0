// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl report [--json] [--pid|--tid|--comm|--time|--top|--sort ...] FILE.etl
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
		"usage: ntkl report [--json] [--pid PIDS] [--tid TIDS] [--comm NAME]\n"
		"                   [--time START,END] [--top N] [--sort KEY] FILE.etl\n"
		"\n"
		"What a capture says at first sight: its duration, events and bytes,\n"
		"events lost (and how to avoid losing them), how busy each CPU was,\n"
		"context switches per second, the samples per CPU per second beside\n"
		"the rate requested, the processes and threads with the most CPU\n"
		"time, why threads waited and for how long, how long a thread made\n"
		"ready waited for a CPU (ReadyThread to switch in: p50, p90, p99,\n"
		"max), how many processes and threads started and ended, and the\n"
		"functions with the most samples (kernel and user), named from this\n"
		"machine's files and kernel as ntkl symbols names them for WPA (the\n"
		"table of dump --stats). CSwitch and CompCS captures alike.\n"
		"\n"
		"The duration is the collection's: first to last event of what the\n"
		"system did, not the records written around it (rundowns, SystemConfig\n"
		"at stop, sessions merged in after it); rates and busy %% are of it. A\n"
		"CPU's busy %% is of the whole collection: before its first context\n"
		"switch the old thread of that switch ran, after its last the new one.\n"
		"Each table names its source: from context switches (CSWITCH: CPU time,\n"
		"switches in, busy %%, waits; ready latency also needs DISPATCHER) and\n"
		"from SampledProfile (PROFILE: processes, threads and images by\n"
		"samples, weight = samples x interval, as WPA's CPU Usage (Sampled));\n"
		"a trace with both gets both, a profile-only trace the sampled ones.\n"
		"Wait reasons are most first, with the total and mean wait (WPA's\n"
		"Waits: switch out to the thread's ReadyThread, else its next switch\n"
		"in). Nothing measured reads \"none\" (null in the JSON). Names need\n"
		"PROC_THREAD.\n"
		"\n"
		"  -j, --json    one JSON object instead, every process and thread\n"
		"      --pid PIDS, --tid TIDS\n"
		"                only these processes' or threads' rows (decimal,\n"
		"                comma-separated), with their waits, ready latency and\n"
		"                sampled images; the CPU lines stay the system's\n"
		"      --comm NAME\n"
		"                only the threads of that name, or of a process of it\n"
		"      --time START,END\n"
		"                only that window, in seconds from the collection's\n"
		"                start (e.g. 1.5,3): busy %%, CPU time, switches, waits,\n"
		"                ready latency, samples, the duration and the rates\n"
		"                (events, losses and the functions table stay the file's)\n"
		"      --top N   N rows a table (default 10)\n"
		"      --sort KEY\n"
		"                the tables' order: cpu (CPU time or samples, most\n"
		"                first; the default), pid, tid or name\n"
		"  -h, --help    this text\n"
		"\n"
		"A bad value is one line naming the option, exit 2.\n"
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
