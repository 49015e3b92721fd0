/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tiny unit-test helper. Each test case prints exactly one line:
 *
 *	PASS: unit <file> <case>
 *	FAIL: unit <file> <case>: <reason>
 *
 * (scripts/check counts these lines). Use:
 *
 *	test_begin("name_%d", i);
 *	CHECK(x == 1);
 *	CHECK_EQ(n, 17078);
 *	test_end();
 *	...
 *	return test_exit();
 *
 * The first failed check of a case gives its reason; the case goes on, so
 * a crash in it still shows as a missing PASS and a failed run. A case
 * that makes no check (no CHECK*() ran between test_begin() and
 * test_end()) cannot fail, so it FAILs: "the case made no check". A
 * check whose failure wants its own words is CHECK_MSG(cond, fmt, ...);
 * test_fail() alone fails the case but is not a check. A case that cannot
 * run here (test_skip()) prints "SKIP: unit <file> <case>: why".
 */
#ifndef NTKL_TEST_H
#define NTKL_TEST_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct test_state {
	char name[160];
	char reason[600];
	bool in_case;
	bool failed;
	unsigned int checks;	/* CHECK*()s the current case made */
	unsigned int passed, failures;
};

static struct test_state test_state_;

/* "tests/test_layout.c" -> "test_layout.c" */
static inline const char *test_file_(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

#define TEST_FILE	test_file_(__FILE__)

__attribute__((format(printf, 1, 2), unused))
static void test_begin(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(test_state_.name, sizeof(test_state_.name), fmt, ap);
	va_end(ap);
	test_state_.in_case = true;
	test_state_.failed = false;
	test_state_.checks = 0;
	test_state_.reason[0] = '\0';
}

/* Record a failure of the current case; the first reason is kept. */
__attribute__((format(printf, 1, 2), unused))
static void test_fail(const char *fmt, ...)
{
	va_list ap;

	if (test_state_.failed)
		return;
	test_state_.failed = true;
	va_start(ap, fmt);
	vsnprintf(test_state_.reason, sizeof(test_state_.reason), fmt, ap);
	va_end(ap);
	/* one line per case: no newlines inside the reason */
	for (char *p = test_state_.reason; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
}

#define test_end()	test_end_(TEST_FILE)

__attribute__((unused))
static void test_end_(const char *file)
{
	if (!test_state_.in_case)
		return;
	/* a case that checked nothing cannot fail: it is a failure itself */
	if (!test_state_.failed && !test_state_.checks)
		test_fail("the case made no check: give it a CHECK*() of what it tests");
	if (test_state_.failed) {
		printf("FAIL: unit %s %s: %s\n", file, test_state_.name,
		       test_state_.reason);
		test_state_.failures++;
	} else {
		printf("PASS: unit %s %s\n", file, test_state_.name);
		test_state_.passed++;
	}
	fflush(stdout);
	test_state_.in_case = false;
}

/* A case that cannot run on this machine: one SKIP line saying why and what to do. */
/*
 * name and fmt must be string literals ("" pastes to nothing): a call that
 * left the name out, passing the format as the name and a path as the
 * format, printed a literal "%s" and now does not compile.
 */
#define test_skip(name, fmt, ...)	test_skip_(TEST_FILE, "" name, "" fmt, ##__VA_ARGS__)

__attribute__((format(printf, 3, 4), unused))
static void test_skip_(const char *file, const char *name, const char *fmt, ...)
{
	char why[600];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	printf("SKIP: unit %s %s: %s\n", file, name, why);
	fflush(stdout);
}

__attribute__((unused))
static int test_exit(void)
{
	return test_state_.failures ? 1 : 0;
}

#define CHECK(cond)							\
	do {								\
		test_state_.checks++;					\
		if (!(cond))						\
			test_fail("%s:%d: %s", test_file_(__FILE__),	\
				  __LINE__, #cond);			\
	} while (0)

#define CHECK_EQ(a, b)							\
	do {								\
		unsigned long long a_ = (unsigned long long)(a);	\
		unsigned long long b_ = (unsigned long long)(b);	\
		test_state_.checks++;					\
		if (a_ != b_)						\
			test_fail("%s:%d: %s is %llu (0x%llx), expected %llu (0x%llx)", \
				  test_file_(__FILE__), __LINE__, #a,	\
				  a_, a_, b_, b_);			\
	} while (0)

#define CHECK_STR(a, b)							\
	do {								\
		const char *a_ = (a), *b_ = (b);			\
		test_state_.checks++;					\
		if (!a_ || strcmp(a_, b_))				\
			test_fail("%s:%d: %s is \"%s\", expected \"%s\"", \
				  test_file_(__FILE__), __LINE__, #a,	\
				  a_ ? a_ : "(null)", b_);		\
	} while (0)

/* cond holds, or the case fails with the printf-style message after it */
#define CHECK_MSG(cond, ...)						\
	do {								\
		test_state_.checks++;					\
		if (!(cond))						\
			test_fail(__VA_ARGS__);				\
	} while (0)

/* hay contains needle */
#define CHECK_HAS(hay, needle)						\
	do {								\
		const char *h_ = (hay), *n_ = (needle);			\
		test_state_.checks++;					\
		if (!h_ || !strstr(h_, n_))				\
			test_fail("%s:%d: \"%.300s\" does not contain \"%s\"", \
				  test_file_(__FILE__), __LINE__,	\
				  h_ ? h_ : "(null)", n_);		\
	} while (0)

/* ---------------------------------------------------------------------- */
/* Helpers shared by the tests                                             */
/* ---------------------------------------------------------------------- */

/* Read a whole file into an exactly-sized malloc (so ASan sees overreads). */
__attribute__((unused))
static uint8_t *test_read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *data = NULL;
	long n;

	*size = 0;
	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
		goto out;
	data = malloc(n ? (size_t)n : 1);
	if (data && fread(data, 1, (size_t)n, f) != (size_t)n) {
		free(data);
		data = NULL;
		goto out;
	}
	*size = (size_t)n;
out:
	fclose(f);
	return data;
}

/* An exactly-sized copy of data[0, n). */
__attribute__((unused))
static uint8_t *test_copy(const uint8_t *data, size_t n)
{
	uint8_t *p = malloc(n ? n : 1);

	if (p && n)
		memcpy(p, data, n);
	return p;
}

/* Where the samples are: $NTKL_SAMPLES or the path the Makefile compiled in. */
__attribute__((unused))
static const char *test_samples_dir(void)
{
	const char *dir = getenv("NTKL_SAMPLES");

#ifdef NTKL_DEFAULT_SAMPLES
	if (!dir || !*dir)
		dir = NTKL_DEFAULT_SAMPLES;
#endif
	return dir ? dir : "../shared/etl-samples";
}

/* Where the Makefile extracted the 7z sample: $NTKL_SAMPLES_OUT or the default. */
__attribute__((unused))
static const char *test_samples_out_dir(void)
{
	const char *dir = getenv("NTKL_SAMPLES_OUT");

#ifdef NTKL_DEFAULT_SAMPLES_OUT
	if (!dir || !*dir)
		dir = NTKL_DEFAULT_SAMPLES_OUT;
#endif
	return dir ? dir : "build/samples";
}

/*
 * Are the third-party Windows samples (shared/etl-samples) here? A clone
 * that does not sit beside shared/ has none: its sample tests skip, each
 * file with one line saying where to put them.
 */
#define test_samples_here(what)	test_samples_here_(TEST_FILE, what)

__attribute__((unused))
static bool test_samples_here_(const char *file, const char *what)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/README.md", test_samples_dir());
	f = fopen(path, "r");
	if (f) {
		fclose(f);
		return true;
	}
	test_skip_(file, what, "the Windows ETL samples are not in %s: put shared/etl-samples "
		   "beside the clone, or run make SAMPLES=DIR", test_samples_dir());
	return false;
}

__attribute__((unused))
static const char *test_path(char *buf, size_t size, const char *dir,
			     const char *name)
{
	snprintf(buf, size, "%s/%s", dir, name);
	return buf;
}

/* Deterministic PRNG (xorshift64*) for the fuzz loops. */
__attribute__((unused))
static uint64_t test_rand(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545F4914F6CDD1DULL;
}

#endif /* NTKL_TEST_H */
