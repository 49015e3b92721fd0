// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's and its modules' functions from /proc/kallsyms: one line
 * per symbol, "address type name [module]". kallsyms has no sizes: a
 * function's size is taken as the distance to the next symbol of its
 * image, so padding after a function is named as the function (a debug
 * vmlinux, when installed, gives real sizes: cmd_symbols.c prefers it).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sym.h"

static int module_index(struct sym_kallsyms *k, const char *name)
{
	char **v;

	/* a module's symbols come together: its index is usually the last */
	for (size_t i = k->nmods; i-- > 0;)
		if (!strcmp(k->mods[i], name))
			return (int)i;
	v = realloc(k->mods, (k->nmods + 1) * sizeof(*v));
	if (!v)
		return -2;
	k->mods = v;
	k->mods[k->nmods] = strdup(name);
	if (!k->mods[k->nmods])
		return -2;
	return (int)k->nmods++;
}

/* One line into k: 1 added, 0 skipped (malformed), -1 out of memory. */
static int add_line(struct sym_kallsyms *k, size_t *cap, char *line)
{
	char *end, *type, *name, *mod;
	unsigned long long addr = strtoull(line, &end, 16);
	struct sym_ksym *s;

	if (end == line || *end != ' ')
		return 0;
	type = end + 1;
	if (!type[0] || type[1] != ' ')
		return 0;
	name = type + 2;
	name[strcspn(name, "\n")] = 0;
	mod = strchr(name, '\t');
	if (mod) {
		*mod++ = 0;
		if (mod[0] != '[' || !strchr(mod, ']'))
			return 0;
		mod++;
		*strchr(mod, ']') = 0;
	}
	if (!name[0])
		return 0;
	if (k->n == *cap) {
		size_t c = *cap ? 2 * *cap : 65536;

		s = realloc(k->v, c * sizeof(*s));
		if (!s)
			return -1;
		k->v = s;
		*cap = c;
	}
	s = &k->v[k->n];
	s->addr = addr;
	s->type = type[0];
	s->mod = mod ? module_index(k, mod) : -1;
	s->name = strdup(name);
	if (s->mod == -2 || !s->name) {
		free(s->name);
		return -1;
	}
	k->n++;
	return 1;
}

int sym_kallsyms_read(const char *path, struct sym_kallsyms *k, char *err, size_t err_size)
{
	FILE *f;
	char line[1024];
	bool any_address = false;

	memset(k, 0, sizeof(*k));
	if (!path)
		path = "/proc/kallsyms";
	f = fopen(path, "re");
	if (!f) {
		snprintf(err, err_size, "%s: %s: the kernel's functions cannot be named", path,
			 strerror(errno));
		return -1;
	}
	size_t cap = 0;

	while (fgets(line, sizeof(line), f)) {
		int ret = add_line(k, &cap, line);

		if (ret < 0) {
			fclose(f);
			snprintf(err, err_size, "out of memory reading %s", path);
			return -1;
		}
		if (ret && k->v[k->n - 1].addr)
			any_address = true;
	}
	if (ferror(f)) {
		fclose(f);
		snprintf(err, err_size, "%s: read error: the kernel's functions cannot be named", path);
		return -1;
	}
	fclose(f);
	if (!k->n) {
		snprintf(err, err_size, "%s: no symbols in it: the kernel's functions cannot be named",
			 path);
		return -1;
	}
	if (!any_address) {
		snprintf(err, err_size, "%s shows every address as 0 (kernel.kptr_restrict hides them): "
			 "run ntkl symbols as root, or sysctl kernel.kptr_restrict=0", path);
		return -1;
	}
	return 0;
}

void sym_kallsyms_free(struct sym_kallsyms *k)
{
	for (size_t i = 0; i < k->n; i++)
		free(k->v[i].name);
	free(k->v);
	for (size_t i = 0; i < k->nmods; i++)
		free(k->mods[i]);
	free(k->mods);
	memset(k, 0, sizeof(*k));
}

static bool is_text(char type)
{
	return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

static int by_addr(const void *a, const void *b)
{
	const struct sym_ksym *x = *(const struct sym_ksym *const *)a;
	const struct sym_ksym *y = *(const struct sym_ksym *const *)b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return 0;
}

int sym_kallsyms_table(const struct sym_kallsyms *k, const char *module,
		       struct sym_table *t, char *err, size_t err_size)
{
	int mod = -1;
	const struct sym_ksym **v;
	size_t n = 0, next = 0;
	bool has_text = false;

	if (module) {
		mod = -3;
		for (size_t i = 0; i < k->nmods; i++)
			if (!strcmp(k->mods[i], module))
				mod = (int)i;
		if (mod == -3) {
			snprintf(err, err_size, "module %s is not loaded now (not in /proc/kallsyms): "
				 "modprobe %s, then run ntkl symbols again", module, module);
			return -1;
		}
	}
	v = malloc((k->n ? k->n : 1) * sizeof(*v));
	if (!v) {
		snprintf(err, err_size, "out of memory");
		return -1;
	}
	/* every symbol of the image, of any type: each one ends the one before */
	for (size_t i = 0; i < k->n; i++)
		if (k->v[i].mod == mod)
			v[n++] = &k->v[i];
	qsort(v, n, sizeof(*v), by_addr);
	t->base = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t size;

		if (!is_text(v[i]->type))
			continue;
		/* the trace's ImageBase is a page below the code (NTKL_IMAGE_HEADER_SIZE) */
		if (!has_text || (!module && !strcmp(v[i]->name, "_text")))
			t->base = (v[i]->addr & ~(uint64_t)4095) - NTKL_IMAGE_HEADER_SIZE;
		has_text = true;
		/* the next symbol at a higher address (aliases share one) */
		if (next <= i)
			next = i + 1;
		while (next < n && v[next]->addr == v[i]->addr)
			next++;
		size = next < n ? v[next]->addr - v[i]->addr : 0;
		if (sym_table_add(t, v[i]->addr, size, v[i]->name)) {
			free(v);
			snprintf(err, err_size, "out of memory");
			return -1;
		}
	}
	free(v);
	t->sizes_estimated = true;
	snprintf(t->from, sizeof(t->from), "/proc/kallsyms%s%s%s", module ? " [" : "",
		 module ? module : "", module ? "]" : "");
	return 0;
}
