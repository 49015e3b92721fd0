// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl_unwind_test: whole user stacks in code built without frame
 * pointers (issue 45's acceptance), measured as a user would: `ntkl
 * record` of a program, then `ntkl convert --to folded`, whose frames are
 * named as ntkl symbols names them for WPA (the file's own Image records,
 * the guest's files), and counted.
 *
 * The programs are selftests/workloads/unwind.c, built as Debian builds
 * (-O2, no frame pointers, libc's code without them too): unwind-static
 * and unwind-dynamic (against libc.so.6, which vm-run copies into the
 * guest), and Debian's own gzip and xz, which nobody here compiled
 * (/debian/gzip, /debian/xz: vm-run copies the host's). Each case:
 *
 *   hot_*         PROFILE stacks sampled in the program's hot functions
 *                 (hot_leaf, level1..3, run_hot): >= 95 % reach main, and
 *                 in the dynamic build libc's start routine
 *                 (__libc_start_main, __libc_start_call_main) beyond it;
 *   qsort_*       sampled in libc's qsort calling back compare_ints: of
 *                 the stacks in the program's or libc's code, >= 95 % are
 *                 whole (reach main, or libc's start routine for its own
 *                 start and exit); of those in compare_ints, >= 95 % reach
 *                 main through libc's frames;
 *   usleep_*, condwait_*  the CSwitch stacks (WPA's New Thread Stack) of
 *                 a thread blocked in usleep, and of one in
 *                 pthread_cond_wait: >= 95 % reach the thread's own
 *                 function and its start routine beyond it (start_thread
 *                 or clone3 by name where libc has symbols: the static
 *                 build; else libc's frames: Debian's libc.so.6 names
 *                 neither);
 *   dlopen_dynamic  sampled in libunwind_dl.so, opened with dlopen while
 *                 recording: its frames named and >= 95 % reach main;
 *   signal_*      sampled in a SIGALRM handler's own work: >= 95 % go
 *                 through the signal frame to the interrupted function
 *                 (run_signal) and main;
 *   debian_gzip, debian_xz  Debian's gzip -9 and xz of a few MB: of their
 *                 stacks in their own or libc's code, >= 95 % reach libc's
 *                 start routine (SKIP without /debian/gzip, /debian/xz);
 *   frame_pointers_only  the hot program again with `ntkl record
 *                 -nounwind` (frame pointers alone): fewer than half of
 *                 its stacks reach main, so the unwinder is what makes
 *                 the difference (SKIP when record has no -nounwind).
 *
 * Where libc.so.6 has no Image record in the file (the recorder writes
 * none for a library mapped after exec by a process that ends before the
 * stop's rundown), its frames are "?" and no check by name can pass; the
 * dynamic hot and the Debian cases then also print how many stacks are
 * whole by their shape alone (the program's _start, then two frames of
 * libc), to tell the unwinder's part from the naming's.
 *
 * A stack's user part is its frames up to the first kernel frame (a
 * vmlinux-* image or a loaded module: kernel frames are the innermost
 * ones), its innermost user frame the last of those. Every case prints
 * its counts and the commonest stacks that fail (TH_LOG), so a failure
 * says why.
 */
#define _GNU_SOURCE
#include "kselftest_harness.h"
#include "ntkl_util.h"

#define RUN_MS		3000	/* each program's run: some thousand samples */
/*
 * Each of our programs first spends this long in warm_up() (unwind -w),
 * whose samples no check counts: a process's first stacks end early until
 * its map and tables are made, a tenth of a run on the debug kernel
 * (ntkl record's "process map not made yet" counts them). The checks
 * measure the walk. Debian's gzip and xz have no warm-up of their own:
 * our dynamic program's, run first in the same recording, makes libc's
 * table, and their own map and tables' window stays in.
 */
#define WARM_MS		1000	/* Debian's programs: libc's table made first */
#define MIN_SELECTED	100	/* fewer stacks than this measure nothing */
#define SHOW_FAILED	3	/* failing stacks shown, commonest first */
#define WANT_PERCENT	95

/* One line of a folded file: "process;outermost;...;innermost count". */
struct stack {
	unsigned long count;
	const char *process;
	const char **frame;		/* outermost first */
	size_t nframes;
	size_t nuser;			/* frame[0..nuser) are user frames */
};

struct folded {
	char *text;
	struct stack *v;
	size_t n;
};

/* What a case counted. */
struct tally {
	unsigned long selected, passed;
	unsigned long no_image;		/* selected stacks with a user frame in no Image */
	const struct stack *failed[SHOW_FAILED];
};

/* Loaded modules' names: their frames are kernel frames. */
static char modules[8192];

static void read_modules(void)
{
	char line[512], name[128];
	FILE *f = fopen("/proc/modules", "r");
	size_t used = 1;

	modules[0] = ' ';
	modules[1] = 0;
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%127s", name) != 1 || used + strlen(name) + 2 >= sizeof(modules))
			continue;
		used += snprintf(modules + used, sizeof(modules) - used, "%s ", name);
	}
	if (f)
		fclose(f);
}

/* The image part of "image!function" ("?" for a frame in no image). */
static bool image_is(const char *frame, const char *image)
{
	size_t n = strlen(image);

	return !strncmp(frame, image, n) && (frame[n] == '!' || (!frame[n] && !strcmp(image, "?")));
}

static const char *function_of(const char *frame)
{
	const char *bang = strchr(frame, '!');

	return bang ? bang + 1 : frame;
}

static bool is_kernel_frame(const char *frame)
{
	const char *bang = strchr(frame, '!');
	char name[160];

	if (!bang || (size_t)(bang - frame) + 3 > sizeof(name))
		return false;
	if (!strncmp(frame, "vmlinux-", 8))
		return true;
	snprintf(name, sizeof(name), " %.*s ", (int)(bang - frame), frame);
	return strstr(modules, name) != NULL;
}

static void folded_free(struct folded *fo)
{
	for (size_t i = 0; i < fo->n; i++)
		free(fo->v[i].frame);
	free(fo->v);
	free(fo->text);
	memset(fo, 0, sizeof(*fo));
}

/* Read and split a folded file; 0, or -1 if it cannot be read. */
static int folded_read(const char *path, struct folded *fo)
{
	FILE *f = fopen(path, "r");
	size_t size = 0, cap = 0;
	char *line, *next;

	memset(fo, 0, sizeof(*fo));
	if (!f)
		return -1;
	if (getdelim(&fo->text, &size, 0, f) < 0) {
		fclose(f);
		fo->text = strdup("");
		return fo->text ? 0 : -1;
	}
	fclose(f);
	for (line = fo->text; *line; line = next) {
		struct stack *s;
		char *space, *p;
		size_t nf = 1;

		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		else
			next = line + strlen(line);
		space = strrchr(line, ' ');
		if (!space)
			continue;
		*space = 0;
		if (fo->n == cap) {
			cap = cap ? 2 * cap : 256;
			fo->v = realloc(fo->v, cap * sizeof(*fo->v));
			if (!fo->v)
				return -1;
		}
		s = &fo->v[fo->n++];
		memset(s, 0, sizeof(*s));
		s->count = strtoul(space + 1, NULL, 10);
		for (p = line; *p; p++)
			nf += *p == ';';
		s->frame = calloc(nf, sizeof(*s->frame));
		if (!s->frame)
			return -1;
		s->process = line;
		for (p = strchr(line, ';'); p; p = strchr(p, ';')) {
			*p++ = 0;
			s->frame[s->nframes++] = p;
		}
		while (s->nuser < s->nframes && !is_kernel_frame(s->frame[s->nuser]))
			s->nuser++;
	}
	return 0;
}

static const char *innermost_user(const struct stack *s)
{
	return s->nuser ? s->frame[s->nuser - 1] : NULL;
}

/* The user frame that names function fn, outermost first: its index, or -1. */
static int find_function(const struct stack *s, const char *fn)
{
	for (size_t i = 0; i < s->nuser; i++)
		if (!strcmp(function_of(s->frame[i]), fn))
			return (int)i;
	return -1;
}

static bool has_function(const struct stack *s, const char *fn)
{
	return find_function(s, fn) >= 0;
}

/* libc's start routine, the caller of main: __libc_start_call_main, __libc_start_main(_impl) */
static bool has_start_routine(const struct stack *s)
{
	for (size_t i = 0; i < s->nuser; i++)
		if (!strncmp(function_of(s->frame[i]), "__libc_start_", 13))
			return true;
	return false;
}

static bool is_one_of(const char *fn, const char *const *names)
{
	for (; *names; names++)
		if (!strcmp(fn, *names))
			return true;
	return false;
}

/* Count s into t, as passed or not, keeping the commonest failures. */
static void tally_add(struct tally *t, const struct stack *s, bool passed)
{
	t->selected += s->count;
	for (size_t i = 0; i < s->nuser; i++)
		if (!strcmp(s->frame[i], "?")) {
			t->no_image += s->count;
			break;
		}
	if (passed) {
		t->passed += s->count;
		return;
	}
	for (int i = 0; i < SHOW_FAILED; i++) {
		if (t->failed[i] && t->failed[i]->count >= s->count)
			continue;
		memmove(&t->failed[i + 1], &t->failed[i], (SHOW_FAILED - 1 - i) * sizeof(*t->failed));
		t->failed[i] = s;
		break;
	}
}

static double percent(unsigned long part, unsigned long all)
{
	return all ? 100.0 * (double)part / (double)all : 0.0;
}

/* One stack on one line, at most about 600 characters of it. */
static void show_stack(struct __test_metadata *_metadata, const char *why, const struct stack *s)
{
	char line[640];
	size_t used;

	used = snprintf(line, sizeof(line), "%s", s->process);
	for (size_t i = 0; i < s->nframes && used < sizeof(line); i++)
		used += snprintf(line + used, sizeof(line) - used, ";%s", s->frame[i]);
	TH_LOG("  %s (%lu times): %s%s", why, s->count, line, used >= sizeof(line) ? "..." : "");
}

/* The counts of a check, and the stacks that failed it most. */
static void report(struct __test_metadata *_metadata, const char *what, const struct tally *t)
{
	TH_LOG("%s: %lu of %lu stacks (%.1f%%; %d%% wanted)", what, t->passed, t->selected,
	       percent(t->passed, t->selected), WANT_PERCENT);
	if (t->no_image)
		TH_LOG("  %lu of them have a user frame in no Image record (?): a library mapped "
		       "after exec with no Image Load in the trace cannot be named", t->no_image);
	for (int i = 0; i < SHOW_FAILED && t->failed[i]; i++)
		show_stack(_metadata, "fails", t->failed[i]);
}

static bool enough(const struct tally *t)
{
	return t->selected >= MIN_SELECTED &&
	       t->passed * 100 >= (unsigned long)WANT_PERCENT * t->selected;
}

/*
 * Record argv under ntkl with flags and stack walks (extra: more record
 * options), its stdout into NAME.out, then fold its stacks of event
 * (--event EVENT --tid for cswitch) into NAME.folded and read them.
 */
static int record_and_fold(struct __test_metadata *_metadata, const char *name,
			   const char *extra, const char *on, const char *stackwalk,
			   const char *event, const char *cmd, struct folded *fo)
{
	char out[8192];
	int rc;

	rc = sh(out, sizeof(out), "cd /tmp && ntkl record %s -on %s -stackwalk %s -o %s.etl -- %s > %s.out",
		extra, on, stackwalk, name, cmd, name);
	if (rc) {
		TH_LOG("ntkl record -- %s: status %d: %s", cmd, rc, out);
		return -1;
	}
	rc = sh(out, sizeof(out), "cd /tmp && ntkl convert --to folded %s %s.etl -o %s.folded",
		strcmp(event, "profile") ? "--event cswitch --tid" : "", name, name);
	TH_LOG("%s", out);
	if (rc)
		return -1;
	snprintf(out, sizeof(out), "/tmp/%s.folded", name);
	if (folded_read(out, fo)) {
		TH_LOG("cannot read %s", out);
		return -1;
	}
	return 0;
}

static int record_profile(struct __test_metadata *_metadata, const char *name, const char *extra,
			  const char *cmd, struct folded *fo)
{
	return record_and_fold(_metadata, name, extra, "PROC_THREAD+LOADER+PROFILE", "Profile",
			       "profile", cmd, fo);
}

static int record_cswitch(struct __test_metadata *_metadata, const char *name, const char *cmd,
			  struct folded *fo)
{
	return record_and_fold(_metadata, name, "", "PROC_THREAD+LOADER+CSWITCH", "CSwitch",
			       "cswitch", cmd, fo);
}

/* The process of a folded line: the name itself, or name-PID/TID (--tid). */
static bool process_is(const struct stack *s, const char *name)
{
	size_t n = strlen(name);

	return !strncmp(s->process, name, n) && (!s->process[n] || s->process[n] == '-');
}

/* The program's own functions that a hot-loop sample lands in. */
static const char *const hot_functions[] = {
	"hot_leaf", "level3", "level2", "level1", "run_hot", NULL,
};

/* Is this user frame libc's: its image, the program's own (static), or none (not imaged)? */
static bool in_libc(const char *frame, const char *image, bool dynamic)
{
	if (!dynamic)
		return image_is(frame, image);
	return image_is(frame, "libc.so.6") || image_is(frame, "?");
}

/*
 * Whole by its shape, whatever libc's frames are named: the outermost
 * user frame is the program's (its _start), the two inside it libc's
 * (__libc_start_main, __libc_start_call_main). Where the trace has no
 * Image of libc.so.6 (mapped after exec), this still tells a whole stack
 * from a short one: the unwinder's part from the naming's.
 */
static bool whole_by_shape(const struct stack *s, const char *image)
{
	return s->nuser >= 3 && image_is(s->frame[0], image) &&
	       in_libc(s->frame[1], image, true) && in_libc(s->frame[2], image, true);
}

static void report_shape(struct __test_metadata *_metadata, const struct tally *t)
{
	TH_LOG("  by shape alone (the program's _start, then two frames of libc, named or not): "
	       "%lu of %lu (%.1f%%)", t->passed, t->selected, percent(t->passed, t->selected));
}

/*
 * hot: of the stacks whose innermost user frame is one of the program's
 * hot functions, those that reach main (and, dynamic, libc's start
 * routine beyond it; shape, if not NULL: main and whole_by_shape()).
 */
static void tally_hot(const struct folded *fo, const char *image, bool dynamic, struct tally *t,
		      struct tally *shape)
{
	for (size_t i = 0; i < fo->n; i++) {
		const struct stack *s = &fo->v[i];
		const char *in = innermost_user(s);

		if (!process_is(s, image) || !in || !image_is(in, image) ||
		    !is_one_of(function_of(in), hot_functions))
			continue;
		tally_add(t, s, has_function(s, "main") && (!dynamic || has_start_routine(s)));
		if (shape)
			tally_add(shape, s, has_function(s, "main") && whole_by_shape(s, image));
	}
}

static void check_hot(struct __test_metadata *_metadata, const char *image, bool dynamic)
{
	char cmd[128], name[64];
	struct tally t = { 0 }, shape = { 0 };
	struct folded fo;

	snprintf(cmd, sizeof(cmd), "/workloads/%s -w %d hot %d", image, WARM_MS, RUN_MS);
	snprintf(name, sizeof(name), "%s-hot", image);
	ASSERT_EQ(0, record_profile(_metadata, name, "", cmd, &fo));
	tally_hot(&fo, image, dynamic, &t, &shape);
	report(_metadata, dynamic ? "hot: sampled in the program's own code, reaching main and "
		"libc's start routine" : "hot: sampled in the program's own code, reaching main", &t);
	if (dynamic)
		report_shape(_metadata, &shape);
	EXPECT_TRUE(enough(&t));
	folded_free(&fo);
}

/* The caller of a qsort callback: libc's sort (by name where libc has names). */
static bool libc_sort_frame(const char *frame, const char *image, bool dynamic)
{
	const char *fn = function_of(frame);

	if (dynamic)
		return in_libc(frame, image, dynamic);
	return !strncmp(fn, "msort", 5) || !strncmp(fn, "qsort", 5) || !strncmp(fn, "__qsort", 7);
}

/* Whole: it reaches main, or (libc's own start and exit code) libc's start routine. */
static bool whole(const struct stack *s)
{
	return has_function(s, "main") || has_start_routine(s);
}

static void check_qsort(struct __test_metadata *_metadata, const char *image, bool dynamic)
{
	struct tally all = { 0 }, callback = { 0 };
	char cmd[128], name[64];
	struct folded fo;

	snprintf(cmd, sizeof(cmd), "/workloads/%s -w %d qsort %d", image, WARM_MS, RUN_MS);
	snprintf(name, sizeof(name), "%s-qsort", image);
	ASSERT_EQ(0, record_profile(_metadata, name, "", cmd, &fo));
	for (size_t i = 0; i < fo.n; i++) {
		const struct stack *s = &fo.v[i];
		const char *in = innermost_user(s);
		int cmp, run;

		if (!process_is(s, image) || !in || has_function(s, "warm_up") ||
		    !(image_is(in, image) || in_libc(in, image, dynamic)))
			continue;
		tally_add(&all, s, whole(s));
		if (strcmp(function_of(in), "compare_ints"))
			continue;
		/* from compare_ints out through libc's sort to run_qsort and main */
		cmp = find_function(s, "compare_ints");
		run = find_function(s, "run_qsort");
		tally_add(&callback, s, run >= 0 && run + 1 < cmp &&
			  libc_sort_frame(s->frame[cmp - 1], image, dynamic) && has_function(s, "main"));
	}
	report(_metadata, "qsort: sampled in the program's or libc's code, whole (main, or libc's "
	       "start routine)", &all);
	report(_metadata, "qsort: sampled in the callback compare_ints, reaching main through libc's "
	       "qsort", &callback);
	EXPECT_TRUE(enough(&all));
	EXPECT_TRUE(enough(&callback));
	folded_free(&fo);
}

/* The tids the program said it started a thread with function fn in (NAME.out). */
static int thread_of(const char *name, const char *fn)
{
	char path[128], line[256], mode[32], func[64];
	int tid = -1, t;
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/%s.out", name);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "unwind: %31s thread %d %63s", mode, &t, func) == 3 && !strcmp(func, fn))
			tid = t;
	if (f)
		fclose(f);
	return tid;
}

/*
 * The CSwitch stacks of the thread running fn: those holding fn and,
 * beyond it, the thread's start routine (start_thread or clone3 by name,
 * or, where libc has no names for them, frames of libc's only).
 */
static void check_thread(struct __test_metadata *_metadata, const char *image, bool dynamic,
			 const char *mode, const char *fn)
{
	char cmd[128], name[64], suffix[32], what[256];
	struct tally t = { 0 };
	struct folded fo;
	int tid;

	snprintf(cmd, sizeof(cmd), "/workloads/%s -w %d %s %d", image, WARM_MS, mode, RUN_MS);
	snprintf(name, sizeof(name), "%s-%s", image, mode);
	ASSERT_EQ(0, record_cswitch(_metadata, name, cmd, &fo));
	tid = thread_of(name, fn);
	ASSERT_GT(tid, 0) TH_LOG("%s printed no thread line for %s", cmd, fn);
	snprintf(suffix, sizeof(suffix), "/%d", tid);
	for (size_t i = 0; i < fo.n; i++) {
		const struct stack *s = &fo.v[i];
		size_t n = strlen(s->process);
		int at;
		bool started = false;

		if (!process_is(s, image) || n < strlen(suffix) ||
		    strcmp(s->process + n - strlen(suffix), suffix))
			continue;
		at = find_function(s, fn);
		if (at > 0 && !dynamic)
			started = has_function(s, "start_thread") || has_function(s, "clone3") ||
				  has_function(s, "__clone3");
		if (at > 0 && dynamic) {
			started = true;
			for (int k = 0; k < at; k++)
				started &= in_libc(s->frame[k], image, dynamic);
		}
		tally_add(&t, s, at > 0 && started);
	}
	snprintf(what, sizeof(what), "%s: CSwitch stacks of thread %d, reaching %s and its start "
		 "routine (%s)", mode, tid, fn, dynamic ? "libc's frames beyond it" :
		 "start_thread or clone3");
	report(_metadata, what, &t);
	EXPECT_TRUE(enough(&t));
	folded_free(&fo);
}

static void check_signal(struct __test_metadata *_metadata, const char *image, bool dynamic)
{
	char cmd[128], name[64];
	struct tally t = { 0 };
	struct folded fo;

	snprintf(cmd, sizeof(cmd), "/workloads/%s -w %d signal %d", image, WARM_MS, RUN_MS);
	snprintf(name, sizeof(name), "%s-signal", image);
	ASSERT_EQ(0, record_profile(_metadata, name, "", cmd, &fo));
	for (size_t i = 0; i < fo.n; i++) {
		const struct stack *s = &fo.v[i];
		const char *in = innermost_user(s);
		int handler, run;
		bool restorer;

		if (!process_is(s, image) || !in || !image_is(in, image) ||
		    (strcmp(function_of(in), "handler_work") && strcmp(function_of(in), "on_alarm")))
			continue;
		/* on_alarm <- the signal frame (__restore_rt, libc's) <- the interrupted code <- main */
		handler = find_function(s, "on_alarm");
		run = find_function(s, "run_signal");
		restorer = handler > 0 && (dynamic ? in_libc(s->frame[handler - 1], image, dynamic) :
					   !strcmp(function_of(s->frame[handler - 1]), "__restore_rt"));
		tally_add(&t, s, restorer && run >= 0 && run < handler && has_function(s, "main"));
	}
	report(_metadata, "signal: sampled in the handler, through the signal frame (__restore_rt) "
	       "to the interrupted run_signal and main", &t);
	EXPECT_TRUE(enough(&t));
	folded_free(&fo);
}

FIXTURE(unwind) {
};

FIXTURE_SETUP(unwind)
{
	read_modules();
}

FIXTURE_TEARDOWN(unwind)
{
}

/* each case records a program for RUN_MS and folds the file: the debug kernel is slow */
#define UNWIND_TEST(name)	TEST_F_TIMEOUT(unwind, name, 600)

UNWIND_TEST(hot_static)
{
	check_hot(_metadata, "unwind-static", false);
}

UNWIND_TEST(hot_dynamic)
{
	check_hot(_metadata, "unwind-dynamic", true);
}

UNWIND_TEST(qsort_static)
{
	check_qsort(_metadata, "unwind-static", false);
}

UNWIND_TEST(qsort_dynamic)
{
	check_qsort(_metadata, "unwind-dynamic", true);
}

UNWIND_TEST(usleep_static)
{
	check_thread(_metadata, "unwind-static", false, "usleep", "sleeper_main");
}

UNWIND_TEST(usleep_dynamic)
{
	check_thread(_metadata, "unwind-dynamic", true, "usleep", "sleeper_main");
}

UNWIND_TEST(condwait_static)
{
	check_thread(_metadata, "unwind-static", false, "condwait", "waiter_main");
}

UNWIND_TEST(condwait_dynamic)
{
	check_thread(_metadata, "unwind-dynamic", true, "condwait", "waiter_main");
}

/*
 * The library's frames are named (its Image record) and its stacks reach
 * the program's call_library and main.
 */
UNWIND_TEST(dlopen_dynamic)
{
	char cmd[128];
	struct tally t = { 0 }, unnamed = { 0 };
	struct folded fo;

	snprintf(cmd, sizeof(cmd), "/workloads/unwind-dynamic -w %d dlopen %d", WARM_MS, RUN_MS);
	ASSERT_EQ(0, record_profile(_metadata, "unwind-dynamic-dlopen", "", cmd, &fo));
	for (size_t i = 0; i < fo.n; i++) {
		const struct stack *s = &fo.v[i];
		const char *in = innermost_user(s);
		int work, call;

		if (!process_is(s, "unwind-dynamic") || !in)
			continue;
		/* the library's busy leaf outside any Image: the trace missed its load */
		if (image_is(in, "?") && has_function(s, "main"))
			tally_add(&unnamed, s, false);
		if (!image_is(in, "libunwind_dl.so"))
			continue;
		work = find_function(s, "unwind_dl_work");
		call = find_function(s, "call_library");
		tally_add(&t, s, work > 0 && call >= 0 && call < work &&
			  image_is(s->frame[work], "libunwind_dl.so") && has_function(s, "main"));
	}
	report(_metadata, "dlopen: sampled in libunwind_dl.so, named, reaching call_library and main", &t);
	if (unnamed.selected)
		TH_LOG("  and %lu stacks reaching main have their innermost frame in no Image: "
		       "libunwind_dl.so's load is not in the trace", unnamed.selected);
	EXPECT_TRUE(enough(&t));
	folded_free(&fo);
}

UNWIND_TEST(signal_static)
{
	check_signal(_metadata, "unwind-static", false);
}

UNWIND_TEST(signal_dynamic)
{
	check_signal(_metadata, "unwind-dynamic", true);
}

/* path: a few MB of text that compresses as text does (words, repeats, numbers). */
static int write_compressible(const char *path, size_t bytes)
{
	static const char *const words[] = {
		"the", "kernel", "logger", "writes", "buffers", "of", "events", "and",
		"stacks", "to", "a", "file", "that", "WPA", "opens", "on", "Windows",
		"while", "threads", "wait", "for", "locks", "disks", "timers",
	};
	FILE *f = fopen(path, "w");
	uint64_t x = 12345;
	size_t n = 0;

	if (!f)
		return -1;
	while (n < bytes) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		n += fprintf(f, "%s%s", words[(x >> 33) % (sizeof(words) / sizeof(*words))],
			     (x >> 20) % 13 ? " " : (x >> 40) % 3 ? ".\n" : "\n");
		if ((x >> 50) % 97 == 0)
			n += fprintf(f, "%lu ", (unsigned long)(x >> 44));
	}
	return fclose(f) ? -1 : 0;
}

/*
 * A Debian binary: of the stacks of process name whose innermost user
 * frame is in its own code, its libraries' or in no Image (libc when
 * the trace has no Image of it), those reaching libc's start routine.
 */
static void check_debian(struct __test_metadata *_metadata, const char *prog, const char *args,
			 const char *const *images)
{
	char path[64], cmd[256], name[64];
	struct tally t = { 0 }, shape = { 0 };
	struct folded fo;

	snprintf(path, sizeof(path), "/debian/%s", prog);
	if (access(path, X_OK))
		SKIP(return, "no %s: scripts/vm-run copies the host's /usr/bin/%s there (apt install %s)",
		     path, prog, prog);
	ASSERT_EQ(0, write_compressible("/tmp/unwind-input.txt", 4 << 20));
	/*
	 * A logger makes each file's table once, for every process that maps
	 * it: our dynamic program's warm-up makes libc's, as any process on a
	 * real machine would have, then the shell becomes prog, whose first
	 * stacks still wait for its map and its own files' tables.
	 */
	snprintf(cmd, sizeof(cmd),
		 "sh -c '/workloads/unwind-dynamic -q -w %d hot 1 && exec %s %s'",
		 WARM_MS, path, args);
	snprintf(name, sizeof(name), "debian-%s", prog);
	ASSERT_EQ(0, record_profile(_metadata, name, "", cmd, &fo));
	for (size_t i = 0; i < fo.n; i++) {
		const struct stack *s = &fo.v[i];
		const char *in = innermost_user(s);
		bool own = false;

		if (!process_is(s, prog) || !in)
			continue;
		for (const char *const *im = images; *im; im++)
			own |= image_is(in, *im);
		if (!own)
			continue;
		tally_add(&t, s, has_start_routine(s));
		tally_add(&shape, s, whole_by_shape(s, prog));
	}
	snprintf(cmd, sizeof(cmd), "%s %s: sampled in its or its libraries' code, reaching libc's "
		 "start routine", path, args);
	report(_metadata, cmd, &t);
	report_shape(_metadata, &shape);
	EXPECT_TRUE(enough(&t));
	folded_free(&fo);
	unlink("/tmp/unwind-input.txt");
}

UNWIND_TEST(debian_gzip)
{
	static const char *const images[] = { "gzip", "libc.so.6", "?", NULL };

	check_debian(_metadata, "gzip", "-9 -c /tmp/unwind-input.txt", images);
}

UNWIND_TEST(debian_xz)
{
	static const char *const images[] = { "xz", "liblzma.so.5", "libc.so.6", "?", NULL };

	/* -6, xz's default: -9 wants 674 MiB, more than the guest has to spare */
	check_debian(_metadata, "xz", "-6 -T1 -c /tmp/unwind-input.txt", images);
}

/*
 * The same hot program with frame pointers alone (-nounwind): most of its
 * stacks end at their first frame. Beside hot_static's, this shows the
 * unwinder is what makes them whole (and that this test can fail).
 */
UNWIND_TEST(frame_pointers_only)
{
	struct tally fp = { 0 }, unwound = { 0 };
	struct folded fp_fo, unwound_fo;
	char out[256], cmd[128];

	if (sh(out, sizeof(out), "ntkl record -nounwind -on PROC_THREAD -o /tmp/nounwind.etl -- true") &&
	    strstr(out, "-nounwind"))
		SKIP(return, "ntkl record has no -nounwind yet (frame pointers alone): %.200s", out);
	snprintf(cmd, sizeof(cmd), "/workloads/unwind-static -w %d hot %d", WARM_MS, RUN_MS);
	ASSERT_EQ(0, record_profile(_metadata, "fp-hot", "-nounwind", cmd, &fp_fo));
	ASSERT_EQ(0, record_profile(_metadata, "unwound-hot", "", cmd, &unwound_fo));
	tally_hot(&fp_fo, "unwind-static", false, &fp, NULL);
	tally_hot(&unwound_fo, "unwind-static", false, &unwound, NULL);
	report(_metadata, "hot with -nounwind (frame pointers alone), reaching main", &fp);
	report(_metadata, "hot unwound, reaching main", &unwound);
	EXPECT_GE(fp.selected, MIN_SELECTED);
	EXPECT_LT(fp.passed * 2, fp.selected) TH_LOG("frame pointers alone should not reach main "
						       "in code built without them");
	EXPECT_TRUE(enough(&unwound));
	folded_free(&fp_fo);
	folded_free(&unwound_fo);
}

TEST_HARNESS_MAIN
