// SPDX-License-Identifier: GPL-2.0
/*
 * test.h itself: a case that makes no check FAILs, a case whose checks
 * hold PASSes, a failed check FAILs with its reason, and the exit status
 * says whether any case failed. The cases under test run in a child whose
 * output is read back here, so their FAIL lines are not this run's.
 */
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"

/* The child: three cases, then test_exit()'s status. */
static void child_cases(void)
{
	test_begin("no_check");
	test_end();

	test_begin("checks_hold");
	CHECK(1 + 1 == 2);
	CHECK_MSG(true, "not printed");
	test_end();

	test_begin("check_fails");
	CHECK_EQ(2 + 2, 5);
	test_end();

	exit(test_exit());
}

/* Run child_cases() with its stdout in out; its exit status, or -1. */
static int run_child(char *out, size_t size)
{
	size_t len = 0;
	int fds[2], status;
	ssize_t n;
	pid_t pid;

	if (pipe(fds))
		return -1;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		close(fds[0]);
		if (dup2(fds[1], STDOUT_FILENO) < 0)
			_exit(127);
		child_cases();
	}
	close(fds[1]);
	while (len + 1 < size && (n = read(fds[0], out + len, size - 1 - len)) > 0)
		len += (size_t)n;
	out[len] = '\0';
	close(fds[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

int main(void)
{
	char out[4096];
	int rc;

	test_begin("case_without_check_fails");
	rc = run_child(out, sizeof(out));
	CHECK_EQ(rc, 1);
	CHECK_HAS(out, "FAIL: unit test_harness.c no_check: the case made no check");
	CHECK_HAS(out, "PASS: unit test_harness.c checks_hold\n");
	CHECK_HAS(out, "FAIL: unit test_harness.c check_fails: test_harness.c:");
	CHECK_HAS(out, "2 + 2 is 4 (0x4), expected 5 (0x5)");
	test_end();
	return test_exit();
}
