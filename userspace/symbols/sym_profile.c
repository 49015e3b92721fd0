// SPDX-License-Identifier: GPL-2.0
/*
 * The functions with the most samples. See sym_profile.h.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sym_profile.h"

struct rows {
	struct sym_function_row *v;
	size_t n, cap;
};

static int add_row(struct rows *r, const char *image, const char *fn, unsigned long samples)
{
	size_t len = strlen(image) + strlen(fn) + 2;

	if (r->n == r->cap) {
		size_t c = r->cap ? 2 * r->cap : 256;
		struct sym_function_row *v = realloc(r->v, c * sizeof(*v));

		if (!v)
			return -1;
		r->v = v;
		r->cap = c;
	}
	r->v[r->n].name = malloc(len);
	if (!r->v[r->n].name)
		return -1;
	snprintf(r->v[r->n].name, len, "%s!%s", image, fn);
	r->v[r->n++].samples = samples;
	return 0;
}

static int by_samples(const void *a, const void *b)
{
	const struct sym_function_row *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	return strcmp(x->name, y->name);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct sym_function_row *)a)->name,
		      ((const struct sym_function_row *)b)->name);
}

static int by_image(const void *a, const void *b)
{
	const struct sym_trace_sample *x = a, *y = b;

	return x->image < y->image ? -1 : x->image > y->image;
}

static const struct sym_table *sort_table;

static int func_by_addr(const void *a, const void *b)
{
	const struct sym_func *x = &sort_table->funcs[*(const size_t *)a];
	const struct sym_func *y = &sort_table->funcs[*(const size_t *)b];

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/*
 * Count one image's samples s[0..n) by function into rows: the function
 * holding each address (one of unknown size: up to the next), else "?";
 * and into nm's named and all, the addresses a function holds and all.
 */
static int count_image(struct rows *r, struct sym_functions *nm, const char *image,
		       const struct sym_table *t, const struct sym_trace_image *img,
		       const struct sym_trace_sample *s, size_t n)
{
	size_t *order = malloc((t->nfuncs + 1) * sizeof(*order));
	unsigned long *count = calloc(t->nfuncs + 1, sizeof(*count));
	int ret = -1;

	if (!order || !count)
		goto out;
	for (size_t i = 0; i < t->nfuncs; i++)
		order[i] = i;
	sort_table = t;
	qsort(order, t->nfuncs, sizeof(*order), func_by_addr);
	for (size_t i = 0; i < n; i++) {
		uint64_t addr = s[i].addr - img->base + t->base;
		size_t lo = 0, hi = t->nfuncs, fn = t->nfuncs;
		bool kernel = !img->pid;

		/* the last function starting at or below addr */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (t->funcs[order[mid]].addr <= addr)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo) {
			const struct sym_func *f = &t->funcs[order[lo - 1]];

			if (!f->size || addr - f->addr < f->size)
				fn = order[lo - 1];
		}
		nm->all[kernel][s[i].frame]++;
		nm->named[kernel][s[i].frame] += fn < t->nfuncs;
		if (!s[i].frame)	/* the table is of samples */
			count[fn]++;
	}
	for (size_t i = 0; i <= t->nfuncs; i++)
		if (count[i] && add_row(r, image, i < t->nfuncs ? t->funcs[i].name : "?", count[i]))
			goto out;
	ret = 0;
out:
	free(order);
	free(count);
	return ret;
}

/* One line per file not named here ("path: why"): every process's copy says the same. */
static int add_note(struct sym_functions *fn, const char *path, const char *why)
{
	size_t len = strlen(path) + strlen(why) + 3;

	for (size_t k = 0; k < fn->nnotes; k++)
		if (!strncmp(fn->notes[k], path, strlen(path)) && fn->notes[k][strlen(path)] == ':')
			return 0;
	fn->notes[fn->nnotes] = malloc(len);
	if (!fn->notes[fn->nnotes])
		return -1;
	snprintf(fn->notes[fn->nnotes++], len, "%s: %s", path, why);
	return 0;
}

int sym_functions_of(struct sym_trace *t, struct sym_loader *ld, struct sym_functions *fn,
		     char *err, size_t err_size)
{
	struct rows r = { 0 };
	char why[4400];
	size_t n = 0;

	memset(fn, 0, sizeof(*fn));
	fn->all_samples = t->all_samples;
	if (!t->nsamples)
		return 0;
	fn->notes = calloc(t->n, sizeof(*fn->notes));
	if (!fn->notes)
		goto oom;
	qsort(t->samples, t->nsamples, sizeof(*t->samples), by_image);
	for (size_t i = 0, j; i < t->nsamples; i = j) {
		const struct sym_trace_image *img = &t->v[t->samples[i].image];
		const char *image = sym_base_name(img->path);
		struct sym_table tab;
		uint8_t guid[16];

		for (j = i; j < t->nsamples && t->samples[j].image == t->samples[i].image; j++)
			;
		/* a Windows trace's images: their PDBs are Microsoft's, not this machine's */
		if (sym_is_windows_path(img->path))
			continue;
		sym_table_init(&tab);
		why[0] = 0;
		if (sym_load_checked(ld, img, &tab, guid, why, sizeof(why)))
			sym_table_free(&tab);
		else if (!tab.nfuncs)
			snprintf(why, sizeof(why), "no function names (stripped, no debug file found by "
				 "build-id): WPA shows %s!0x... addresses; install its -dbgsym package",
				 image);
		if ((why[0] && add_note(fn, img->path, why)) ||
		    count_image(&r, fn, image, &tab, img, t->samples + i, j - i)) {
			sym_table_free(&tab);
			goto oom;
		}
		sym_table_free(&tab);
	}
	/* the same function in several processes is one row */
	if (r.n)
		qsort(r.v, r.n, sizeof(*r.v), by_name);
	for (size_t i = 0; i < r.n; i++) {
		if (n && !strcmp(r.v[n - 1].name, r.v[i].name)) {
			r.v[n - 1].samples += r.v[i].samples;
			free(r.v[i].name);
		} else {
			r.v[n++] = r.v[i];
		}
	}
	if (n)
		qsort(r.v, n, sizeof(*r.v), by_samples);
	fn->v = r.v;
	fn->n = n;
	/* the addresses in no image count in all (where any image is named here) */
	for (int k = 0; k < 2 && n; k++)
		for (int fr = 0; fr < 2; fr++)
			fn->all[k][fr] += t->missed[k][fr];
	return 0;
oom:
	snprintf(err, err_size, "out of memory naming the samples' functions");
	for (size_t i = 0; i < r.n; i++)
		free(r.v[i].name);
	free(r.v);
	sym_functions_free(fn);
	return -1;
}

int sym_functions_read(const struct etl_file *f, struct sym_loader *ld,
		       struct sym_functions *fn, char *err, size_t err_size)
{
	struct etl_error e;
	struct sym_trace t;
	int ret;

	memset(fn, 0, sizeof(*fn));
	if (sym_trace_read(f, &t, &e)) {
		snprintf(err, err_size, "%s", e.msg);
		sym_trace_free(&t);
		return -1;
	}
	ret = sym_functions_of(&t, ld, fn, err, err_size);
	sym_trace_free(&t);
	return ret;
}

void sym_functions_print(FILE *out, const struct sym_functions *fn, size_t rows)
{
	if (!fn->n)
		return;
	if (rows == SIZE_MAX)
		fprintf(out, "\nFunctions by samples (all");
	else
		fprintf(out, "\nFunctions by samples (top %zu", rows);
	fprintf(out, "; named from this machine's files and kernel, as ntkl symbols names them "
		"for WPA):\n   samples       %%  function\n");
	for (size_t i = 0; i < fn->n && i < rows; i++)
		fprintf(out, "%10lu %6.2f%%  %s\n", fn->v[i].samples,
			fn->all_samples ? 100.0 * (double)fn->v[i].samples / (double)fn->all_samples
					: 0.0,
			fn->v[i].name);
	for (size_t k = 0; k < fn->nnotes; k++)
		fprintf(out, "  not named here: %s\n", fn->notes[k]);
	/* how much of the trace a function names (WPA names as much with these PDBs) */
	for (int frame = 0; frame < 2; frame++) {
		fprintf(out, "%s named:", frame ? "Stack frames" : "Sample IPs");
		for (int kernel = 1; kernel >= 0; kernel--) {
			unsigned long all = fn->all[kernel][frame];

			fprintf(out, " %s %lu of %lu (%.1f%%)%s", kernel ? "kernel" : "user",
				fn->named[kernel][frame], all,
				all ? 100.0 * (double)fn->named[kernel][frame] / (double)all : 0.0,
				kernel ? "," : "\n");
		}
	}
}

void sym_functions_free(struct sym_functions *fn)
{
	for (size_t i = 0; i < fn->n; i++)
		free(fn->v[i].name);
	free(fn->v);
	for (size_t k = 0; k < fn->nnotes; k++)
		free(fn->notes[k]);
	free(fn->notes);
	memset(fn, 0, sizeof(*fn));
}

int sym_profile_print(FILE *out, const char *path, size_t rows, struct sym_loader *ld,
		      char *err, size_t err_size)
{
	struct etl_file f;
	struct etl_error e;
	struct sym_functions fn;
	int ret;

	if (etl_open(&f, path, &e)) {
		snprintf(err, err_size, "%s", e.msg);
		return -1;
	}
	ret = sym_functions_read(&f, ld, &fn, err, err_size);
	if (!ret)
		sym_functions_print(out, &fn, rows);
	sym_functions_free(&fn);
	etl_close(&f);
	return ret;
}
