// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl dump [--events] [--check] FILE
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "lib/etl_dump.h"

void cmd_dump_usage(FILE *out)
{
	fprintf(out,
		"usage: ntkl dump [--events] [--check] FILE\n"
		"\n"
		"Print an ETL file like tracerpt's summary: the logfile header, one\n"
		"line per buffer and the number of events of each type.\n"
		"\n"
		"  -e, --events  also print every event, with its fields where the\n"
		"                payload layout is known\n"
		"  -c, --check   run the strict reader checks instead of the summary:\n"
		"                print every violation and exit 1, or one OK line\n"
		"  -h, --help    this text\n"
		"\n"
		"Exit status: 0 OK, 1 unreadable file or failed check, 2 usage error.\n"
		"Compressed ETL files (BufferFlag 0x40) are refused.\n");
}

int cmd_dump(int argc, char **argv)
{
	static const struct option options[] = {
		{ "events", no_argument, NULL, 'e' },
		{ "check", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned int flags = 0;
	char prefix[4096];
	int opt;

	optind = 1;
	opterr = 0;	/* our own message, with the command's name */
	while ((opt = getopt_long(argc, argv, "ech", options, NULL)) != -1) {
		switch (opt) {
		case 'e':
			flags |= ETL_DUMP_EVENTS;
			break;
		case 'c':
			flags |= ETL_DUMP_CHECK;
			break;
		case 'h':
			cmd_dump_usage(stdout);
			return 0;
		default:
			fprintf(stderr, "ntkl dump: unknown option '%s'\n",
				argv[optind - 1]);
			cmd_dump_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (argc - optind != 1) {
		fprintf(stderr, "ntkl dump: %s\n",
			argc == optind ? "missing FILE" : "only one FILE, please");
		cmd_dump_usage(stderr);
		return EXIT_USAGE;
	}
	snprintf(prefix, sizeof(prefix), "ntkl dump: %s: ", argv[optind]);
	return etl_dump_path(argv[optind], flags, stdout, stderr, prefix);
}
