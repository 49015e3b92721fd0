// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl symbols [--all] -o DIR TRACE.etl
 *
 * One PDB per image of the trace that its samples or stacks touch, in a
 * symbol store WPA and PerfView read (srv*DIR), named by the identity the
 * trace's DbgID_RSDS records give (or, in a trace without them, the one
 * the file has now). The functions come from this machine: run it where
 * the trace was recorded (docs/symbols.md).
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "etl/etl.h"
#include "pdb/pdb.h"
#include "symbols/symbols.h"

void cmd_symbols_usage(FILE *out)
{
	fprintf(out,
		"usage: ntkl symbols [--all] -o DIR TRACE.etl\n"
		"\n"
		"Write the PDB files that let WPA, xperf and PerfView name the Linux\n"
		"functions in TRACE's stacks and samples (vmlinux-<release>!schedule,\n"
		"busybox!sh_main): one per image that a sampled IP or a stack frame\n"
		"lies in, as a symbol store, DIR/<name>.pdb/<GUID><age>/<name>.pdb.\n"
		"Run it on the machine that recorded TRACE, before its files change:\n"
		"the kernel's functions come from /proc/kallsyms (as root), a\n"
		"program's from its symbol table or its debug file\n"
		"(/usr/lib/debug/.build-id/, Debian's -dbgsym packages). Each image\n"
		"is checked against the build-id the trace recorded; one that was\n"
		"replaced or deleted since is named on a line with what WPA shows.\n"
		"Then copy DIR beside the trace and add srv*C:\\path\\DIR to WPA's\n"
		"symbol paths (Trace > Configure Symbol Paths), or set\n"
		"_NT_SYMBOL_PATH=srv*C:\\path\\DIR for PerfView.\n"
		"\n"
		"  -o, --output DIR     the symbol store to write (made if need be)\n"
		"  -a, --all            every image of the trace, not only those with\n"
		"                       samples or stack frames\n"
		"      --kallsyms FILE  the kernel's symbols from FILE, not /proc/kallsyms\n"
		"      --debug-dir DIR  debug files under DIR, not /usr/lib/debug\n"
		"  -h, --help           this text\n"
		"\n"
		"Exit status: 0 written (images that cannot be named are listed),\n"
		"1 unreadable trace or a PDB that could not be written, 2 usage error.\n");
}

struct ctx {
	const char *dir;
	struct sym_loader ld;
	bool noted_now;			/* said once: identities taken now */
	unsigned long written, functions, unnamed, windows;
};

/* One line for an image that cannot be named: what WPA shows, the fix. */
static void unnamed(struct ctx *c, const struct sym_trace_image *img, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void unnamed(struct ctx *c, const struct sym_trace_image *img, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "ntkl symbols: %s: ", img->path);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	c->unnamed++;
}

/* Write one image's PDB: 0 written, 1 it cannot be named (a line said why), -1 a write error. */
static int write_one(struct ctx *c, const struct sym_trace_image *img, unsigned long hits,
		     size_t at, size_t total)
{
	struct sym_table t;
	struct sym_pdb p;
	uint8_t guid[16];
	char pdb_name[300], path[4400], err[4400], store_id[48];
	struct pdb_image pimg;
	int ret = 1;

	sym_table_init(&t);
	if (sym_load_checked(&c->ld, img, &t, guid, err, sizeof(err))) {
		unnamed(c, img, "%s", err);
		goto out;
	}
	if (img->has_rsds) {
		snprintf(pdb_name, sizeof(pdb_name), "%s", img->pdb_name);
	} else {
		if (!c->noted_now) {
			printf("note: the trace has no DbgID_RSDS records (an older ntkl recorded it): "
			       "identities are taken from the files now, at symbol time, not at "
			       "record time\n");
			c->noted_now = true;
		}
		snprintf(pdb_name, sizeof(pdb_name), "%s.pdb", sym_base_name(img->path));
	}
	if (!t.nfuncs) {
		unnamed(c, img, "no function names (stripped, no debug file found by build-id under "
			"%s/.build-id): WPA shows %s!0x... addresses; install its -dbgsym package",
			c->ld.debug_root, sym_base_name(img->path));
		goto out;
	}
	if (sym_pdb_build(&t, img->size, &p, err, sizeof(err))) {
		unnamed(c, img, "%s", err);
		goto out;
	}
	pimg = (struct pdb_image){
		.age = img->has_rsds ? img->age : 1,
		.pdb_name = pdb_name,
		.sections = p.sections,
		.nsections = p.nsections,
		.functions = p.functions,
		.nfunctions = p.nfunctions,
	};
	memcpy(pimg.guid, guid, 16);
	if (pdb_store_path(c->dir, pdb_name, guid, pimg.age, path, sizeof(path), err, sizeof(err)) ||
	    pdb_write(path, &pimg, err, sizeof(err))) {
		fprintf(stderr, "ntkl symbols: %s: %s\n", pdb_name, err);
		sym_pdb_free(&p);
		ret = -1;
		goto out;
	}
	pdb_store_id(guid, pimg.age, store_id);
	printf("[%zu/%zu] %s %s %zu functions, %lu addresses in the trace (%s%s)\n", at, total,
	       pdb_name, store_id, p.nfunctions, hits, t.from,
	       t.sizes_estimated ? ", sizes to the next symbol" : "");
	fflush(stdout);
	c->written++;
	c->functions += p.nfunctions;
	sym_pdb_free(&p);
	ret = 0;
out:
	sym_table_free(&t);
	return ret;
}

/* What makes two images one PDB: the trace's identity, else the file. */
static int by_identity(const void *a, const void *b)
{
	const struct sym_trace_image *x = *(const struct sym_trace_image *const *)a;
	const struct sym_trace_image *y = *(const struct sym_trace_image *const *)b;
	int d;

	if (x->has_rsds != y->has_rsds)
		return x->has_rsds ? -1 : 1;
	if (x->has_rsds) {
		d = strcmp(x->pdb_name, y->pdb_name);
		if (!d)
			d = memcmp(x->guid, y->guid, 16);
		if (!d)
			d = x->age < y->age ? -1 : x->age > y->age;
		return d;
	}
	return strcmp(x->path, y->path);
}

static int run_symbols(struct ctx *c, const char *trace, bool all)
{
	struct etl_file f;
	struct etl_error e;
	struct sym_trace t;
	const struct sym_trace_image **v;
	size_t n = 0, ngroups = 0, at = 0;
	unsigned long skipped = 0;
	struct timespec t0, t1;
	int status = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (etl_open(&f, trace, &e)) {
		fprintf(stderr, "ntkl symbols: %s: %s\n", trace, e.msg);
		return 1;
	}
	if (sym_trace_read(&f, &t, &e)) {
		fprintf(stderr, "ntkl symbols: %s: %s\n", trace, e.msg);
		sym_trace_free(&t);
		etl_close(&f);
		return 1;
	}
	etl_close(&f);
	if (!t.n) {
		fprintf(stderr, "ntkl symbols: %s: no Image events: record with -on PROC_THREAD+LOADER "
			"(the images are what PDBs are made for)\n", trace);
		sym_trace_free(&t);
		return 1;
	}
	bool kernel_images = false;

	for (size_t i = 0; i < t.n; i++)
		kernel_images |= !t.v[i].pid;
	/* the kernel's images are there, yet no kernel address lies in one */
	if (kernel_images && t.kernel_addrs && t.kernel_missed == t.kernel_addrs)
		fprintf(stderr, "ntkl symbols: none of the trace's %lu kernel addresses lies in a kernel "
			"image: they were hashed for a reader that may not see kernel addresses, and WPA "
			"cannot name them; record as root\n", t.kernel_addrs);
	v = calloc(t.n, sizeof(*v));
	if (!v) {
		fprintf(stderr, "ntkl symbols: out of memory\n");
		sym_trace_free(&t);
		return 1;
	}
	for (size_t i = 0; i < t.n; i++) {
		if (sym_is_windows_path(t.v[i].path)) {
			c->windows++;
			continue;
		}
		if (t.v[i].hits || all)
			v[n++] = &t.v[i];
		else
			skipped++;
	}
	qsort(v, n, sizeof(*v), by_identity);
	for (size_t i = 0; i < n; i++)
		ngroups += !i || by_identity(&v[i - 1], &v[i]);
	for (size_t i = 0; i < n && status == 0;) {
		size_t j = i;
		unsigned long hits = 0;

		/* one PDB for every process's copy of the same image */
		for (; j < n && !by_identity(&v[i], &v[j]); j++)
			hits += v[j]->hits;
		if (write_one(c, v[i], hits, ++at, ngroups) < 0)
			status = 1;
		i = j;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("ntkl symbols: %lu PDBs (%lu functions) in %s in %.2f s; %lu images cannot be named%s; "
	       "%lu without samples or frames%s\n", c->written, c->functions, c->dir,
	       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
	       c->unnamed, c->unnamed ? " (above)" : "", skipped, skipped ? " (--all writes them)" : "");
	if (c->windows)
		printf("ntkl symbols: %lu Windows images: their PDBs come from Microsoft's symbol "
		       "server, not from here\n", c->windows);
	free(v);
	sym_trace_free(&t);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "ntkl symbols: writing to standard output failed\n");
		status = 1;
	}
	return status;
}

/* The PDBs of trace's images into the store c->dir, made if need be. */
static int symbols_into(struct ctx *c, const char *trace, bool all)
{
	if (mkdir(c->dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "ntkl symbols: cannot make %s: %s\n", c->dir, strerror(errno));
		return 1;
	}
	return run_symbols(c, trace, all);
}

int cmd_symbols(int argc, char **argv)
{
	static const struct option options[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "all", no_argument, NULL, 'a' },
		{ "kallsyms", required_argument, NULL, 'k' },
		{ "debug-dir", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ctx c = { .ld.debug_root = "/usr/lib/debug" };
	bool all = false;
	int opt, status;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":o:ah", options, NULL)) != -1) {
		switch (opt) {
		case 'o':
			c.dir = optarg;
			break;
		case 'a':
			all = true;
			break;
		case 'k':
			c.ld.kallsyms_path = optarg;
			break;
		case 'd':
			c.ld.debug_root = optarg;
			break;
		case 'h':
			cmd_symbols_usage(stdout);
			return 0;
		case ':':
			return cmd_usage_error("symbols", cmd_symbols_usage, "%s needs a value",
					       argv[optind - 1]);
		default:
			return cmd_usage_error("symbols", cmd_symbols_usage, "unknown option '%s'",
					       argv[optind - 1]);
		}
	}
	if (!c.dir)
		return cmd_usage_error("symbols", cmd_symbols_usage,
				       "missing -o DIR (the symbol store to write)");
	if (argc - optind != 1)
		return cmd_usage_error("symbols", cmd_symbols_usage, "%s",
				       argc == optind ? "missing TRACE.etl" : "only one TRACE.etl, please");
	status = symbols_into(&c, argv[optind], all);
	sym_loader_free(&c.ld);
	return status;
}

int cmd_symbols_write(const char *trace, const char *dir)
{
	struct ctx c = { .ld.debug_root = "/usr/lib/debug", .dir = dir };
	int status = symbols_into(&c, trace, false);

	sym_loader_free(&c.ld);
	return status;
}
