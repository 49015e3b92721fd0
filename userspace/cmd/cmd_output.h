/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one place that decides what a command may write (cmd_output.c),
 * used by every command that writes a file: relog, merge and convert make
 * theirs whole through a temporary file; record, start and save only have
 * OUT checked here before the module is opened.
 *
 * The rules, the same for every command:
 *  - OUT is a regular file, or does not exist yet. A directory, device,
 *    FIFO or socket is refused with one line: a rename over it would
 *    replace /dev/null for everyone, a write into it is not a file.
 *  - A symlink is followed: its target is written, the link stays.
 *  - OUT is none of the inputs, however it is named (a hard link, a
 *    symlink, /proc/self/fd/N): (st_dev, st_ino) are compared.
 *  - "-" is standard output for the file tools (relog, merge, convert);
 *    a capture command refuses it (its COMMAND writes there).
 *  - The new file is written beside OUT, synced, then renamed over
 *    OUT: a command that fails or is killed leaves the old OUT (or
 *    none) and no temporary file. The new file has no name until it is
 *    whole (O_TMPFILE), so even SIGKILL leaves nothing; where the file
 *    system cannot do that it is OUT.XXXXXX, which SIGINT, SIGTERM and
 *    SIGHUP remove before they end the process. Nothing but that
 *    temporary file is ever removed.
 */
#ifndef NTKL_CMD_OUTPUT_H
#define NTKL_CMD_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct cmd_output {
	const char *cmd;	/* "relog": the messages' "ntkl relog: " */
	const char *path;	/* OUT as given */
	char *target;		/* the file replaced: path, or its symlink's target */
	bool to_stdout;		/* OUT is "-" */
	bool exists;		/* target is a regular file now */
	mode_t mode;		/* target's permissions, kept by the new file */
	bool unnamed;		/* the new file is an O_TMPFILE one until commit */
	char *tmp;		/* the named temporary file while it exists */
	FILE *fp;		/* open on tmp (or stdout) between begin and commit */
};

/*
 * Set when a command has said that standard output, its OUT, failed:
 * the dispatcher's own check (ntkl.c) then does not say it again.
 */
extern bool cmd_stdout_error_said;

/* What a command allows for OUT. */
enum cmd_output_kind {
	CMD_OUTPUT_FILE_TOOL,	/* "-" is standard output */
	CMD_OUTPUT_CAPTURE,	/* "-" is refused */
};

/*
 * Check OUT (path) against the rules above, before any work is done:
 * 0, or 1 (the exit status) after one line on stderr naming the fix.
 * ins[0..nins-1] are the command's input files. o is then ready for
 * cmd_output_begin(); cmd_output_free() lets go of it either way.
 */
int cmd_output_check(struct cmd_output *o, const char *cmd, const char *path,
		     enum cmd_output_kind kind, char *const ins[], int nins);

/*
 * The check alone, for a command that writes OUT in place (record, start,
 * save: a capture is written as it runs, not renamed): 0, or 1 said.
 */
int cmd_output_check_only(const char *cmd, const char *path);

/*
 * Create the temporary file beside the target and open o->fp on it (or
 * o->fp = stdout for "-"). Until commit or abort, SIGINT, SIGTERM and
 * SIGHUP remove the temporary file before they end the process. 0, or 1
 * after one line on stderr.
 */
int cmd_output_begin(struct cmd_output *o);

/*
 * Flush, sync and close the temporary file and rename it over the target
 * (for "-": flush standard output). 0, or 1 after one line on stderr (a
 * write error is an error); either way the temporary file is gone.
 */
int cmd_output_commit(struct cmd_output *o);

/* Give up: the temporary file is removed, the target left as it was. */
void cmd_output_abort(struct cmd_output *o);

void cmd_output_free(struct cmd_output *o);

/* After the check: begin, size bytes of data, commit. 0, or 1 (said on stderr). */
int cmd_output_write_whole(struct cmd_output *o, const uint8_t *data, size_t size);

#endif /* NTKL_CMD_OUTPUT_H */
