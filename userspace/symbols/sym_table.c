// SPDX-License-Identifier: GPL-2.0
/*
 * A table of functions: the growing array every reader fills, and the
 * rule that names an address by it. See sym.h.
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

static int by_addr_name(const void *a, const void *b)
{
	const struct sym_func *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return strcmp(x->name, y->name);
}

void sym_table_sort(struct sym_table *t)
{
	if (t->nfuncs)	/* qsort(NULL, 0) is undefined */
		qsort(t->funcs, t->nfuncs, sizeof(*t->funcs), by_addr_name);
}

const struct sym_func *sym_table_find(const struct sym_table *t, uint64_t image_base,
				      uint64_t addr)
{
	uint64_t a = addr - image_base + t->base;	/* where the file itself places it */
	size_t lo = 0, hi = t->nfuncs;
	const struct sym_func *f;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->funcs[mid].addr <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	f = &t->funcs[lo - 1];
	return !f->size || a - f->addr < f->size ? f : NULL;
}
