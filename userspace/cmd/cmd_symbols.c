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
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "etl/etl_reader.h"
#include "pdb/pdb.h"
#include "symbols/sym.h"
#include "symbols/sym_trace.h"

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
	const char *dir, *kallsyms_path, *debug_root;
	struct sym_kallsyms ksyms;
	int ksyms_state;		/* 0 unread, 1 read, -1 failed */
	char ksyms_err[512];
	bool noted_now;			/* said once: identities taken now */
	unsigned long written, functions, unnamed, windows;
};

enum kind { KIND_KERNEL, KIND_MODULE, KIND_VDSO, KIND_FILE };

static enum kind kind_of(const struct sym_trace_image *img)
{
	if (!img->pid && !strncmp(img->path, "/boot/vmlinux-", 14))
		return KIND_KERNEL;
	if (!img->pid && !strncmp(img->path, "/sys/module/", 12))
		return KIND_MODULE;
	if (!strcmp(img->path, "[vdso]"))
		return KIND_VDSO;
	return KIND_FILE;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

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

/* The vDSO of this process: the same image every process of this kernel maps. */
static int vdso_image(const void **data, size_t *size)
{
	unsigned long start = getauxval(AT_SYSINFO_EHDR), lo, hi;
	char line[512];
	FILE *maps = fopen("/proc/self/maps", "re");
	int ret = -1;

	if (!start || !maps) {
		if (maps)
			fclose(maps);
		return -1;
	}
	while (fgets(line, sizeof(line), maps))
		if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && lo == start && strstr(line, "[vdso]")) {
			*data = (const void *)start;
			*size = hi - lo;
			ret = 0;
			break;
		}
	fclose(maps);
	return ret;
}

/*
 * The image's build-id now (its length; 0 none; -1 cannot read: a line
 * said why) and its functions into t.
 */
static int load(struct ctx *c, const struct sym_trace_image *img, struct sym_table *t,
		uint8_t id[SYM_BUILD_ID_MAX])
{
	char err[4400], path[4200];
	const char *name;
	int n;

	switch (kind_of(img)) {
	case KIND_KERNEL: {
		struct utsname u;
		const char *release = img->path + 14;
		uint8_t vid[SYM_BUILD_ID_MAX];

		uname(&u);
		if (strcmp(release, u.release)) {
			unnamed(c, img, "the trace is of kernel %s, this machine runs %s: WPA shows "
				"vmlinux-%s!0x... addresses; run ntkl symbols on the traced machine, "
				"booted into %s", release, u.release, release, release);
			return -1;
		}
		n = sym_notes_file_build_id("/sys/kernel/notes", id);
		if (n < 0) {
			unnamed(c, img, "/sys/kernel/notes: %s: its build-id is unknown; run as root",
				strerror(-n));
			return -1;
		}
		/* a debug vmlinux has real function sizes: kallsyms has none */
		snprintf(path, sizeof(path), "%s/boot/vmlinux-%s", c->debug_root, release);
		if (!access(path, R_OK) && sym_elf_build_id(path, vid, err, sizeof(err)) == n &&
		    !memcmp(vid, id, (size_t)n) && !sym_elf_read(path, NULL, t, err, sizeof(err)) &&
		    t->text_addr) {
			t->base = t->text_addr;
			t->nsegs = 0;
			return n;
		}
		sym_table_free(t);
		name = NULL;
		break;
	}
	case KIND_MODULE:
		name = img->path + 12;
		snprintf(path, sizeof(path), "/sys/module/%s/notes/.note.gnu.build-id", name);
		n = sym_notes_file_build_id(path, id);
		if (n < 0) {
			unnamed(c, img, "module %s is not loaded now (%s): WPA shows %s!0x... "
				"addresses; modprobe %s and run ntkl symbols again", name,
				strerror(-n), name, name);
			return -1;
		}
		break;
	case KIND_VDSO: {
		const void *data;
		size_t size;

		if (vdso_image(&data, &size) ||
		    sym_elf_read_memory(data, size, "[vdso]", t, err, sizeof(err))) {
			unnamed(c, img, "this process has no vDSO to read: WPA shows [vdso]!0x... addresses");
			return -1;
		}
		memcpy(id, t->build_id, t->build_id_len);
		return (int)t->build_id_len;
	}
	case KIND_FILE:
		if (sym_elf_read(img->path, c->debug_root, t, err, sizeof(err))) {
			if (access(img->path, F_OK))
				unnamed(c, img, "deleted since the trace was recorded: WPA shows %s!0x... "
					"addresses; run ntkl symbols before the file changes (right "
					"after the capture)", base_name(img->path));
			else
				unnamed(c, img, "%s: WPA shows %s!0x... addresses", err,
					base_name(img->path));
			return -1;
		}
		memcpy(id, t->build_id, t->build_id_len);
		return (int)t->build_id_len;
	}
	/* the kernel from kallsyms (when no debug vmlinux), a module */
	if (!c->ksyms_state) {
		c->ksyms_state = sym_kallsyms_read(c->kallsyms_path, &c->ksyms, c->ksyms_err,
						   sizeof(c->ksyms_err)) ? -1 : 1;
	}
	if (c->ksyms_state < 0) {
		unnamed(c, img, "%s; until then WPA shows %s!0x... addresses", c->ksyms_err,
			base_name(img->path));
		return -1;
	}
	if (sym_kallsyms_table(&c->ksyms, name, t, err, sizeof(err))) {
		unnamed(c, img, "%s", err);
		return -1;
	}
	return n;
}

/* Write one image's PDB: 0 written, 1 it cannot be named (a line said why), -1 a write error. */
static int write_one(struct ctx *c, const struct sym_trace_image *img, unsigned long hits,
		     size_t at, size_t total)
{
	struct sym_table t;
	struct sym_pdb p;
	uint8_t id[SYM_BUILD_ID_MAX], guid[16] = { 0 };
	char pdb_name[300], path[4400], err[4400], store_id[48];
	struct pdb_image pimg;
	int n, ret = 1;

	sym_table_init(&t);
	if (img->has_none) {
		unnamed(c, img, "the trace recorded no build-id for it (DbgID_NONE): WPA shows %s!0x... "
			"addresses; link it with -Wl,--build-id", base_name(img->path));
		return 1;
	}
	n = load(c, img, &t, id);
	if (n < 0)
		goto out;
	if (n == 0) {
		unnamed(c, img, "it has no build-id, so no PDB can be matched to it: WPA shows "
			"%s!0x... addresses; link it with -Wl,--build-id", base_name(img->path));
		goto out;
	}
	/* the identity rule: the build-id's first 16 bytes, age 1 */
	memcpy(guid, id, n < 16 ? (size_t)n : 16);
	if (img->has_rsds) {
		if (memcmp(guid, img->guid, 16)) {
			unnamed(c, img, "replaced since the trace was recorded (its build-id differs "
				"from the trace's): WPA shows %s!0x... addresses; run ntkl symbols "
				"before the file changes (right after the capture)",
				base_name(img->path));
			goto out;
		}
		snprintf(pdb_name, sizeof(pdb_name), "%s", img->pdb_name);
	} else {
		if (!c->noted_now) {
			printf("note: the trace has no DbgID_RSDS records (an older ntkl recorded it): "
			       "identities are taken from the files now, at symbol time, not at "
			       "record time\n");
			c->noted_now = true;
		}
		snprintf(pdb_name, sizeof(pdb_name), "%s.pdb", base_name(img->path));
	}
	if (!t.nfuncs) {
		unnamed(c, img, "no function names (stripped, no debug file found by build-id under "
			"%s/.build-id): WPA shows %s!0x... addresses; install its -dbgsym package",
			c->debug_root, base_name(img->path));
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

static bool is_windows_path(const char *p)
{
	return p[0] == '\\' || (p[0] && p[1] == ':');
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
		if (is_windows_path(t.v[i].path)) {
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
	struct ctx c = { .debug_root = "/usr/lib/debug" };
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
			c.kallsyms_path = optarg;
			break;
		case 'd':
			c.debug_root = optarg;
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
	if (mkdir(c.dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "ntkl symbols: cannot make %s: %s\n", c.dir, strerror(errno));
		return 1;
	}
	status = run_symbols(&c, argv[optind], all);
	if (c.ksyms_state > 0)
		sym_kallsyms_free(&c.ksyms);
	return status;
}
