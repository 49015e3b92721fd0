// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl profile-interval [N | -default]
 *
 * The sampled profile interval, as `xperf -SetProfInt N` and
 * `xperf -ProfInt` set and show Windows': kernel-wide, for every PROFILE
 * logger, in 100 ns units. `ntkl start` and `ntkl record` take
 * -setprofint N too (profile_interval_apply()). Changing it while PROFILE
 * loggers run changes their sampling at once, and each gets a SetInterval
 * event saying so.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "ctl/ntkl_control.h"
#include "uapi/ntkl_bounds.h"

void cmd_profile_interval_usage(FILE *out)
{
	fprintf(out,
		"usage: ntkl profile-interval [N]\n"
		"       ntkl profile-interval -default\n"
		"\n"
		"Set how often PROFILE loggers sample each CPU (kernel-wide, like\n"
		"xperf -SetProfInt N); without arguments, show it. Setting it needs\n"
		"root (CAP_SYS_ADMIN): it applies to every logger.\n"
		"\n"
		"  N          the interval in 100 ns units, %d..%d\n"
		"             (8.2 kHz to 1 Hz); 10000 is 1 ms\n"
		"  -default   Windows' default, %d (1 ms, 1000 samples a second)\n"
		"\n"
		"ntkl start and ntkl record take -setprofint N as well.\n"
		"\n"
		"Exit status: 0 done, 1 failed, 2 usage error.\n",
		NTKL_PROFILE_INTERVAL_MIN, NTKL_PROFILE_INTERVAL_MAX,
		NTKL_PROFILE_INTERVAL_DEFAULT);
}

static void show(uint32_t interval)
{
	printf("Profile interval: %u (100 ns units: %.4f ms, %.0f samples/s per CPU), source 0 (Timer)\n",
	       interval, interval / 1e4, interval ? 1e7 / interval : 0.0);
}

/*
 * Set the interval for `cmd` (its -setprofint N, or this command's N):
 * the bound checked here first, so the message names it. 0, or after
 * saying why not EXIT_USAGE (out of bounds) or 1 (the module refused).
 */
int profile_interval_apply(int fd, const char *cmd, uint32_t interval)
{
	struct ntkl_error_ctx ctx = {
		.cmd = cmd, .op = NTKL_OP_PROFILE_INTERVAL, .machine_wide = 1,
	};
	struct ntkl_profile_interval p = { .size = sizeof(p), .interval = interval };
	int ret;

	if (!interval || ntkl_profile_interval_out_of_bounds(&p)) {
		fprintf(stderr, "ntkl %s: profile interval %u is out of bounds: %d..%d (100 ns units, as xperf -SetProfInt)\n",
			cmd, interval, NTKL_PROFILE_INTERVAL_MIN, NTKL_PROFILE_INTERVAL_MAX);
		return EXIT_USAGE;
	}
	ret = ntkl_set_profile_interval(fd, interval);
	if (ret) {
		ntkl_error_print(stderr, &ctx, "cannot set the profile interval", ret);
		return 1;
	}
	return 0;
}

int cmd_profile_interval(int argc, char **argv)
{
	struct ntkl_error_ctx ctx = { .cmd = "profile-interval", .op = NTKL_OP_PROFILE_INTERVAL };
	unsigned long v = NTKL_PROFILE_INTERVAL_DEFAULT;
	uint32_t interval;
	char *end;
	int fd, ret;

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		cmd_profile_interval_usage(stdout);
		return 0;
	}
	if (argc > 2) {
		return cmd_usage_error("profile-interval", cmd_profile_interval_usage,
				       "one interval only");
	}
	if (argc == 2 && strcmp(argv[1], "-default")) {
		errno = 0;
		v = strtoul(argv[1], &end, 0);
		if ((errno && errno != ERANGE) || end == argv[1] || *end || argv[1][0] == '-') {
			return cmd_usage_error("profile-interval", cmd_profile_interval_usage,
					       "%s: not a number of 100 ns units, nor -default",
					       argv[1]);
		}
		/* the value's bounds before the module's: the error is about the value */
		if (errno == ERANGE || v < NTKL_PROFILE_INTERVAL_MIN || v > NTKL_PROFILE_INTERVAL_MAX) {
			fprintf(stderr, "ntkl profile-interval: profile interval %s is out of bounds: %d..%d (100 ns units, as xperf -SetProfInt)\n",
				argv[1], NTKL_PROFILE_INTERVAL_MIN, NTKL_PROFILE_INTERVAL_MAX);
			return EXIT_USAGE;
		}
	}
	fd = ntkl_open_device("profile-interval");
	if (fd < 0)
		return 1;
	if (argc == 2) {
		ret = profile_interval_apply(fd, "profile-interval", (uint32_t)v);
		if (ret) {
			close(fd);
			return ret;
		}
	}
	ret = ntkl_get_profile_interval(fd, &interval);
	close(fd);
	if (ret) {
		ntkl_error_print(stderr, &ctx, "cannot read the profile interval", ret);
		return 1;
	}
	show(interval);
	return 0;
}
