// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl convert --to chrome-json [--samples] IN.etl [-o OUT.json]
 *
 * An ETL file for the timeline viewers people have without WPA: the
 * Trace Event Format that Perfetto UI and speedscope open (etl_chrome.h:
 * one track per CPU with the thread running on it). Not chrome://tracing:
 * current Chromium no longer has it.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cmd.h"
#include "cmd_output.h"
#include "analysis/analysis.h"

void cmd_convert_usage(FILE *out)
{
	fprintf(out,
		"usage: ntkl convert --to chrome-json [--samples] IN.etl [-o OUT.json]\n"
		"\n"
		"Write IN.etl in the Trace Event Format (JSON) that Perfetto UI\n"
		"(ui.perfetto.dev: Open trace file) and speedscope (speedscope.app,\n"
		"or npm's speedscope package offline) open: one track per CPU\n"
		"showing the thread that ran on it, and one per thread showing where\n"
		"it ran, under its process (from CSwitch or CompCS events; record\n"
		"with -on CSWITCH), named from the Thread and Process events\n"
		"(PROC_THREAD and its rundown). A program's own events (libntkl's,\n"
		"a Windows provider's) go on its threads' tracks: a start (opcode 1)\n"
		"and the stop (2) of the same provider, task and activity id on its\n"
		"thread as one slice, named as the start; others as instants; after\n"
		"ntkl merge of a capture and a libntkl file, next to where those\n"
		"threads ran.\n"
		"\n"
		"  -t, --to FORMAT  the format to write: chrome-json (the only one)\n"
		"  -s, --samples    also one instant event per PROFILE sample\n"
		"  -o, --output OUT the file to write (default IN with .json for\n"
		"                   .etl; - for standard output). OUT is written\n"
		"                   whole, then renamed over the old one (a\n"
		"                   symlink's target is replaced, not the link);\n"
		"                   not IN, a device or a FIFO\n"
		"  -h, --help       this text\n"
		"\n"
		"Exit status: 0 written, 1 unreadable IN or unwritable OUT, 2 usage error.\n");
}

static int usage_error(const char *why, const char *arg)
{
	return cmd_usage_error("convert", cmd_convert_usage, why, arg);
}

/* IN.etl -> IN.json; anything else -> IN.json appended. */
static void default_output(const char *in, char *out, size_t size)
{
	size_t n = strlen(in);

	if (n > 4 && !strcasecmp(in + n - 4, ".etl"))
		n -= 4;
	snprintf(out, size, "%.*s.json", (int)n, in);
}

int cmd_convert(int argc, char **argv)
{
	static const struct option options[] = {
		{ "to", required_argument, NULL, 't' },
		{ "samples", no_argument, NULL, 's' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *to = NULL, *output = NULL, *in;
	char outbuf[4096];
	struct etl_chrome_stats st;
	struct etl_error err;
	struct etl_file f;
	unsigned int flags = 0;
	struct cmd_output out;
	int opt, ret;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "t:so:h", options, NULL)) != -1) {
		switch (opt) {
		case 't':
			to = optarg;
			break;
		case 's':
			flags |= ETL_CHROME_SAMPLES;
			break;
		case 'o':
			output = optarg;
			break;
		case 'h':
			cmd_convert_usage(stdout);
			return 0;
		case ':':
			return usage_error("%s needs a value", argv[optind - 1]);
		default:
			return usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (!to)
		return usage_error("%s", "missing --to chrome-json");
	if (strcmp(to, "chrome-json"))
		return usage_error("unknown format '%s': chrome-json is the one there is", to);
	if (argc - optind != 1)
		return usage_error("%s", argc == optind ? "missing IN.etl" : "only one IN.etl, please");
	in = argv[optind];
	if (!output) {
		default_output(in, outbuf, sizeof(outbuf));
		output = outbuf;
	}
	if (cmd_output_check(&out, "convert", output, CMD_OUTPUT_FILE_TOOL, &argv[optind], 1)) {
		cmd_output_free(&out);
		return 1;
	}
	if (etl_open(&f, in, &err)) {
		fprintf(stderr, "ntkl convert: %s: %s\n", in, err.msg);
		cmd_output_free(&out);
		return 1;
	}
	if (cmd_output_begin(&out)) {
		etl_close(&f);
		cmd_output_free(&out);
		return 1;
	}
	ret = etl_chrome_write(out.fp, &f, flags, &st, &err);
	etl_close(&f);
	if (ret) {
		/* the old OUT stays; only the temporary file goes */
		fprintf(stderr, "ntkl convert: %s: %s\n", in, err.msg);
		cmd_stdout_error_said = out.to_stdout;
		cmd_output_free(&out);
		return 1;
	}
	ret = cmd_output_commit(&out);
	cmd_output_free(&out);
	if (ret)
		return 1;
	if (!out.to_stdout)
		fprintf(stderr, "ntkl convert: wrote %s: %u CPU tracks, %lu threads in %lu processes, %lu slices, %lu samples, %lu program events%s\n",
			output, st.cpus, st.threads, st.processes, st.slices, st.samples, st.events,
			st.slices ? "" : " (no context switches: record with -on CSWITCH)");
	return 0;
}
