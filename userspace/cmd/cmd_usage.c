// SPDX-License-Identifier: GPL-2.0
/*
 * The short usage every command prints on a usage error (cmd.h): the
 * reason, the synopsis lines of its help, and where the rest is. The
 * synopsis is cut from the command's own help text, so the two cannot
 * disagree.
 */
#define _GNU_SOURCE	/* open_memstream */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

int cmd_usage_error(const char *name, void (*usage)(FILE *out), const char *fmt, ...)
{
	char *text = NULL, *line, *next;
	size_t size = 0;
	FILE *mem;
	va_list ap;

	fprintf(stderr, "ntkl %s: ", name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);

	mem = open_memstream(&text, &size);
	if (mem) {
		usage(mem);
		fclose(mem);
	}
	/* the synopsis: the help's lines up to its first blank one */
	for (line = text; line && *line && *line != '\n'; line = next) {
		next = strchr(line, '\n');
		next = next ? next + 1 : line + strlen(line);
		fwrite(line, 1, (size_t)(next - line), stderr);
	}
	free(text);
	fprintf(stderr, "(ntkl help %s shows every option)\n", name);
	return EXIT_USAGE;
}
