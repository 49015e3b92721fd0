// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl relog [--expand-compact] [--expand-stacks] IN.etl OUT.etl
 *
 * A compact capture (COMPACT_CSWITCH: CompCS batches, about a third of
 * the bytes of CSwitch events) rewritten with a CSwitch event per switch,
 * for the tools that never expand CompCS (TraceEvent: PerfView,
 * TraceProcessor's .NET users); a capture with cached stacks
 * (-stackcaching) with a Stack record per stack, for the readers that do
 * not resolve stack keys. The work is etl_relog.h's; OUT is whole or not
 * there at all (cmd_write_whole()).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "cmd_output.h"
#include "analysis/analysis.h"

void cmd_relog_usage(FILE *out)
{
	fprintf(out,
		"usage: ntkl relog [--expand-compact] [--expand-stacks] IN.etl OUT.etl\n"
		"\n"
		"Write IN.etl to OUT.etl with every CompCS batch (COMPACT_CSWITCH)\n"
		"replaced by the CSwitch events it stands for, in time order with\n"
		"the other events, so that tools which do not expand CompCS\n"
		"(PerfView, TraceEvent, TraceProcessor) see every context switch.\n"
		"Fields CompCS does not carry get the defaults docs/linux-to-nt.md\n"
		"gives (\"CompCS expanded\"); a CPU's last compact switch names no new\n"
		"thread and is dropped. IN may be compressed; OUT never is.\n"
		"OUT is written whole, then renamed over the old one (a symlink's\n"
		"target is replaced, not the link); it may not be IN, nor a device\n"
		"or FIFO; - writes to standard output. An IN with no CompCS batch\n"
		"(not recorded with COMPACT_CSWITCH) is copied, and the line says\n"
		"there was nothing to expand.\n"
		"\n"
		"With --expand-stacks, each cached stack (recorded with -stackcaching,\n"
		"or by Windows' stack caching: StackKeyKernel and StackKeyUser\n"
		"references, KeyDelete and KeyRundown definitions) becomes a Stack\n"
		"event of its frames, kernel then user, and the definitions are\n"
		"dropped, for readers that do not resolve stack keys.\n"
		"\n"
		"  -x, --expand-compact  expand the CompCS batches\n"
		"  -s, --expand-stacks   expand the cached stacks\n"
		"  -h, --help            this text\n"
		"\n"
		"Exit status: 0 written, 1 unreadable IN or unwritable OUT, 2 usage error.\n");
}

int cmd_relog(int argc, char **argv)
{
	static const struct option options[] = {
		{ "expand-compact", no_argument, NULL, 'x' },
		{ "expand-stacks", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct etl_relog_stats st;
	struct cmd_output out;
	struct etl_error err;
	struct etl_file f;
	uint8_t *img;
	size_t size;
	unsigned int expand = 0;
	int opt, ret;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "xsh", options, NULL)) != -1) {
		switch (opt) {
		case 'x':
			expand |= ETL_RELOG_EXPAND_COMPACT;
			break;
		case 's':
			expand |= ETL_RELOG_EXPAND_STACKS;
			break;
		case 'h':
			cmd_relog_usage(stdout);
			return 0;
		default:
			return cmd_usage_error("relog", cmd_relog_usage, "unknown option '%s'",
					       argv[optind - 1]);
		}
	}
	if (!expand || argc - optind != 2) {
		return cmd_usage_error("relog", cmd_relog_usage, "%s", !expand ?
				       "say what to do: --expand-compact, --expand-stacks or both" :
				       "needs IN.etl and OUT.etl");
	}
	if (cmd_output_check(&out, "relog", argv[optind + 1], CMD_OUTPUT_FILE_TOOL,
			     &argv[optind], 1)) {
		cmd_output_free(&out);
		return 1;
	}
	if (etl_open(&f, argv[optind], &err)) {
		fprintf(stderr, "ntkl relog: %s: %s\n", argv[optind], err.msg);
		cmd_output_free(&out);
		return 1;
	}
	ret = etl_relog_expand(&f, expand, &img, &size, &st, &err);
	etl_close(&f);
	if (ret) {
		fprintf(stderr, "ntkl relog: %s: %s\n", argv[optind], err.msg);
		cmd_output_free(&out);
		return 1;
	}
	ret = cmd_output_write_whole(&out, img, size);
	free(img);
	cmd_output_free(&out);
	if (ret)
		return 1;
	/* with OUT on standard output, the summary goes to stderr */
	if (expand & ETL_RELOG_EXPAND_STACKS)
		fprintf(out.to_stdout ? stderr : stdout, "%s: %lu stack key references expanded to %lu Stack events (%lu references to no definition), %lu definitions dropped\n",
			argv[optind + 1], st.stack_refs, st.stacks, st.stack_unresolved,
			st.stack_defs);
	if (!(expand & ETL_RELOG_EXPAND_COMPACT))
		return 0;
	if (!st.batches) {
		fprintf(out.to_stdout ? stderr : stdout, "%s: nothing to expand: %s has no CompCS batch (it was not recorded with COMPACT_CSWITCH, or was expanded already); its %lu events are copied as they are, in %lu buffers\n",
			argv[optind + 1], argv[optind], st.records, st.buffers_out);
		return 0;
	}
	fprintf(out.to_stdout ? stderr : stdout, "%s: %lu CompCS batches expanded to %lu CSwitch events (%lu dropped: a CPU's last compact switch names no new thread), %lu other events copied; %lu buffers in, %lu out\n",
	       argv[optind + 1], st.batches, st.switches, st.dropped, st.records,
	       st.buffers_in, st.buffers_out);
	return 0;
}
