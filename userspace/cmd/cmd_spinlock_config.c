// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl spinlock-config [spin=N] [acquire=N] [contention=N] [hold=N] [-defaults]
 *
 * Spin lock sampling, as `xperf -setspinlocksample` sets Windows'
 * EVENT_TRACE_SPINLOCK_INFORMATION: kernel-wide, for every SPINLOCK
 * logger. Without arguments it prints the settings; values not given
 * stay as they are.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "ctl/ntkl_control.h"
#include "uapi/ntkl_bounds.h"

void cmd_spinlock_config_usage(FILE *out)
{
	fprintf(out,
		"usage: ntkl spinlock-config [spin=N] [acquire=N] [contention=N] [hold=N]\n"
		"       ntkl spinlock-config -defaults\n"
		"\n"
		"Set how SPINLOCK loggers sample contended spin locks (kernel-wide, like\n"
		"xperf -setspinlocksample); without arguments, show the settings.\n"
		"Setting them needs root (CAP_SYS_ADMIN): they apply to every logger.\n"
		"\n"
		"  spin=N        record acquisitions that spun at least N times (>= %d, default 1)\n"
		"  contention=N  record every Nth contended acquisition per CPU (>= %d, default 1)\n"
		"  acquire=N     every Nth uncontended one (>= %d, default 1000; Linux has no\n"
		"                tracepoint for those, so it records none)\n"
		"  hold=N        acquisitions held over N cycles (0 or >= %d, default 1000000;\n"
		"                Linux has no release tracepoint, so it records none)\n"
		"  -defaults     Windows' defaults: spin=1 acquire=1000 contention=1 hold=1000000\n"
		"\n"
		"Exit status: 0 done, 1 failed, 2 usage error.\n",
		NTKL_SPIN_THRESHOLD_MIN, NTKL_CONTENTION_SAMPLE_RATE_MIN,
		NTKL_ACQUIRE_SAMPLE_RATE_MIN, NTKL_HOLD_THRESHOLD_MIN);
}

static void show(const struct ntkl_spinlock_config *c)
{
	printf("SpinLockSpinThreshold:        %u\n", c->spin_threshold);
	printf("SpinLockContentionSampleRate: %u\n", c->contention_sample_rate);
	printf("SpinLockAcquireSampleRate:    %u\n", c->acquire_sample_rate);
	printf("SpinLockHoldThreshold:        %u%s\n", c->hold_threshold,
	       c->hold_threshold ? "" : " (off)");
}

/* a value above 32 bits was given: its bound is named, not its syntax */
static bool too_big;

/* "name=N" into *value; 0, or -1 if arg is not that setting. */
static int setting(const char *arg, const char *name, uint32_t *value, const char **bad)
{
	size_t len = strlen(name);
	unsigned long long v;
	char *end;

	if (strncmp(arg, name, len) || arg[len] != '=')
		return -1;
	errno = 0;
	v = strtoull(arg + len + 1, &end, 0);
	if ((errno && errno != ERANGE) || end == arg + len + 1 || *end || arg[len + 1] == '-')
		*bad = arg;
	else if (errno == ERANGE || v > UINT32_MAX)
		*bad = arg, *value = UINT32_MAX, too_big = true;
	else
		*value = (uint32_t)v;
	return 0;
}

/* The module's bounds (uapi/ntkl_bounds.h), so the message can name the value. */
static const char *out_of_bounds(const struct ntkl_spinlock_config *c)
{
	uint32_t bad = ntkl_spinlock_config_out_of_bounds(c);

	if (bad & 1u << NTKL_SPIN_THRESHOLD)
		return "spin=N needs N >= 1";
	if (bad & 1u << NTKL_SPIN_ACQUIRE_RATE)
		return "acquire=N needs N >= 1000";
	if (bad & 1u << NTKL_SPIN_CONTENTION_RATE)
		return "contention=N needs N >= 1";
	if (bad & 1u << NTKL_SPIN_HOLD_THRESHOLD)
		return "hold=N needs N = 0 or N >= 1000000";
	return NULL;
}

/* The settings of argv into c; the first bad argument, or NULL. */
static const char *parse(int argc, char **argv, struct ntkl_spinlock_config *c, bool *defaults)
{
	const char *bad = NULL;

	for (int i = 1; i < argc && !bad; i++) {
		if (!strcmp(argv[i], "-defaults")) {
			*defaults = true;
			continue;
		}
		if (setting(argv[i], "spin", &c->spin_threshold, &bad) &&
		    setting(argv[i], "acquire", &c->acquire_sample_rate, &bad) &&
		    setting(argv[i], "contention", &c->contention_sample_rate, &bad) &&
		    setting(argv[i], "hold", &c->hold_threshold, &bad))
			bad = argv[i];
	}
	return bad;
}

int cmd_spinlock_config(int argc, char **argv)
{
	struct ntkl_error_ctx ctx = { .cmd = "spinlock-config", .op = NTKL_OP_SPINLOCK };
	struct ntkl_spinlock_config c;
	const char *bad = NULL, *bound;
	bool defaults = false;
	int fd, ret, i;

	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			cmd_spinlock_config_usage(stdout);
			return 0;
		}
	/*
	 * A usage error, or a value out of its bounds, is said before the
	 * device is needed: the values not given start at their lowest
	 * valid ones here, so a bound broken is one the user gave.
	 */
	memset(&c, 0, sizeof(c));
	c.spin_threshold = NTKL_SPIN_THRESHOLD_MIN;
	c.acquire_sample_rate = NTKL_ACQUIRE_SAMPLE_RATE_MIN;
	c.contention_sample_rate = NTKL_CONTENTION_SAMPLE_RATE_MIN;
	bad = parse(argc, argv, &c, &defaults);
	if (bad && too_big) {
		fprintf(stderr, "ntkl spinlock-config: %s: out of bounds: at most %u\n", bad,
			UINT32_MAX);
		return EXIT_USAGE;
	}
	if (bad)
		return cmd_usage_error("spinlock-config", cmd_spinlock_config_usage,
				       "%s: not spin=N, acquire=N, contention=N, hold=N or -defaults",
				       bad);
	if (!defaults && (bound = out_of_bounds(&c))) {
		fprintf(stderr, "ntkl spinlock-config: %s\n", bound);
		return EXIT_USAGE;
	}
	fd = ntkl_open_device("spinlock-config");
	if (fd < 0)
		return 1;
	ret = ntkl_get_spinlock_config(fd, &c);
	if (ret) {
		ntkl_error_print(stderr, &ctx, "cannot read the spin lock settings", ret);
		close(fd);
		return 1;
	}
	parse(argc, argv, &c, &defaults);
	if (argc > 1) {
		if (defaults) {
			/* all zero asks the module for Windows' defaults */
			memset(&c, 0, sizeof(c));
			c.size = sizeof(c);
		} else if ((bound = out_of_bounds(&c))) {
			fprintf(stderr, "ntkl spinlock-config: %s\n", bound);
			close(fd);
			return EXIT_USAGE;
		}
		ret = ntkl_set_spinlock_config(fd, &c);
		ctx.machine_wide = ret != 0;
		if (!ret)
			ret = ntkl_get_spinlock_config(fd, &c);
		if (ret) {
			ntkl_error_print(stderr, &ctx, "cannot set the spin lock settings", ret);
			close(fd);
			return 1;
		}
	}
	close(fd);
	show(&c);
	return 0;
}
