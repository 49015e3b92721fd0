// SPDX-License-Identifier: GPL-2.0
/*
 * symbols/: the functions of ELF files and of kallsyms, checked against
 * binutils' readelf (the independent reader) on programs compiled here:
 * a C program with a build-id the test chooses, the same stripped with
 * its debug file under a .build-id tree, and a C++ program whose names
 * must come out demangled; a kallsyms fixture whose sizes and bases are
 * known; and the running kernel's /proc/kallsyms (root only).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "test.h"
#include "analysis/analysis.h"
#include "symbols/symbols.h"
#include "etl/etl_utf16.h"
#include "etl_synth.h"
#include "report_string.h"

#define BUILD_ID	"0123456789abcdef0123456789abcdeff0e1d2c3"

static char tmp[] = "/tmp/ntkl-test-symbols-XXXXXX";
static char err[4096];

static const char prog_c[] =
	"__attribute__((noinline)) int alpha(int x) { return x * 3 + 1; }\n"
	"__attribute__((noinline)) int beta(int x) { return alpha(x) ^ 7; }\n"
	"static __attribute__((noinline)) int gamma_(int x) { return beta(x) * x; }\n"
	"int main(int argc, char **argv) { (void)argv; return gamma_(argc); }\n";

static const char prog_cc[] =
	"namespace ns { struct K { int m(int); }; int K::m(int x) { return x + 1; } }\n"
	"template <typename T> __attribute__((noinline)) T twice(T x) { return x + x; }\n"
	"int main(int argc, char **) { ns::K k; return k.m(argc) + twice<long>(argc); }\n";

static int run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int run(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

static int write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static const struct sym_func *find(const struct sym_table *t, const char *name)
{
	for (size_t i = 0; i < t->nfuncs; i++)
		if (!strcmp(t->funcs[i].name, name))
			return &t->funcs[i];
	return NULL;
}

/*
 * Every FUNC symbol readelf lists in path's .symtab is in t with the same
 * address and size; returns how many were compared, -1 on a failure.
 */
static long compare_with_readelf(const char *path, const struct sym_table *t)
{
	char cmd[4200], line[4096];
	long n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "readelf -sW '%s' 2>/dev/null | "
		 "awk '$4 == \"FUNC\" && $7 != \"UND\" && $2 !~ /^0+$/ { print $2, $3, $8 }' | sort -u",
		 path);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p)) {
		unsigned long long addr, size;
		char name[2048];
		bool found = false;

		if (sscanf(line, "%llx %lli %2047s", &addr, &size, name) != 3)
			continue;
		for (size_t i = 0; i < t->nfuncs && !found; i++)
			found = t->funcs[i].addr == addr && t->funcs[i].size == size;
		if (!found) {
			test_fail("readelf's %s at %#llx size %llu is not in the table", name, addr, size);
			pclose(p);
			return -1;
		}
		n++;
	}
	pclose(p);
	return n;
}

static void test_elf(const char *flags, const char *what, uint64_t want_base)
{
	char src[300], bin[300];
	struct sym_table t;
	struct sym_pdb pdb;
	const struct sym_func *a;
	uint8_t id[SYM_BUILD_ID_MAX];
	long n;

	snprintf(src, sizeof(src), "%s/prog.c", tmp);
	snprintf(bin, sizeof(bin), "%s/prog-%s", tmp, what);
	test_begin("elf_%s", what);
	sym_table_init(&t);
	CHECK(!write_text(src, prog_c));
	if (run("cc -O1 %s -Wl,--build-id=0x" BUILD_ID " -o %s %s", flags, bin, src)) {
		test_fail("cc could not build the test program");
		goto out;
	}
	CHECK_EQ(sym_elf_build_id(bin, id, err, sizeof(err)), 20);
	CHECK(!memcmp(id, "\x01\x23\x45\x67\x89\xab\xcd\xef\x01\x23\x45\x67\x89\xab\xcd\xef"
		      "\xf0\xe1\xd2\xc3", 20));
	if (sym_elf_read(bin, NULL, &t, err, sizeof(err))) {
		test_fail("%s", err);
		goto out;
	}
	CHECK_EQ(t.build_id_len, 20);
	CHECK_HAS(t.from, ".symtab");
	CHECK_EQ(t.base, want_base);
	n = compare_with_readelf(bin, &t);
	CHECK(n >= 4);
	CHECK_EQ((unsigned long)n, t.nfuncs);
	a = find(&t, "alpha");
	CHECK(a && a->size > 0);
	CHECK(find(&t, "gamma_") && find(&t, "main"));
	/* the executable segment holds the functions; RVAs from the base */
	CHECK(t.nsegs >= 1);
	if (a && !sym_pdb_build(&t, 1 << 20, &pdb, err, sizeof(err))) {
		bool seen = false;

		CHECK_EQ(pdb.outside, 0);
		CHECK_EQ(pdb.nfunctions, t.nfuncs);
		for (size_t i = 0; i < pdb.nfunctions; i++)
			if (!strcmp(pdb.functions[i].name, "alpha")) {
				seen = true;
				CHECK_EQ(pdb.functions[i].rva, a->addr - want_base);
				CHECK_EQ(pdb.functions[i].size, a->size);
			}
		CHECK(seen);
		sym_pdb_free(&pdb);
	}
out:
	sym_table_free(&t);
	test_end();
}

/* A stripped program: its debug file under a .build-id tree, else .dynsym. */
static void test_debug_file(void)
{
	char bin[300], stripped[300], root[300];
	struct sym_table t;

	snprintf(bin, sizeof(bin), "%s/prog-pie", tmp);
	snprintf(stripped, sizeof(stripped), "%s/prog-stripped", tmp);
	snprintf(root, sizeof(root), "%s/debug", tmp);
	test_begin("elf_stripped_debug_file");
	sym_table_init(&t);
	if (run("mkdir -p %s/.build-id/01 && objcopy --only-keep-debug %s %s/.build-id/01/%s.debug && "
		"strip -s -o %s %s", root, bin, root, BUILD_ID + 2, stripped, bin)) {
		test_fail("objcopy or strip failed");
		goto out;
	}
	if (sym_elf_read(stripped, root, &t, err, sizeof(err))) {
		test_fail("%s", err);
		goto out;
	}
	CHECK_HAS(t.from, ".build-id/01/");
	CHECK(find(&t, "alpha") && find(&t, "gamma_"));
	CHECK_EQ(t.base, 0);
	CHECK_EQ(compare_with_readelf(bin, &t), t.nfuncs);
	sym_table_free(&t);

	/* no debug file: the exported functions only */
	if (sym_elf_read(stripped, tmp, &t, err, sizeof(err))) {
		test_fail("%s", err);
		goto out;
	}
	CHECK(!find(&t, "alpha"));
	CHECK(strstr(t.from, ".dynsym") || strstr(t.from, "stripped"));
out:
	sym_table_free(&t);
	test_end();
}

static void test_cxx(void)
{
	char src[300], bin[300];
	struct sym_table t;

	snprintf(src, sizeof(src), "%s/prog.cc", tmp);
	snprintf(bin, sizeof(bin), "%s/prog-cxx", tmp);
	if (run("command -v c++ >/dev/null")) {
		test_skip("elf_cxx_demangled", "no C++ compiler: apt-get install g++");
		return;
	}
	test_begin("elf_cxx_demangled");
	sym_table_init(&t);
	CHECK(!write_text(src, prog_cc));
	if (run("c++ -O1 -o %s %s", bin, src)) {
		test_fail("c++ could not build the test program");
		goto out;
	}
	if (sym_elf_read(bin, NULL, &t, err, sizeof(err))) {
		test_fail("%s", err);
		goto out;
	}
	CHECK(find(&t, "ns::K::m(int)"));
	CHECK(find(&t, "long twice<long>(long)"));
	CHECK(!find(&t, "_ZN2ns1K1mEi"));
out:
	sym_table_free(&t);
	test_end();
}

static void test_demangle(void)
{
	char *s;

	test_begin("demangle_cxx_rust_c");
	s = sym_demangle("_ZN2ns1fEi");
	CHECK_STR(s, "ns::f(int)");
	free(s);
	/* Rust's legacy mangling: the hash is left out */
	s = sym_demangle("_ZN4core3fmt5write17h0123456789abcdefE");
	CHECK_STR(s, "core::fmt::write");
	free(s);
	/* Rust's v0 mangling (RFC 2603's example) */
	s = sym_demangle("_RNvNtCs1234_7mycrate3foo3bar");
	CHECK_STR(s, "mycrate::foo::bar");
	free(s);
	CHECK(!sym_demangle("schedule"));
	CHECK(!sym_demangle("_Znot_mangled!"));
	test_end();
}

static const char kallsyms_fixture[] =
	"ffffffff81000000 T _text\n"
	"ffffffff81000000 T startup_64\n"
	"ffffffff81000100 t helper\n"
	"ffffffff81000180 T schedule\n"
	"ffffffff81000200 W weak_fn\n"
	"ffffffff81000240 D some_data\n"
	"ffffffff81000300 T _etext\n"
	"ffffffffc0001010 t mod_first\t[mymod]\n"
	"ffffffffc0001040 T mod_fn\t[mymod]\n"
	"ffffffffc0002000 d mod_data\t[mymod]\n"
	"ffffffffc0005000 t other_fn\t[other]\n";

static void test_kallsyms(void)
{
	char path[300];
	struct sym_kallsyms k;
	struct sym_table t;
	struct sym_pdb pdb;
	const struct sym_func *f;

	snprintf(path, sizeof(path), "%s/kallsyms", tmp);
	test_begin("kallsyms_fixture");
	sym_table_init(&t);
	CHECK(!write_text(path, kallsyms_fixture));
	if (sym_kallsyms_read(path, &k, err, sizeof(err))) {
		test_fail("%s", err);
		test_end();
		return;
	}
	CHECK_EQ(k.n, 11);
	CHECK_EQ(k.nmods, 2);
	CHECK(!sym_kallsyms_table(&k, NULL, &t, err, sizeof(err)));
	/* the trace's ImageBase: a page below _text (NTKL_IMAGE_HEADER_SIZE) */
	CHECK_EQ(t.base, 0xffffffff80fff000ull);
	CHECK_EQ(t.nfuncs, 6);		/* the data symbol is not a function */
	CHECK((f = find(&t, "startup_64")) && f->size == 0x100);
	CHECK((f = find(&t, "_text")) && f->size == 0x100);
	CHECK((f = find(&t, "helper")) && f->size == 0x80);
	CHECK((f = find(&t, "weak_fn")) && f->size == 0x40);
	CHECK((f = find(&t, "_etext")) && f->size == 0);
	CHECK(t.sizes_estimated);
	/* a page and 0x300 bytes of code: _etext, at its end, lies outside */
	if (!sym_pdb_build(&t, 0x1300, &pdb, err, sizeof(err))) {
		CHECK_EQ(pdb.nsections, 1);
		CHECK_EQ(pdb.sections[0].rva, 0x1000);	/* as in every Windows PDB */
		CHECK_EQ(pdb.sections[0].size, 0x300);
		CHECK_EQ(pdb.outside, 1);
		CHECK_EQ(pdb.nfunctions, 5);
		sym_pdb_free(&pdb);
	} else {
		test_fail("%s", err);
	}
	sym_table_free(&t);
	CHECK(!sym_kallsyms_table(&k, "mymod", &t, err, sizeof(err)));
	CHECK_EQ(t.base, 0xffffffffc0000000ull);
	CHECK_EQ(t.nfuncs, 2);
	CHECK((f = find(&t, "mod_first")) && f->size == 0x30);
	CHECK((f = find(&t, "mod_fn")) && f->size == 0xfc0);
	CHECK(!find(&t, "other_fn"));
	sym_table_free(&t);
	CHECK(sym_kallsyms_table(&k, "absent", &t, err, sizeof(err)) == -1);
	CHECK_HAS(err, "module absent is not loaded");
	sym_kallsyms_free(&k);
	test_end();

	test_begin("kallsyms_hidden_addresses");
	CHECK(!write_text(path, "0000000000000000 T _text\n0000000000000000 t helper\n"));
	CHECK(sym_kallsyms_read(path, &k, err, sizeof(err)) == -1);
	CHECK_HAS(err, "run ntkl symbols as root, or sysctl kernel.kptr_restrict=0");
	sym_kallsyms_free(&k);
	test_end();
}

/* The running kernel's symbols: root sees real addresses. */
static void test_proc_kallsyms(void)
{
	struct sym_kallsyms k;
	struct sym_table t;
	struct timespec a, b;
	uint8_t id[SYM_BUILD_ID_MAX];

	if (geteuid()) {
		test_skip("proc_kallsyms", "needs root: /proc/kallsyms shows 0 addresses to others");
		return;
	}
	test_begin("proc_kallsyms");
	sym_table_init(&t);
	clock_gettime(CLOCK_MONOTONIC, &a);
	if (sym_kallsyms_read(NULL, &k, err, sizeof(err))) {
		test_fail("%s", err);
		test_end();
		return;
	}
	CHECK(!sym_kallsyms_table(&k, NULL, &t, err, sizeof(err)));
	clock_gettime(CLOCK_MONOTONIC, &b);
	CHECK(t.nfuncs > 10000);
	CHECK(find(&t, "schedule"));
	CHECK(t.base >> 63);
	printf("# /proc/kallsyms: %zu kernel functions, %zu modules, read in %.3f s\n", t.nfuncs,
	       k.nmods, (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9);
	/* the running kernel's build-id, as the module records it */
	CHECK_EQ(sym_notes_file_build_id("/sys/kernel/notes", id), 20);
	sym_table_free(&t);
	sym_kallsyms_free(&k);
	test_end();
}

/*
 * A real Windows trace: each DbgID_RSDS record pairs with the Image
 * record it precedes, as Windows writes them (the kernel's PDB is
 * ntkrnlmp.pdb), and its samples' IPs land in its images.
 */
static void test_windows_trace(void)
{
	char path[600];
	struct etl_file f;
	struct etl_error e;
	struct sym_trace t;
	size_t paired = 0, kernel = 0;

	snprintf(path, sizeof(path), "%s/perfview__net.4.5.2.x64.etl", test_samples_dir());
	if (access(path, R_OK)) {
		test_skip("trace_rsds_windows", "%s is not here (set NTKL_SAMPLES)", path);
		return;
	}
	test_begin("trace_rsds_windows");
	if (etl_open(&f, path, &e)) {
		test_fail("%s", e.msg);
		test_end();
		return;
	}
	CHECK(!sym_trace_read(&f, &t, &e));
	CHECK(t.rsds_records > 100);
	for (size_t i = 0; i < t.n; i++) {
		paired += t.v[i].has_rsds;
		if (t.v[i].has_rsds && strstr(t.v[i].path, "ntoskrnl.exe")) {
			kernel++;
			CHECK_STR(t.v[i].pdb_name, "ntkrnlmp.pdb");
			CHECK_EQ(t.v[i].pid, 0);
		}
	}
	/* DCStart and DCEnd of one image merge; most images have an RSDS */
	CHECK(paired > t.n / 2);
	CHECK_EQ(kernel, 1);
	CHECK(t.kernel_addrs > 0 && t.kernel_missed < t.kernel_addrs / 10);
	printf("# PerfView sample: %zu images, %zu with their RSDS; %lu RSDS records; "
	       "%lu kernel and %lu user addresses, %lu and %lu in no image\n", t.n, paired,
	       t.rsds_records, t.kernel_addrs, t.user_addrs, t.kernel_missed, t.user_missed);
	sym_trace_free(&t);
	etl_close(&f);
	test_end();
}

/*
 * A trace of the PIE test program (mapped at a base of its own) with 3
 * samples in alpha and 1 in beta, at etl. 0, or -1 (the test failed).
 */
static int write_profile_trace(const char *etl, const char *bin)
{
	struct sym_table t;
	struct synth s;
	const struct sym_func *alpha, *beta;
	uint64_t base = 0x555555554000ull;
	uint8_t buf[1024], *img;
	struct etw_image_v3 im = { .image_base = base, .image_size = 0x10000, .process_id = 0x4d2 };
	struct etw_thread_v3 th = { .process_id = 0x4d2, .thread_id = 7 };
	size_t size;
	FILE *f;
	int ret = -1;

	sym_table_init(&t);
	if (sym_elf_read(bin, NULL, &t, err, sizeof(err)) || !(alpha = find(&t, "alpha")) ||
	    !(beta = find(&t, "beta"))) {
		test_fail("the test program: %s", err);
		goto out;
	}
	synth_begin(&s, 65536, 1);
	synth_buffer(&s, 0);
	memcpy(buf, &im, sizeof(im));
	size = sizeof(im) + etl_utf8_to_utf16(bin, buf + sizeof(im), sizeof(buf) - sizeof(im));
	synth_record(&s, ETW_EVENT_IMAGE_DC_START_HOOK, 3, SYNTH_START_CLOCK + 1, buf, (uint32_t)size);
	synth_record(&s, ETW_EVENT_THREAD_DC_START_HOOK, 3, SYNTH_START_CLOCK + 1, &th, sizeof(th));
	for (int i = 0; i < 4; i++) {
		const struct sym_func *fn = i < 3 ? alpha : beta;
		struct perfinfo_sampled_profile sp = {
			.instruction_pointer = base + fn->addr + fn->size / 2,
			.thread_id = 7,
			.count = 1,
		};

		synth_record(&s, ETW_EVENT_SAMPLED_PROFILE_HOOK, 2, SYNTH_START_CLOCK + 2 + i, &sp,
			     sizeof(sp));
	}
	img = synth_end(&s, &size);
	f = fopen(etl, "wb");
	CHECK(img && f && fwrite(img, 1, size, f) == size);
	ret = img && f ? 0 : -1;
	if (f)
		fclose(f);
	free(img);
out:
	sym_table_free(&t);
	return ret;
}

/* Begin the case name with write_profile_trace() at tmp/file; false if it failed (ended). */
static bool begin_with_trace(const char *name, const char *file, char *etl, size_t size)
{
	char bin[300];

	snprintf(bin, sizeof(bin), "%s/prog-pie", tmp);
	snprintf(etl, size, "%s/%s", tmp, file);
	test_begin("%s", name);
	if (write_profile_trace(etl, bin)) {
		test_end();
		return false;
	}
	return true;
}

/* dump --stats's functions: the trace's samples by function, named so. */
static void test_profile(void)
{
	char etl[300], err2[512], *text = NULL;
	size_t text_size = 0;
	struct sym_loader ld = { 0 };
	FILE *mem;

	if (!begin_with_trace("profile_functions", "prof.etl", etl, sizeof(etl)))
		return;
	mem = open_memstream(&text, &text_size);
	CHECK(mem && !sym_profile_print(mem, etl, 10, &ld, err2, sizeof(err2)));
	if (mem)
		fclose(mem);
	CHECK_HAS(text, "         3  75.00%  prog-pie!alpha\n");
	CHECK_HAS(text, "         1  25.00%  prog-pie!beta\n");
	free(text);
	sym_loader_free(&ld);
	test_end();
}

/*
 * ntkl report's functions (issue 32 item 4): the same table as dump
 * --stats's, in the text after the ready latency and in the JSON.
 */
static void test_report_functions(void)
{
	char etl[300], *text = NULL, *json = NULL;
	struct sym_loader ld = { 0 };
	struct etl_report r;
	struct etl_error e;
	struct etl_file f;

	if (!begin_with_trace("report_functions", "report.etl", etl, sizeof(etl)))
		return;
	if (etl_open(&f, etl, &e)) {
		test_fail("%s", e.msg);
		test_end();
		return;
	}
	CHECK(!etl_report_read(&f, &r, &e));
	CHECK_EQ(r.functions.n, 0);	/* until asked */
	CHECK(!etl_report_functions(&r, &ld, &e));
	CHECK_EQ(r.functions.n, 2);
	CHECK_EQ(r.functions.all_samples, 4);
	CHECK_EQ(r.functions.named[0][0], 4);	/* user IPs */
	text = report_string(&r, false);
	json = report_string(&r, true);
	CHECK_HAS(text, "\nFunctions by samples (top 10; ");
	CHECK_HAS(text, "         3  75.00%  prog-pie!alpha\n         1  25.00%  prog-pie!beta\n");
	CHECK_HAS(text, "Sample IPs named: kernel 0 of 0 (0.0%), user 4 of 4 (100.0%)\n");
	CHECK(text && strstr(text, "Ready latency") < strstr(text, "Functions by samples"));
	CHECK_HAS(json, "\"functions\": [\n  {\"function\": \"prog-pie!alpha\", \"samples\": 3, \"pct\": 75.000},\n"
			"  {\"function\": \"prog-pie!beta\", \"samples\": 1, \"pct\": 25.000}]");
	CHECK_HAS(json, "\"user_ips\": {\"named\": 4, \"all\": 4}");
	/* no stack in the trace: "user_stacks" null (test_user_stacks.c has them) */
	CHECK_HAS(json, "\"functions_not_named\": [],\n \"user_stacks\": null,\n \"storage\": {\"disk_ios\": 0,");
	free(text);
	free(json);
	etl_report_free(&r);
	sym_loader_free(&ld);
	etl_close(&f);
	test_end();
}

int main(void)
{
	if (!mkdtemp(tmp)) {
		printf("FAIL: unit test_symbols.c setup: mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	test_elf("-pie -fPIE", "pie", 0);
	test_elf("-no-pie -fno-PIE", "exec", 0x400000);
	test_debug_file();
	test_cxx();
	test_demangle();
	test_kallsyms();
	test_proc_kallsyms();
	test_windows_trace();
	test_profile();
	test_report_functions();
	run("rm -rf %s", tmp);
	return test_exit();
}
