// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl dump [--events] [--check] FILE
 * ntkl dump --stats [--all] [--pid|--tid|--comm|--time|--top|--sort ...] FILE
 * ntkl dump --switches FILE
 * ntkl dump --repair FILE
 */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "analysis/analysis.h"
#include "symbols/symbols.h"

void cmd_dump_usage(FILE *out)
{
	fprintf(out,
		"usage: ntkl dump [--events] [--check] FILE\n"
		"       ntkl dump --stats [--all] [--pid PIDS] [--tid TIDS] [--comm NAME]\n"
		"                 [--time START,END] [--top N] [--sort KEY] FILE\n"
		"       ntkl dump --switches FILE\n"
		"       ntkl dump --repair FILE\n"
		"\n"
		"Print an ETL file like tracerpt's summary: the logfile header, one\n"
		"line per buffer, the number of events of each type and the\n"
		"user-mode providers (events, name, the binary that provides them).\n"
		"\n"
		"  -e, --events  also print every event, with its fields where the\n"
		"                payload layout is known; each context switch, a\n"
		"                CSwitch event or a packet of a CompCS batch, also\n"
		"                gets one line in a form common to both:\n"
		"                  switch cpu=C time=T old=TID new=TID state=S\n"
		"                         reason=R prio=P wait=W\n"
		"                (\"-\" where the compact form has no value: new for\n"
		"                a CPU's last compact switch; state, reason, prio\n"
		"                and wait when the idle thread (0) switches out;\n"
		"                reason unless Waiting; wait \"0-1\" for 0 or 1 tick)\n"
		"  -c, --check   run the strict reader checks instead of the summary:\n"
		"                print every violation and exit 1, or one OK line\n"
		"  -s, --stats   instead of the summary, the context switches: per CPU\n"
		"                and in total, for CSwitch events and CompCS batches\n"
		"                apart, the switches, records, bytes (headers and\n"
		"                padding included) and bytes per switch; ReadyThread\n"
		"                events per CPU; if the file has SampledProfile\n"
		"                events, samples per CPU, the samples per CPU per\n"
		"                second achieved over the collection (as ntkl\n"
		"                report's duration) beside the rate the file\n"
		"                requested (its CollectionStart or SetInterval), and\n"
		"                the 10 processes, threads and images with the most;\n"
		"                then the number\n"
		"                of events of each name (hook, class type or\n"
		"                provider event id), most first, for any file; last,\n"
		"                the 10 functions with the most samples, named as\n"
		"                ntkl symbols names them for WPA, from this\n"
		"                machine's files and kernel (where it was recorded)\n"
		"  -a, --all     with --stats: every process, thread, image and\n"
		"                function that has samples, not only the 10 with the most\n"
		"      --pid PIDS, --tid TIDS, --comm NAME, --time START,END\n"
		"                with --stats: the sampled processes, threads and\n"
		"                images of only these processes or threads (decimal,\n"
		"                comma-separated), or of that thread or process name;\n"
		"                only the samples in that window (seconds from the\n"
		"                collection's start, e.g. 1.5,3), per CPU and in the\n"
		"                rate too (the switch, DPC and event counts stay the\n"
		"                file's), as ntkl report's options\n"
		"      --top N   with --stats: N rows a table (default 10)\n"
		"      --sort KEY\n"
		"                with --stats: the sampled tables' order: cpu\n"
		"                (samples, most first; the default), pid, tid or name\n"
		"      --switches\n"
		"                instead of the summary, every context switch, for\n"
		"                scripts: a line \"# cpu time old new clock=CLOCKTYPE\n"
		"                freq=PERFFREQ\", then \"CPU TIME OLD_TID NEW_TID\" per\n"
		"                switch in decimal, sorted by CPU then time, TIME in\n"
		"                raw clock units, \"-\" for an unknown NEW_TID\n"
		"      --repair  complete a file whose writer died before it could\n"
		"                (kill -9, a crash, a full disk), in place: cut a\n"
		"                partly written buffer off the end, set the\n"
		"                header's BuffersWritten to the whole buffers and\n"
		"                EndTime to the latest buffer's time, mark the last\n"
		"                buffer; EventsLost, BuffersLost and the rest stay\n"
		"                as recorded. A file that needs none of it is left\n"
		"                as it is (\"nothing to repair\", exit 0); one that\n"
		"                is not an ETL file, or is damaged before its end,\n"
		"                is refused and left as it is\n"
		"  -h, --help    this text\n"
		"\n"
		"A bad value is one line naming the option, exit 2.\n"
		"Exit status: 0 OK, 1 unreadable file or failed check, 2 usage error.\n"
		"Compressed ETL files (BufferFlag 0x40, as WPR and PerfView save them)\n"
		"are decompressed as they are read; a corrupt compressed buffer is an\n"
		"error naming the buffer and its file offset.\n");
}


int cmd_dump(int argc, char **argv)
{
	static const struct option options[] = {
		{ "events", no_argument, NULL, 'e' },
		{ "check", no_argument, NULL, 'c' },
		{ "stats", no_argument, NULL, 's' },
		{ "all", no_argument, NULL, 'a' },
		{ "switches", no_argument, NULL, 'S' },
		{ "repair", no_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ "pid", required_argument, NULL, 'p' },
		{ "tid", required_argument, NULL, 't' },
		{ "comm", required_argument, NULL, 'C' },
		{ "time", required_argument, NULL, 'T' },
		{ "top", required_argument, NULL, 'n' },
		{ "sort", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	struct etl_filter flt = { 0 };
	bool filtered = false;
	char why[256];
	unsigned int flags = 0;
	bool repair = false, all = false;
	char prefix[4096];
	struct sym_loader ld = { 0 };
	int opt, rc;

	optind = 1;
	opterr = 0;	/* our own message, with the command's name */
	while ((opt = getopt_long(argc, argv, ":echsa", options, NULL)) != -1) {
		switch (opt) {
		case 'e':
			flags |= ETL_DUMP_EVENTS;
			break;
		case 'c':
			flags |= ETL_DUMP_CHECK;
			break;
		case 's':
			flags |= ETL_DUMP_STATS;
			break;
		case 'a':
			all = true;
			break;
		case 'S':
			flags |= ETL_DUMP_SWITCHES;
			break;
		case 'R':
			repair = true;
			break;
		case 'h':
			cmd_dump_usage(stdout);
			return 0;
		case 'p':
		case 't':
		case 'C':
		case 'T':
		case 'n':
		case 'o':
			if (etl_filter_option(&flt, opt == 'C' ? 'c' : opt == 'o' ? 's' : opt, optarg,
					      why, sizeof(why))) {
				fprintf(stderr, "ntkl dump: %s\n", why);
				return EXIT_USAGE;
			}
			filtered = true;
			break;
		case ':':
			return cmd_usage_error("dump", cmd_dump_usage, "%s needs a value",
					       argv[optind - 1]);
		default:
			return cmd_usage_error("dump", cmd_dump_usage, "unknown option '%s'",
					       argv[optind - 1]);
		}
	}
	/* --stats and --switches replace the summary: nothing else goes with them. */
	if ((flags & (ETL_DUMP_STATS | ETL_DUMP_SWITCHES)) &&
	    (flags & ~ETL_DUMP_STATS) && (flags & ~ETL_DUMP_SWITCHES)) {
		return cmd_usage_error("dump", cmd_dump_usage,
				       "--stats and --switches go with no other option");
	}
	if (all && flags != ETL_DUMP_STATS)
		return cmd_usage_error("dump", cmd_dump_usage, "--all goes with --stats only");
	if (filtered && !(flags & ETL_DUMP_STATS))
		return cmd_usage_error("dump", cmd_dump_usage,
				       "--pid, --tid, --comm, --time, --top and --sort go with --stats");
	if (all && flt.top)
		return cmd_usage_error("dump", cmd_dump_usage, "--all or --top, not both");
	if (all)
		flags |= ETL_DUMP_ALL_ROWS;
	if (repair && flags) {
		return cmd_usage_error("dump", cmd_dump_usage, "--repair goes with no other option");
	}
	if (argc - optind != 1) {
		return cmd_usage_error("dump", cmd_dump_usage, "%s",
				       argc == optind ? "missing FILE" : "only one FILE, please");
	}
	if (repair)
		return cmd_dump_repair(argv[optind]);
	snprintf(prefix, sizeof(prefix), "ntkl dump: %s: ", argv[optind]);
	/* --stats' last table: the functions, named as ntkl symbols names them for WPA */
	rc = etl_dump_path_named(argv[optind], flags, &flt, flags & ETL_DUMP_STATS ? &ld : NULL,
				 stdout, stderr, prefix);
	sym_loader_free(&ld);
	return rc;
}
