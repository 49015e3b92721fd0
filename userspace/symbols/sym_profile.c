// SPDX-License-Identifier: GPL-2.0
/*
 * The functions with the most samples, and how whole the user stacks
 * are. See sym_profile.h.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sym_profile.h"

struct rows {
	struct sym_function_row *v;
	size_t n, cap;
};

/* Add a row named name (malloc'd, taken: freed on failure; NULL: out of memory). */
static int add_name(struct rows *r, char *name, unsigned long samples)
{
	if (!name)
		return -1;
	if (r->n == r->cap) {
		size_t c = r->cap ? 2 * r->cap : 256;
		struct sym_function_row *v = realloc(r->v, c * sizeof(*v));

		if (!v) {
			free(name);
			return -1;
		}
		r->v = v;
		r->cap = c;
	}
	r->v[r->n].name = name;
	r->v[r->n++].samples = samples;
	return 0;
}

/* Add the row image!fn. */
static int add_row(struct rows *r, const char *image, const char *fn, unsigned long samples)
{
	size_t len = strlen(image) + strlen(fn) + 2;
	char *name = malloc(len);

	if (name)
		snprintf(name, len, "%s!%s", image, fn);
	return add_name(r, name, samples);
}

static void rows_free(struct rows *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->v[i].name);
	free(r->v);
	memset(r, 0, sizeof(*r));
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

/* The same name in several processes is one row; then the most first. */
static void merge_rows(struct rows *r)
{
	size_t n = 0;

	if (r->n)	/* qsort(NULL, 0) is undefined */
		qsort(r->v, r->n, sizeof(*r->v), by_name);
	for (size_t i = 0; i < r->n; i++) {
		if (n && !strcmp(r->v[n - 1].name, r->v[i].name)) {
			r->v[n - 1].samples += r->v[i].samples;
			free(r->v[i].name);
		} else {
			r->v[n++] = r->v[i];
		}
	}
	r->n = n;
	if (n)
		qsort(r->v, n, sizeof(*r->v), by_samples);
}

static int by_image(const void *a, const void *b)
{
	const struct sym_trace_sample *x = a, *y = b;

	return x->image < y->image ? -1 : x->image > y->image;
}

/*
 * Count one image's samples s[0..n) by function into rows: the function
 * holding each address (sym_table_find(), t sorted), else "?"; into nm's
 * named and all, the addresses a function holds and all; and the user
 * stacks whose outermost frame is in the image into ends and nm->user,
 * by how they end.
 */
static int count_image(struct rows *r, struct rows ends[SYM_END_KINDS], struct sym_functions *nm,
		       const char *image, const struct sym_table *t,
		       const struct sym_trace_image *img, const struct sym_trace_sample *s, size_t n)
{
	unsigned long *count = calloc(t->nfuncs + 1, sizeof(*count));
	unsigned long *outermost = calloc(t->nfuncs + 1, sizeof(*outermost));
	int ret = -1;

	if (!count || !outermost)
		goto out;
	for (size_t i = 0; i < n; i++) {
		const struct sym_func *f = sym_table_find(t, img->base, s[i].addr);
		size_t fn = f ? (size_t)(f - t->funcs) : t->nfuncs;
		bool kernel = !img->pid;

		nm->all[kernel][s[i].frame]++;
		nm->named[kernel][s[i].frame] += fn < t->nfuncs;
		if (!s[i].frame)	/* the table is of samples */
			count[fn]++;
		outermost[fn] += s[i].outermost;
	}
	for (size_t i = 0; i <= t->nfuncs; i++) {
		const char *name = i < t->nfuncs ? t->funcs[i].name : "?";
		enum sym_stack_end k = i == t->nfuncs ? SYM_END_NOT_NAMED :
				       sym_start_routine(name) ? SYM_END_WHOLE : SYM_END_EARLY;

		if (count[i] && add_row(r, image, name, count[i]))
			goto out;
		if (outermost[i] && add_row(&ends[k], image, name, outermost[i]))
			goto out;
		nm->user.n[k] += outermost[i];
	}
	ret = 0;
out:
	free(count);
	free(outermost);
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
	struct rows r = { 0 }, ends[SYM_END_KINDS] = { { 0 } };
	char why[4400];

	memset(fn, 0, sizeof(*fn));
	fn->all_samples = t->all_samples;
	if (!t->nsamples && !t->user_ends_missed)
		return 0;
	fn->notes = calloc(t->n + 1, sizeof(*fn->notes));
	if (!fn->notes)
		goto oom;
	if (t->nsamples)
		qsort(t->samples, t->nsamples, sizeof(*t->samples), by_image);
	for (size_t i = 0, j; i < t->nsamples; i = j) {
		const struct sym_trace_image *img = &t->v[t->samples[i].image];
		const char *image = sym_base_name(img->path);
		struct sym_table tab;
		uint8_t guid[16];

		for (j = i; j < t->nsamples && t->samples[j].image == t->samples[i].image; j++)
			;
		/* a Windows trace's images: their PDBs are Microsoft's, not this machine's */
		if (sym_is_windows_path(img->path)) {
			for (size_t k = i; k < j; k++)
				fn->user.windows += t->samples[k].outermost;
			continue;
		}
		sym_table_init(&tab);
		why[0] = 0;
		if (sym_load_checked(ld, img, &tab, guid, why, sizeof(why)))
			sym_table_free(&tab);
		else if (!tab.nfuncs)
			snprintf(why, sizeof(why), "no function names (stripped, no debug file found by "
				 "build-id): WPA shows %s!0x... addresses; install its -dbgsym package",
				 image);
		sym_table_sort(&tab);
		if ((why[0] && add_note(fn, img->path, why)) ||
		    count_image(&r, ends, fn, image, &tab, img, t->samples + i, j - i)) {
			sym_table_free(&tab);
			goto oom;
		}
		sym_table_free(&tab);
	}
	/* the user stacks whose outermost frame is in no image of the trace: "?" */
	fn->user.no_image = t->user_ends_missed;
	fn->user.n[SYM_END_NOT_NAMED] += t->user_ends_missed;
	if (t->user_ends_missed &&
	    add_name(&ends[SYM_END_NOT_NAMED], strdup("?"), t->user_ends_missed))
		goto oom;
	for (int k = 0; k < SYM_END_KINDS; k++) {
		merge_rows(&ends[k]);
		fn->user.ends[k] = ends[k].v;
		fn->user.nends[k] = ends[k].n;
		ends[k] = (struct rows){ 0 };
	}
	merge_rows(&r);
	fn->v = r.v;
	fn->n = r.n;
	/* the addresses in no image count in all (where any image is named here) */
	for (int k = 0; k < 2 && fn->n; k++)
		for (int fr = 0; fr < 2; fr++)
			fn->all[k][fr] += t->missed[k][fr];
	return 0;
oom:
	snprintf(err, err_size, "out of memory naming the samples' functions");
	rows_free(&r);
	for (int k = 0; k < SYM_END_KINDS; k++)
		rows_free(&ends[k]);
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

unsigned long sym_user_stacks_counted(const struct sym_user_stacks *u)
{
	if (u->windows)
		return 0;
	return u->n[SYM_END_WHOLE] + u->n[SYM_END_EARLY] + u->n[SYM_END_NOT_NAMED];
}

/* " (top: 5 gzip!zip, 3 in no image, ...)": the commonest outermost frames of kind k */
static void print_ends(FILE *out, const struct sym_user_stacks *u, enum sym_stack_end k)
{
	size_t n = u->nends[k];

	fprintf(out, " (%s", n > 1 ? "top: " : "");
	for (size_t i = 0; i < n && i < 3; i++) {
		const struct sym_function_row *e = &u->ends[k][i];

		if (strcmp(e->name, "?"))
			fprintf(out, "%s%lu %s", i ? ", " : "", e->samples, e->name);
		else
			fprintf(out, "%s%lu in no image", i ? ", " : "", e->samples);
	}
	fprintf(out, "%s)", n > 3 ? ", ..." : "");
}

void sym_user_stacks_print(FILE *out, const struct sym_user_stacks *u)
{
	unsigned long whole = u->n[SYM_END_WHOLE], early = u->n[SYM_END_EARLY];
	unsigned long not_named = u->n[SYM_END_NOT_NAMED];

	if (!sym_user_stacks_counted(u))
		return;
	/* whole or early only where the outermost frame has a name: of those */
	if (!whole && !early) {
		fprintf(out, "User stacks: %lu, %s in a frame not named here", not_named,
			not_named == 1 ? "ending" : "all ending");
		print_ends(out, u, SYM_END_NOT_NAMED);
		fputc('\n', out);
		return;
	}
	fprintf(out, "User stacks: %lu of %lu whole (%.1f%%)", whole, whole + early,
		100.0 * (double)whole / (double)(whole + early));
	if (whole) {
		fprintf(out, ", ending in a process's or thread's start routine");
		print_ends(out, u, SYM_END_WHOLE);
	}
	if (early) {
		fprintf(out, "; %lu end%s early, in another function", early, early == 1 ? "s" : "");
		print_ends(out, u, SYM_END_EARLY);
	}
	if (not_named) {
		fprintf(out, "; %lu more end%s in a frame not named here", not_named,
			not_named == 1 ? "s" : "");
		print_ends(out, u, SYM_END_NOT_NAMED);
	}
	fputc('\n', out);
}

void sym_functions_print(FILE *out, const struct sym_functions *fn, size_t rows)
{
	if (!fn->n) {
		/* no sample in a Linux image: the stacks alone, and the images not named here */
		if (!sym_user_stacks_counted(&fn->user))
			return;
		fputc('\n', out);
		sym_user_stacks_print(out, &fn->user);
		for (size_t k = 0; k < fn->nnotes; k++)
			fprintf(out, "  not named here: %s\n", fn->notes[k]);
		return;
	}
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
	sym_user_stacks_print(out, &fn->user);
}

void sym_functions_free(struct sym_functions *fn)
{
	for (size_t i = 0; i < fn->n; i++)
		free(fn->v[i].name);
	free(fn->v);
	for (size_t k = 0; k < fn->nnotes; k++)
		free(fn->notes[k]);
	free(fn->notes);
	for (int k = 0; k < SYM_END_KINDS; k++) {
		for (size_t i = 0; i < fn->user.nends[k]; i++)
			free(fn->user.ends[k][i].name);
		free(fn->user.ends[k]);
	}
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
