// SPDX-License-Identifier: GPL-2.0
/*
 * Where a PDB goes in a symbol store, the layout symsrv reads under
 * "srv*DIR" and _NT_SYMBOL_PATH without a server:
 *
 *	DIR/<name>/<GUID><age>/<name>
 *
 * GUID as 32 upper-case hex digits, its first three fields (stored
 * little-endian) read as numbers, the last 8 bytes in order; the age in
 * upper-case hex without leading zeros.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "pdb/pdb.h"

void pdb_store_id(const uint8_t g[16], uint32_t age, char out[48])
{
	uint32_t data1 = (uint32_t)g[0] | (uint32_t)g[1] << 8 |
			 (uint32_t)g[2] << 16 | (uint32_t)g[3] << 24;
	unsigned int data2 = (unsigned int)g[4] | (unsigned int)g[5] << 8;
	unsigned int data3 = (unsigned int)g[6] | (unsigned int)g[7] << 8;

	snprintf(out, 48, "%08X%04X%04X%02X%02X%02X%02X%02X%02X%02X%02X%X",
		 data1, data2, data3, g[8], g[9], g[10], g[11], g[12], g[13],
		 g[14], g[15], age);
}

/* mkdir -p of path's first len bytes */
static int make_dirs(char *path, size_t len, char *err, size_t err_size)
{
	for (size_t i = 1; i <= len; i++) {
		char c = path[i];

		if (i < len && c != '/')
			continue;
		path[i] = '\0';
		if (mkdir(path, 0755) && errno != EEXIST) {
			int ret = -errno;

			snprintf(err, err_size, "cannot create folder %s: %s", path,
				 strerror(-ret));
			path[i] = c;
			return ret;
		}
		path[i] = c;
	}
	return 0;
}

int pdb_store_path(const char *dir, const char *pdb_name, const uint8_t guid[16],
		   uint32_t age, char *out, size_t out_size, char *err, size_t err_size)
{
	char id[48];
	int n;

	if (!*pdb_name || strchr(pdb_name, '/') || !strcmp(pdb_name, ".") ||
	    !strcmp(pdb_name, "..")) {
		snprintf(err, err_size, "'%s' is not a PDB file name", pdb_name);
		return -EINVAL;
	}
	pdb_store_id(guid, age, id);
	n = snprintf(out, out_size, "%s/%s/%s/%s", dir, pdb_name, id, pdb_name);
	if (n < 0 || (size_t)n >= out_size) {
		snprintf(err, err_size, "the store path of %s under %s is too long",
			 pdb_name, dir);
		return -ENAMETOOLONG;
	}
	/* every folder up to the file's */
	return make_dirs(out, (size_t)n - strlen(pdb_name) - 1, err, err_size);
}
