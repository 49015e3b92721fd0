// SPDX-License-Identifier: GPL-2.0
/*
 * pdb_gen STORE [N]: write the synthetic images of pdb_synth.h (multi,
 * empty, wide: a file past 4096 blocks, touching: functions with no gap
 * between them, and big: N functions, 120000 by
 * default) as PDBs into the symbol store STORE, each with
 * STORE/<name>.manifest for scripts/test_pdb to check against LLVM's
 * reader:
 *
 *	pdb <path>		id <GUID><age>		age <n>
 *	func <rva> <size> <name>	(hex, hex, the name)
 *	gap <rva>			(an address no function holds)
 *
 * and one line per image on stdout: functions, bytes, seconds to write.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "tests/pdb_synth.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int write_manifest(const char *store, const struct synth_image *s,
			  const char *pdb_path)
{
	char path[4096], id[48];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/%s.manifest", store, s->img.pdb_name);
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "pdb_gen: cannot create %s: %s\n", path, strerror(errno));
		return -1;
	}
	pdb_store_id(s->img.guid, s->img.age, id);
	fprintf(f, "pdb %s\nid %s\nage %u\n", pdb_path, id, s->img.age);
	for (size_t i = 0; i < s->img.nfunctions; i++)
		fprintf(f, "func %x %x %s\n", s->fns[i].rva, s->fns[i].size, s->fns[i].name);
	for (size_t i = 0; i < s->ngaps; i++)
		fprintf(f, "gap %x\n", s->gaps[i]);
	ok = !ferror(f);
	if (fclose(f) || !ok) {
		fprintf(stderr, "pdb_gen: cannot write %s\n", path);
		return -1;
	}
	return 0;
}

static int gen(const char *store, struct synth_image *s)
{
	char path[4096], err[512];
	struct stat st;
	double t0, t1;

	if (pdb_store_path(store, s->img.pdb_name, s->img.guid, s->img.age,
			   path, sizeof(path), err, sizeof(err))) {
		fprintf(stderr, "pdb_gen: %s\n", err);
		return -1;
	}
	t0 = now();
	if (pdb_write(path, &s->img, err, sizeof(err))) {
		fprintf(stderr, "pdb_gen: %s\n", err);
		return -1;
	}
	t1 = now();
	if (stat(path, &st)) {
		fprintf(stderr, "pdb_gen: %s: %s\n", path, strerror(errno));
		return -1;
	}
	printf("%s %zu functions %lld bytes %.3f s\n", s->img.pdb_name,
	       s->img.nfunctions, (long long)st.st_size, t1 - t0);
	return write_manifest(store, s, path);
}

int main(int argc, char **argv)
{
	struct synth_image s;
	size_t n = 120000;
	int ret = 0;

	if (argc < 2 || argc > 3 || (argc == 3 && !(n = strtoul(argv[2], NULL, 0)))) {
		fprintf(stderr, "usage: pdb_gen STORE [FUNCTIONS]\n");
		return 2;
	}
	synth_multi(&s);
	ret |= gen(argv[1], &s);
	synth_free(&s);
	synth_empty(&s);
	ret |= gen(argv[1], &s);
	synth_free(&s);
	synth_wide(&s);
	ret |= gen(argv[1], &s);
	synth_free(&s);
	synth_touching(&s);
	ret |= gen(argv[1], &s);
	synth_free(&s);
	synth_big(&s, n);
	ret |= gen(argv[1], &s);
	synth_free(&s);
	return ret ? 1 : 0;
}
