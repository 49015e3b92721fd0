// SPDX-License-Identifier: GPL-2.0
/*
 * A table of functions: the growing array every reader fills. See sym.h.
 */
#include <stdlib.h>
#include <string.h>

#include "sym.h"

void sym_table_init(struct sym_table *t)
{
	memset(t, 0, sizeof(*t));
}

void sym_table_free(struct sym_table *t)
{
	for (size_t i = 0; i < t->nfuncs; i++)
		free(t->funcs[i].name);
	free(t->funcs);
	sym_table_init(t);
}

int sym_table_add(struct sym_table *t, uint64_t addr, uint64_t size, const char *name)
{
	char *copy;

	if (t->nfuncs == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 1024;
		struct sym_func *v = realloc(t->funcs, cap * sizeof(*v));

		if (!v)
			return -1;
		t->funcs = v;
		t->cap = cap;
	}
	copy = sym_demangle(name);
	if (!copy)
		copy = strdup(name);
	if (!copy)
		return -1;
	t->funcs[t->nfuncs++] = (struct sym_func){ .addr = addr, .size = size, .name = copy };
	return 0;
}
