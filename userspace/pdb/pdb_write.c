// SPDX-License-Identifier: GPL-2.0
/*
 * pdb_write(): check the image, place its functions in their sections,
 * build every stream, lay them out in the MSF container and write the
 * file atomically.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "etl/etl_io.h"
#include "pdb/pdb.h"
#include "pdb/pdb_msf.h"
#include "pdb/pdb_streams.h"

/* The section holding rva, or NULL: sections ascend, so a binary search. */
static const struct pdb_section *section_of(const struct pdb_image *img, uint32_t rva,
					    uint16_t *number)
{
	size_t lo = 0, hi = img->nsections;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct pdb_section *s = &img->sections[mid];

		if (rva < s->rva) {
			hi = mid;
		} else if (rva - s->rva >= s->size) {
			lo = mid + 1;
		} else {
			*number = (uint16_t)(mid + 1);
			return s;
		}
	}
	return NULL;
}

static int check_sections(const struct pdb_image *img, char *err, size_t err_size)
{
	if (img->nsections < 1 || img->nsections > PDB_MAX_SECTIONS) {
		snprintf(err, err_size, "%s: %zu sections: a PDB needs 1 to %u",
			 img->pdb_name, img->nsections, PDB_MAX_SECTIONS);
		return -EINVAL;
	}
	for (size_t i = 0; i < img->nsections; i++) {
		const struct pdb_section *s = &img->sections[i];

		if (!s->size || (uint64_t)s->rva + s->size > UINT32_MAX) {
			snprintf(err, err_size, "%s: section %zu (%s) at RVA 0x%x has size 0x%x: "
				 "empty or past 4 GiB", img->pdb_name, i + 1,
				 s->name ? s->name : "?", s->rva, s->size);
			return -EINVAL;
		}
		if (i && s->rva < img->sections[i - 1].rva + img->sections[i - 1].size) {
			snprintf(err, err_size, "%s: section %zu (%s) at RVA 0x%x overlaps or "
				 "comes before the one before it", img->pdb_name, i + 1,
				 s->name ? s->name : "?", s->rva);
			return -EINVAL;
		}
	}
	return 0;
}

static int fn_cmp(const void *pa, const void *pb)
{
	const struct pdb_fn *a = pa, *b = pb;

	if (a->section != b->section)
		return a->section < b->section ? -1 : 1;
	if (a->offset != b->offset)
		return a->offset < b->offset ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* Every function checked and placed at its section:offset, sorted. */
static int place_functions(struct pdb_model *m, char *err, size_t err_size)
{
	const struct pdb_image *img = m->img;

	m->fns = malloc((img->nfunctions ? img->nfunctions : 1) * sizeof(*m->fns));
	if (!m->fns) {
		snprintf(err, err_size, "%s: out of memory for %zu functions",
			 img->pdb_name, img->nfunctions);
		return -ENOMEM;
	}
	for (size_t i = 0; i < img->nfunctions; i++) {
		const struct pdb_function *f = &img->functions[i];
		const struct pdb_section *s;
		size_t len = f->name ? strnlen(f->name, PDB_NAME_MAX + 1) : 0;
		uint16_t number = 0;

		if (!len || len > PDB_NAME_MAX) {
			snprintf(err, err_size, "%s: function %zu at RVA 0x%x: %s name",
				 img->pdb_name, i, f->rva, len ? "a too long" : "no");
			return -EINVAL;
		}
		s = section_of(img, f->rva, &number);
		if (!s || (uint64_t)f->rva + f->size > (uint64_t)s->rva + s->size) {
			snprintf(err, err_size, "%s: function %.200s at RVA 0x%x (size 0x%x) "
				 "is not inside one section", img->pdb_name, f->name,
				 f->rva, f->size);
			return -EINVAL;
		}
		m->fns[i] = (struct pdb_fn){
			.name = f->name,
			.name_len = (uint32_t)len,
			.section = number,
			.offset = f->rva - s->rva,
			.size = f->size,
		};
	}
	m->nfns = img->nfunctions;
	qsort(m->fns, m->nfns, sizeof(*m->fns), fn_cmp);
	return 0;
}

/* Every stream in s[0, *nstreams), allocated here. */
static int build_streams(struct pdb_model *m, struct pdb_buf **streams,
			 unsigned int *nstreams, char *err, size_t err_size)
{
	struct pdb_buf *s;
	unsigned int n;
	int ret;

	ret = pdb_build_modules(m);
	if (ret) {
		snprintf(err, err_size, "%s: out of memory for the modules", m->img->pdb_name);
		return ret;
	}
	if (m->nmodules > 0xfffe - PDB_STREAM_MODULES) {
		snprintf(err, err_size, "%s: %zu modules, more than a PDB numbers",
			 m->img->pdb_name, m->nmodules);
		return -EFBIG;
	}
	n = PDB_STREAM_MODULES + (unsigned int)m->nmodules;
	s = calloc(n, sizeof(*s));
	if (!s) {
		snprintf(err, err_size, "%s: out of memory", m->img->pdb_name);
		return -ENOMEM;
	}
	*streams = s;
	*nstreams = n;

	pdb_build_info(&s[PDB_STREAM_INFO], m->img);
	pdb_build_type_stream(&s[PDB_STREAM_TPI], PDB_STREAM_TPI_HASH);
	pdb_build_type_stream(&s[PDB_STREAM_IPI], PDB_STREAM_IPI_HASH);
	pdb_build_names(&s[PDB_STREAM_NAMES]);
	/* the modules' streams first: S_PROCREFs and the DBI point into them */
	for (size_t i = 0; i < m->nmodules; i++)
		pdb_build_module_stream(m, i, &s[PDB_STREAM_MODULES + i]);
	ret = pdb_build_symbols(m, &s[PDB_STREAM_SYMBOLS], &s[PDB_STREAM_PUBLICS],
				&s[PDB_STREAM_GLOBALS]);
	if (!ret) {
		pdb_build_section_headers(m->img, &s[PDB_STREAM_SECTION_HEADERS]);
		pdb_build_dbi(m, &s[PDB_STREAM_DBI]);
		for (unsigned int i = 0; i < n; i++)
			if (s[i].failed)
				ret = -ENOMEM;
	}
	if (ret)
		snprintf(err, err_size, "%s: out of memory building the PDB's streams",
			 m->img->pdb_name);
	return ret;
}

/* data to a temporary file beside path, renamed over it once complete. */
static int write_atomically(const char *path, const uint8_t *data, size_t len,
			    char *err, size_t err_size)
{
	size_t plen = strlen(path);
	char *tmp = malloc(plen + sizeof(".tmp-XXXXXX"));
	int fd, ret;

	if (!tmp) {
		snprintf(err, err_size, "%s: out of memory", path);
		return -ENOMEM;
	}
	memcpy(tmp, path, plen);
	memcpy(tmp + plen, ".tmp-XXXXXX", sizeof(".tmp-XXXXXX"));
	fd = mkstemp(tmp);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, err_size, "cannot create %s: %s", tmp, strerror(-ret));
		free(tmp);
		return ret;
	}
	/* symbol files are for every user of the traces, as a linker makes them */
	ret = fchmod(fd, 0644) ? -errno : 0;
	if (!ret)
		ret = etl_write_all(fd, data, len, -1);
	/*
	 * On the disk before the rename: the rename then replaces a whole
	 * file even across a crash, and a failed write-back is an error
	 * here rather than a PDB silently short.
	 */
	if (!ret && fdatasync(fd))
		ret = -errno;
	if (close(fd) && !ret)
		ret = -errno;
	if (ret)
		snprintf(err, err_size, "cannot write %s: %s", tmp, strerror(-ret));
	else if (rename(tmp, path)) {
		ret = -errno;
		snprintf(err, err_size, "cannot rename %s to %s: %s", tmp, path,
			 strerror(-ret));
	}
	if (ret)
		unlink(tmp);
	free(tmp);
	return ret;
}

int pdb_write(const char *path, const struct pdb_image *img, char *err, size_t err_size)
{
	struct pdb_model m = { .img = img };
	struct pdb_buf *streams = NULL;
	unsigned int nstreams = 0;
	uint8_t *file = NULL;
	size_t file_size = 0;
	int ret;

	if (!img->pdb_name || !*img->pdb_name) {
		snprintf(err, err_size, "%s: the image has no PDB name", path);
		return -EINVAL;
	}
	ret = check_sections(img, err, err_size);
	if (!ret)
		ret = place_functions(&m, err, err_size);
	if (!ret)
		ret = build_streams(&m, &streams, &nstreams, err, err_size);
	if (!ret)
		ret = pdb_msf_build(streams, nstreams, &file, &file_size,
				    err, err_size);
	if (!ret)
		ret = write_atomically(path, file, file_size, err, err_size);
	free(file);
	for (unsigned int i = 0; i < nstreams; i++)
		pdb_buf_free(&streams[i]);
	free(streams);
	free(m.fns);
	free(m.contribs);
	free(m.modules);
	return ret;
}
