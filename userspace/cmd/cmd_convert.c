// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl convert --to chrome-json [--samples] IN.etl [-o OUT.json]
 * ntkl convert --to folded [--event profile|cswitch] [--tid] IN.etl [-o OUT]
 *
 * An ETL file for the viewers people have without WPA: the Trace Event
 * Format that Perfetto UI and speedscope open (etl_chrome.h: one track
 * per CPU with the thread running on it; not chrome://tracing: current
 * Chromium no longer has it), and folded stacks for flame graphs
 * (etl_folded.h: flamegraph.pl, speedscope, inferno), their frames named
 * as dump --stats names them.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cmd.h"
#include "cmd_output.h"
#include "analysis/analysis.h"

void cmd_convert_usage(FILE *out)
{
	fprintf(out,
		"usage: ntkl convert --to chrome-json [--samples] IN.etl [-o OUT.json]\n"
		"       ntkl convert --to folded [--event profile|cswitch] [--tid] IN.etl [-o OUT]\n"
		"\n"
		"chrome-json: write IN.etl in the Trace Event Format (JSON) that\n"
		"Perfetto UI (ui.perfetto.dev: Open trace file) and speedscope\n"
		"(speedscope.app, or npm's speedscope package offline) open: one\n"
		"track per CPU showing the thread that ran on it, and one per thread\n"
		"showing where it ran, under its process (from CSwitch or CompCS\n"
		"events; record with -on CSWITCH), named from the Thread and Process\n"
		"events (PROC_THREAD and its rundown). A program's own events\n"
		"(libntkl's, a Windows provider's) go on its threads' tracks: a start\n"
		"(opcode 1) and the stop (2) of the same provider, task and activity\n"
		"id on its thread as one slice, named as the start; others as\n"
		"instants; after ntkl merge of a capture and a libntkl file, next to\n"
		"where those threads ran.\n"
		"\n"
		"folded: write IN.etl's stacks as flame graph tools read them\n"
		"(flamegraph.pl, speedscope, inferno; what perf script |\n"
		"stackcollapse-perf.pl gives): one line per distinct stack,\n"
		"\"process;outermost;...;innermost count\", each frame image!function\n"
		"as ntkl symbols names it for WPA (from this machine's files and\n"
		"kernel: run it where the trace was recorded; image!? where the image\n"
		"has no name for it, one line on stderr per image says why; ? in no\n"
		"image). By default the PROFILE samples' stacks (record with -on\n"
		"PROC_THREAD+LOADER+PROFILE -stackwalk Profile; a sample without a\n"
		"stack is its IP alone).\n"
		"\n"
		"  -t, --to FORMAT  the format to write: chrome-json or folded\n"
		"  -s, --samples    chrome-json: also one instant event per PROFILE\n"
		"                   sample\n"
		"  -e, --event EV   folded: whose stacks: profile (the samples', the\n"
		"                   default) or cswitch (each CSwitch's new thread's,\n"
		"                   WPA's New Thread Stack: where threads waited;\n"
		"                   record with -on ...+CSWITCH -stackwalk CSwitch)\n"
		"      --tid        folded: the process as process-PID/TID, one\n"
		"                   flame per thread (stackcollapse-perf.pl --tid)\n"
		"  -o, --output OUT the file to write (default IN with .json, or\n"
		"                   .folded, for .etl; - for standard output). OUT\n"
		"                   is written whole, then renamed over the old one\n"
		"                   (a symlink's target is replaced, not the link);\n"
		"                   not IN, a device or a FIFO\n"
		"  -h, --help       this text\n"
		"\n"
		"Exit status: 0 written, 1 unreadable IN or unwritable OUT, 2 usage error.\n");
}

static int usage_error(const char *why, const char *arg)
{
	return cmd_usage_error("convert", cmd_convert_usage, why, arg);
}

/* IN.etl -> IN.EXT; anything else -> .EXT appended. */
static void default_output(const char *in, const char *ext, char *out, size_t size)
{
	size_t n = strlen(in);

	if (n > 4 && !strcasecmp(in + n - 4, ".etl"))
		n -= 4;
	snprintf(out, size, "%.*s.%s", (int)n, in, ext);
}

/* The folded export, to out.fp; 0, or 1 said. */
static int write_folded(struct cmd_output *out, const struct etl_file *f, const char *in,
			enum etl_folded_event event, unsigned int flags,
			struct etl_folded_stats *st)
{
	struct sym_loader ld = { 0 };
	char *notes = NULL, *line, *next;
	size_t notes_size = 0;
	FILE *notes_fp = open_memstream(&notes, &notes_size);
	struct etl_error err;
	int ret;

	ret = etl_folded_write(out->fp, f, event, flags, &ld, notes_fp, st, &err);
	sym_loader_free(&ld);
	/* the images it could not name, each line as the command's own */
	if (notes_fp && !fclose(notes_fp) && notes) {
		for (line = notes; *line; line = next) {
			next = strchr(line, '\n');
			next = next ? next + 1 : line + strlen(line);
			fprintf(stderr, "ntkl convert: %.*s", (int)(next - line), line);
		}
	}
	free(notes);
	if (ret)
		fprintf(stderr, "ntkl convert: %s: %s\n", in, err.msg);
	return ret ? 1 : 0;
}

int cmd_convert(int argc, char **argv)
{
	static const struct option options[] = {
		{ "to", required_argument, NULL, 't' },
		{ "samples", no_argument, NULL, 's' },
		{ "event", required_argument, NULL, 'e' },
		{ "tid", no_argument, NULL, 'T' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *to = NULL, *output = NULL, *in, *event_name = NULL;
	enum etl_folded_event event = ETL_FOLDED_PROFILE;
	struct etl_chrome_stats st;
	struct etl_folded_stats fst;
	unsigned int flags = 0, folded_flags = 0;
	bool folded;
	char outbuf[4096];
	struct etl_error err;
	struct etl_file f;
	struct cmd_output out;
	int opt, ret;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":t:se:o:h", options, NULL)) != -1) {
		switch (opt) {
		case 't':
			to = optarg;
			break;
		case 's':
			flags |= ETL_CHROME_SAMPLES;
			break;
		case 'e':
			event_name = optarg;
			break;
		case 'T':
			folded_flags |= ETL_FOLDED_TID;
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
		return usage_error("%s", "missing --to chrome-json or --to folded");
	if (strcmp(to, "chrome-json") && strcmp(to, "folded"))
		return usage_error("unknown format '%s': chrome-json or folded", to);
	folded = !strcmp(to, "folded");
	if (folded && flags)
		return usage_error("%s", "--samples goes with --to chrome-json");
	if (!folded && (event_name || folded_flags))
		return usage_error("%s", "--event and --tid go with --to folded");
	if (event_name && !strcmp(event_name, "cswitch"))
		event = ETL_FOLDED_CSWITCH;
	else if (event_name && strcmp(event_name, "profile"))
		return usage_error("unknown event '%s': profile or cswitch", event_name);
	if (argc - optind != 1)
		return usage_error("%s", argc == optind ? "missing IN.etl" : "only one IN.etl, please");
	in = argv[optind];
	if (!output) {
		default_output(in, folded ? "folded" : "json", outbuf, sizeof(outbuf));
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
	if (folded) {
		ret = write_folded(&out, &f, in, event, folded_flags, &fst);
	} else {
		ret = etl_chrome_write(out.fp, &f, flags, &st, &err);
		if (ret)
			fprintf(stderr, "ntkl convert: %s: %s\n", in, err.msg);
	}
	etl_close(&f);
	if (ret) {
		/* the old OUT stays; only the temporary file goes */
		cmd_stdout_error_said = out.to_stdout;
		cmd_output_free(&out);
		return 1;
	}
	ret = cmd_output_commit(&out);
	cmd_output_free(&out);
	if (ret)
		return 1;
	if (out.to_stdout)
		return 0;
	if (folded)
		fprintf(stderr, "ntkl convert: wrote %s: %lu distinct stacks of %lu %s, %lu of them with a stack%s\n",
			output, fst.lines, fst.events,
			event == ETL_FOLDED_CSWITCH ? "context switches" : "samples", fst.stacks,
			fst.stacks ? "" : event == ETL_FOLDED_CSWITCH ?
			" (record with -stackwalk CSwitch)" : " (record with -stackwalk Profile)");
	else
		fprintf(stderr, "ntkl convert: wrote %s: %u CPU tracks, %lu threads in %lu processes, %lu slices, %lu samples, %lu program events%s\n",
			output, st.cpus, st.threads, st.processes, st.slices, st.samples, st.events,
			st.slices ? "" : " (no context switches: record with -on CSWITCH)");
	return 0;
}
