// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl version (also ntkl --version)
 *
 * This command's version and ABI, and the loaded module's (from
 * NTKL_IOC_GET_VERSION): its version, ABI, number of loggers and the
 * flags whose events it records. A module too old to answer, or none
 * loaded, is said in one line with the fix.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "ctl/ntkl_control.h"

void cmd_version_usage(FILE *out)
{
	fprintf(out,
		"usage: ntkl version     (or ntkl --version)\n"
		"\n"
		"Print this command's version and the loaded ntkl module's: its\n"
		"version, control ABI, loggers, and the flags whose events it records.\n"
		"\n"
		"Without the module (a machine that only reads traces: report, dump,\n"
		"convert, merge, relog, symbols need none) it says so and exits 0.\n"
		"\n"
		"Exit status: 0 this command's version printed (and the module's, or\n"
		"that none is loaded), 1 a module this command cannot use or cannot\n"
		"ask (no permission: the group tracing), 2 usage error.\n");
}

int cmd_version(int argc, char **argv)
{
	struct ntkl_version v;
	char groups[512];
	int fd, ret;

	if (argc > 1) {
		if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
			cmd_version_usage(stdout);
			return 0;
		}
		return cmd_usage_error("version", cmd_version_usage, "takes no arguments");
	}
	printf("ntkl %s (control ABI %d)\n", NTKL_VERSION, NTKL_ABI_VERSION);
	fd = ntkl_open();
	if (fd == -ENOENT || fd == -ENODEV || fd == -ENXIO) {
		/* no module is no error here: the file commands need none */
		printf("module: not loaded (no %s): the file commands (report, dump, convert, merge, relog, symbols) work without it; to record, load it: modprobe ntkl, or insmod ntkl.ko\n",
		       ntkl_device_path());
		return 0;
	}
	if (fd < 0) {
		printf("module: %s: %s (load it: modprobe ntkl, or insmod ntkl.ko)\n",
		       ntkl_device_path(), strerror(-fd));
		return 1;
	}
	ret = ntkl_get_version(fd, &v);
	close(fd);
	if (ret == -ENOTTY) {
		printf("module: older than control ABI 2, which this command needs: load the module built with it (rmmod ntkl; insmod ntkl.ko)\n");
		return 1;
	}
	if (ret) {
		printf("module: cannot ask its version: %s\n", strerror(-ret));
		return 1;
	}
	v.module_version[sizeof(v.module_version) - 1] = '\0';
	printf("module: ntkl.ko %s (control ABI %u), %u loggers, %u kernel events known\n",
	       v.module_version, v.abi_version, v.max_loggers, v.events);
	printf("records: %s\n", ntkl_groups_format(v.group_masks, groups, sizeof(groups)));
	if (v.abi_version != NTKL_ABI_VERSION) {
		printf("module: its ABI %u is not this command's %d: load the module built with this ntkl\n",
		       v.abi_version, NTKL_ABI_VERSION);
		return 1;
	}
	return 0;
}
