// SPDX-License-Identifier: GPL-2.0
/*
 * The PDB writer (pdb/): the files it writes for synthetic images, read
 * back here at the byte level against the format's public description
 * (LLVM's docs/PDB): the MSF container and its free block maps, the info
 * stream's GUID and age, the DBI's stream numbers and sections, every
 * S_PUB32 against the function it names, the address map's order, the
 * hash tables' buckets, the modules' S_GPROC32 lengths, the globals'
 * S_PROCREFs to them; the store path;
 * the errors of bad images; 120000 functions in well under a second.
 * scripts/test_pdb checks the same files with LLVM's own reader.
 */
#include <dirent.h>
#include <errno.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "test.h"
#include "tests/pdb_synth.h"
#include "pdb/pdb_hash.h"

#define BLOCK	4096u

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* A PDB read back: every stream copied out of its blocks. */
struct msf {
	uint8_t *file;
	size_t size;
	uint32_t nstreams;
	uint8_t **data;
	uint32_t *len;
	bool fpm_clash;		/* a stream or the directory in an FPM block */
};

static void msf_free(struct msf *m)
{
	for (uint32_t i = 0; i < m->nstreams; i++)
		free(m->data[i]);
	free(m->data);
	free(m->len);
	free(m->file);
	memset(m, 0, sizeof(*m));
}

static bool is_fpm(uint32_t block)
{
	return block % BLOCK == 1 || block % BLOCK == 2;
}

/* false (and the case failed) if path is not an MSF this test can read */
static bool msf_read(const char *path, struct msf *m)
{
	uint32_t nblocks, dir_bytes, map, k;
	uint8_t *dirbuf;

	memset(m, 0, sizeof(*m));
	m->file = test_read_file(path, &m->size);
	if (!m->file || m->size < BLOCK) {
		test_fail("cannot read %s", path);
		return false;
	}
	if (memcmp(m->file, "Microsoft C/C++ MSF 7.00\r\n\x1a" "DS\0\0\0", 32)) {
		test_fail("%s: no MSF 7.00 magic", path);
		return false;
	}
	nblocks = le32(m->file + 40);
	dir_bytes = le32(m->file + 44);
	map = le32(m->file + 52);
	if (le32(m->file + 32) != BLOCK || le32(m->file + 36) != 1 ||
	    (size_t)nblocks * BLOCK != m->size || map >= nblocks || map < 3 ||
	    dir_bytes > BLOCK / 4 * BLOCK) {
		test_fail("%s: superblock: block size %u, fpm %u, %u blocks for %zu bytes, map %u",
			  path, le32(m->file + 32), le32(m->file + 36), nblocks, m->size, map);
		return false;
	}
	m->fpm_clash = is_fpm(map);
	dirbuf = calloc(1, (dir_bytes + BLOCK - 1) / BLOCK * BLOCK + 4);
	for (k = 0; k < (dir_bytes + BLOCK - 1) / BLOCK; k++) {
		uint32_t b = le32(m->file + (size_t)map * BLOCK + 4 * k);

		if (b >= nblocks) {
			test_fail("directory block %u past the end", b);
			free(dirbuf);
			return false;
		}
		m->fpm_clash |= is_fpm(b);
		memcpy(dirbuf + (size_t)k * BLOCK, m->file + (size_t)b * BLOCK, BLOCK);
	}
	m->nstreams = le32(dirbuf);
	m->data = calloc(m->nstreams, sizeof(*m->data));
	m->len = calloc(m->nstreams, sizeof(*m->len));
	k = 1 + m->nstreams;
	for (uint32_t s = 0; s < m->nstreams; s++) {
		uint32_t len = le32(dirbuf + 4 + 4 * s);

		m->len[s] = len;
		m->data[s] = calloc(1, len + 1);
		for (uint32_t off = 0; off < len; off += BLOCK, k++) {
			uint32_t b = le32(dirbuf + 4 * k);
			uint32_t n = len - off < BLOCK ? len - off : BLOCK;

			if (b >= nblocks || 4 * (size_t)k >= dir_bytes) {
				test_fail("stream %u: block %u past the end", s, b);
				free(dirbuf);
				return false;
			}
			m->fpm_clash |= is_fpm(b);
			memcpy(m->data[s] + off, m->file + (size_t)b * BLOCK, n);
		}
	}
	if (4 * (size_t)k != dir_bytes)
		test_fail("directory of %u bytes holds %zu", dir_bytes, 4 * (size_t)k);
	free(dirbuf);
	return true;
}

/* Every block in use: FPM 1's bits clear up to the block count, set after. */
static void check_fpm(const struct msf *m)
{
	uint32_t nblocks = (uint32_t)(m->size / BLOCK);

	for (uint32_t b = 0; b < BLOCK * 8; b++) {
		uint32_t fpm = b / (BLOCK * 8) * BLOCK + 1;
		bool free_bit = m->file[(size_t)fpm * BLOCK + b / 8] >> (b % 8) & 1;

		if (free_bit != (b >= nblocks)) {
			test_fail("free block map: block %u marked %s", b,
				  free_bit ? "free" : "used");
			return;
		}
	}
	CHECK(!m->fpm_clash);
}

static char tmpdir[] = "/tmp/ntkl-test-pdb-XXXXXX";

static const char *tmp_path(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", tmpdir, name);
	return buf;
}

/* The stream numbers ntkl's PDBs use (pdb_streams.h), checked via the DBI. */
enum { INFO = 1, TPI = 2, DBI = 3, IPI = 4 };

struct dbi {
	uint16_t globals, publics, symbols, sections;
	const uint8_t *modi;
	uint32_t modi_size, contrib_size, secmap_size;
	const uint8_t *contribs, *secmap;
};

static bool read_dbi(const struct msf *m, struct dbi *d)
{
	const uint8_t *p = m->data[DBI];
	uint32_t sizes[8], sum = 64;

	if (m->len[DBI] < 64 || le32(p) != 0xffffffffu || le32(p + 4) != 19990903u) {
		test_fail("DBI header");
		return false;
	}
	d->globals = le16(p + 12);
	d->publics = le16(p + 16);
	d->symbols = le16(p + 20);
	for (int i = 0; i < 8; i++) {
		sizes[i] = le32(p + 24 + 4 * i);
		if (i != 5)
			sum += sizes[i];
	}
	if (sum != m->len[DBI] || sizes[6] != 22) {
		test_fail("DBI substreams: %u bytes for a %u-byte stream, debug header %u",
			  sum, m->len[DBI], sizes[6]);
		return false;
	}
	d->modi = p + 64;
	d->modi_size = sizes[0];
	d->contribs = d->modi + sizes[0];
	d->contrib_size = sizes[1];
	d->secmap = d->contribs + sizes[1];
	d->secmap_size = sizes[2];
	/* the debug header is last; its entry 5 names the section headers */
	d->sections = le16(p + m->len[DBI] - 22 + 2 * 5);
	if (d->globals >= m->nstreams || d->publics >= m->nstreams ||
	    d->symbols >= m->nstreams || d->sections >= m->nstreams) {
		test_fail("DBI names streams past the %u there are", m->nstreams);
		return false;
	}
	return true;
}

/* A function at section:offset, from the synthetic image's sections. */
struct placed {
	const char *name;
	uint16_t section;
	uint32_t offset, size;
	bool seen;
};

static int placed_cmp(const void *pa, const void *pb)
{
	const struct placed *a = pa, *b = pb;

	if (a->section != b->section)
		return a->section < b->section ? -1 : 1;
	if (a->offset != b->offset)
		return a->offset < b->offset ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* The image's functions placed in its sections, sorted for take(). */
static struct placed *place_all(const struct synth_image *s)
{
	struct placed *p = calloc(s->img.nfunctions + 1, sizeof(*p));

	for (size_t i = 0; i < s->img.nfunctions; i++) {
		const struct pdb_function *f = &s->fns[i];

		p[i] = (struct placed){ f->name, 0, 0, f->size, false };
		for (size_t k = 0; k < s->img.nsections; k++)
			if (f->rva >= s->sections[k].rva &&
			    f->rva - s->sections[k].rva < s->sections[k].size) {
				p[i].section = (uint16_t)(k + 1);
				p[i].offset = f->rva - s->sections[k].rva;
			}
	}
	qsort(p, s->img.nfunctions, sizeof(*p), placed_cmp);
	return p;
}

/* Mark the function called name at section:offset (of that size) seen, once. */
static bool take(struct placed *p, size_t n, const char *name, uint16_t section,
		 uint32_t offset, uint32_t size, bool with_size)
{
	struct placed key = { name, section, offset, 0, false };
	struct placed *hit = bsearch(&key, p, n, sizeof(*p), placed_cmp);

	if (!hit || hit->seen || (with_size && hit->size != size))
		return false;
	hit->seen = true;
	return true;
}

static bool ascii(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s >= 0x80)
			return false;
	return true;
}

/*
 * May a come before b in a hash bucket? The order readers' lookups stop
 * early on (microsoft-pdb's gsi.cpp): shorter first, then ASCII names
 * case-insensitively, others bytewise.
 */
static bool bucket_order(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	if (la != lb)
		return la < lb;
	if (ascii(a) && ascii(b))
		return strcasecmp(a, b) <= 0;
	return memcmp(a, b, la) <= 0;
}

/*
 * A symbol hash table (publics or globals) of n records over the symbol
 * records syms (S_PUB32 and S_PROCREF both have their name at byte 14):
 * each record in the bucket of its name's hash, buckets in the readers'
 * order; an empty table is its header alone.
 */
static void check_hash_table(const uint8_t *h, uint32_t bytes, const uint8_t *syms, size_t n)
{
	uint32_t hr_bytes = le32(h + 8), bucket_bytes = le32(h + 12);
	const uint8_t *hr = h + 16, *bitmap = hr + hr_bytes;
	const uint8_t *bucket = bitmap + 4 * 129, *buckets_end = bitmap + bucket_bytes;
	uint32_t next = 0;

	if (le32(h) != 0xffffffffu || le32(h + 4) != 0xeffe0000u + 19990810u ||
	    hr_bytes != 8 * n || bytes != 16 + hr_bytes + bucket_bytes ||
	    (!n && bytes != 16)) {
		test_fail("hash table of %u bytes, %u of records for %zu symbols", bytes,
			  hr_bytes, n);
		return;
	}
	if (!n)
		return;
	for (uint32_t b = 0; b < 4096 && bucket < buckets_end; b++) {
		uint32_t first, end;

		if (!(le32(bitmap + 4 * (b / 32)) >> (b % 32) & 1))
			continue;
		first = le32(bucket) / 12;
		bucket += 4;
		end = bucket < buckets_end ? le32(bucket) / 12 : (uint32_t)n;
		if (first != next || end <= first || end > n) {
			test_fail("hash bucket %u: records %u..%u after %u", b, first, end, next);
			return;
		}
		for (uint32_t r = first; r < end; r++) {
			const char *name = (const char *)syms + le32(hr + 8 * r) - 1 + 14;
			const char *prev = r > first ?
				(const char *)syms + le32(hr + 8 * (r - 1)) - 1 + 14 : NULL;

			if (pdb_hash_v1(name, strlen(name)) % 4096 != b ||
			    le32(hr + 8 * r + 4) != 1 || (prev && !bucket_order(prev, name)))
				test_fail("hash bucket %u: record %u (%.40s) misplaced", b, r, name);
		}
		next = end;
	}
	CHECK_EQ(next, n);
}

/* The whole file of a synthetic image, checked against the image. */
static void check_pdb(const char *path, const struct synth_image *s)
{
	size_t n = s->img.nfunctions, nsized = 0;
	const uint8_t *info, *syms, *pubs;
	struct placed *fns = place_all(s);
	uint32_t hash_bytes, prev_section = 0, prev_offset = 0, nmodules = 0;
	uint16_t *module_stream = NULL;
	struct dbi d;
	struct msf m;

	if (!msf_read(path, &m))
		goto out;
	check_fpm(&m);
	CHECK(m.nstreams >= 13);

	/* the info stream: version, signature, age, GUID, "/names", VC140 */
	info = m.data[INFO];
	CHECK(m.len[INFO] >= 28 + 4 + 7);
	CHECK_EQ(le32(info), 20000404u);
	CHECK_EQ(le32(info + 4), s->img.signature);
	CHECK_EQ(le32(info + 8), s->img.age);
	CHECK(!memcmp(info + 12, s->img.guid, 16));
	CHECK_EQ(le32(info + 28), 7);
	CHECK(!memcmp(info + 32, "/names", 7));
	CHECK_EQ(le32(info + m.len[INFO] - 4), 20140508u);
	/* empty type streams */
	CHECK_EQ(le32(m.data[TPI] + 12), 0x1000);
	CHECK_EQ(le32(m.data[IPI] + 16), 0);

	if (!read_dbi(&m, &d))
		goto out;
	CHECK_EQ(le32(m.data[DBI] + 8), s->img.age);
	CHECK_EQ(le16(m.data[DBI] + 58), 0x8664);
	/* sections: headers and map */
	CHECK_EQ(m.len[d.sections], 40 * s->img.nsections);
	CHECK_EQ(le16(d.secmap), s->img.nsections + 1);
	for (size_t k = 0; k < s->img.nsections && m.len[d.sections] >= 40 * (k + 1); k++) {
		const uint8_t *h = m.data[d.sections] + 40 * k;

		CHECK(!strncmp((const char *)h, s->sections[k].name, 8));
		CHECK_EQ(le32(h + 8), s->sections[k].size);
		CHECK_EQ(le32(h + 12), s->sections[k].rva);
		CHECK_EQ(le32(h + 36), s->sections[k].characteristics);
		CHECK_EQ(le16(d.secmap + 4 + 20 * k + 6), k + 1);
		CHECK_EQ(le32(d.secmap + 4 + 20 * k + 16), s->sections[k].size);
	}

	/* publics: header, hash, address map; each entry one S_PUB32 of a function */
	pubs = m.data[d.publics];
	syms = m.data[d.symbols];
	hash_bytes = le32(pubs);
	CHECK_EQ(le32(pubs + 4), 4 * n);
	CHECK_EQ(m.len[d.publics], 28 + hash_bytes + 4 * n);
	for (size_t i = 0; i < n && m.len[d.publics] == 28 + hash_bytes + 4 * n; i++) {
		uint32_t off = le32(pubs + 28 + hash_bytes + 4 * i);
		const uint8_t *r = syms + off;
		uint32_t offset, section;

		if (off + 16 > m.len[d.symbols] || le16(r + 2) != 0x110e ||
		    off + 2 + le16(r) > m.len[d.symbols] || (le16(r) + 2) % 4) {
			test_fail("address map %zu: no S_PUB32 at %u", i, off);
			break;
		}
		offset = le32(r + 8);
		section = le16(r + 12);
		if (section < prev_section ||
		    (section == prev_section && offset < prev_offset)) {
			test_fail("address map %zu: %u:%x after %u:%x", i, section, offset,
				  prev_section, prev_offset);
			break;
		}
		prev_section = section;
		prev_offset = offset;
		if (le32(r + 4) != 2 ||
		    !take(fns, n, (const char *)r + 14, (uint16_t)section, offset, 0, false)) {
			test_fail("S_PUB32 %.60s at %u:%x (flags %u) is no function of the image",
				  (const char *)r + 14, section, offset, le32(r + 4));
			break;
		}
	}
	check_hash_table(pubs + 28, hash_bytes, syms, n);
	for (size_t i = 0; i < n; i++)
		if (!fns[i].seen)
			test_fail("function %.60s has no S_PUB32", fns[i].name);

	/* modules: every function of known size, as an S_GPROC32 with its length */
	module_stream = calloc(m.nstreams, sizeof(*module_stream));
	for (size_t i = 0; i < n; i++)
		fns[i].seen = false;
	for (uint32_t off = 0; off + 64 <= d.modi_size;) {
		const uint8_t *mi = d.modi + off;
		uint16_t stream = le16(mi + 34);
		uint32_t sym_bytes = le32(mi + 36);
		const char *name = (const char *)mi + 64;
		size_t entry = 64 + strlen(name) + 1;

		entry += strlen((const char *)mi + entry) + 1;
		off += (uint32_t)((entry + 3) / 4 * 4);
		if (nmodules < m.nstreams)
			module_stream[nmodules++] = stream;
		if (stream >= m.nstreams || sym_bytes + 4 != m.len[stream] ||
		    le32(m.data[stream]) != 4) {
			test_fail("module %s: stream %u of %u bytes for %u bytes of symbols",
				  name, stream, stream < m.nstreams ? m.len[stream] : 0, sym_bytes);
			break;
		}
		for (uint32_t p = 4; p + 4 <= sym_bytes;) {
			const uint8_t *r = m.data[stream] + p;
			uint32_t next = p + 2 + le16(r);

			if (le16(r + 2) == 0x1110) {
				if (le32(r + 8) + 4 > sym_bytes || le16(m.data[stream] + le32(r + 8) + 2) != 6 ||
				    !take(fns, n, (const char *)r + 39, le16(r + 36), le32(r + 32),
					  le32(r + 16), true))
					test_fail("S_GPROC32 %.60s at %x: no such function or no S_END",
						  (const char *)r + 39, le32(r + 32));
				nsized++;
			}
			p = next;
		}
	}
	for (size_t i = 0; i < n; i++)
		if (fns[i].size && !fns[i].seen)
			test_fail("function %.60s has no S_GPROC32", fns[i].name);

	/* globals: an S_PROCREF to each S_GPROC32, by the same name */
	check_hash_table(m.data[d.globals], m.len[d.globals], syms, nsized);
	for (size_t r = 0; r < nsized && m.len[d.globals] >= 16 + 8 * nsized; r++) {
		uint32_t off = le32(m.data[d.globals] + 16 + 8 * r) - 1;
		const uint8_t *ref = syms + off, *proc;
		uint16_t mod;

		if (off + 16 > m.len[d.symbols] || le16(ref + 2) != 0x1125) {
			test_fail("globals record %zu: no S_PROCREF at %u", r, off);
			break;
		}
		mod = le16(ref + 12);
		if (!mod || mod > nmodules || le32(ref + 8) + 40 > m.len[module_stream[mod - 1]]) {
			test_fail("S_PROCREF %.60s: module %u offset %u", (const char *)ref + 14,
				  mod, le32(ref + 8));
			break;
		}
		proc = m.data[module_stream[mod - 1]] + le32(ref + 8);
		if (le16(proc + 2) != 0x1110 || strcmp((const char *)proc + 39, (const char *)ref + 14))
			test_fail("S_PROCREF %.60s points at no S_GPROC32 of its name",
				  (const char *)ref + 14);
	}
	/* contributions: version, then 28-byte entries, ascending and disjoint */
	CHECK_EQ(le32(d.contribs), 0xeffe0000u + 19970605u);
	CHECK_EQ((d.contrib_size - 4) % 28, 0);
	for (uint32_t c = 1; c < (d.contrib_size - 4) / 28; c++) {
		const uint8_t *a = d.contribs + 4 + 28 * (c - 1), *b = a + 28;

		if (le16(b) < le16(a) ||
		    (le16(b) == le16(a) && le32(b + 4) <= le32(a + 4) + le32(a + 8)))
			test_fail("contribution %u at %u:%x touches the one before", c,
				  le16(b), le32(b + 4));
	}
out:
	msf_free(&m);
	free(fns);
	free(module_stream);
}

static void write_and_check(const char *case_name, struct synth_image *s)
{
	char path[512], err[512] = "";
	int ret;

	test_begin("%s", case_name);
	tmp_path(path, sizeof(path), s->img.pdb_name);
	ret = pdb_write(path, &s->img, err, sizeof(err));
	if (ret)
		test_fail("pdb_write: %d: %s", ret, err);
	else
		check_pdb(path, s);
	test_end();
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A refused image: ret, and a message holding want. */
static void check_refused(const char *case_name, const struct pdb_image *img,
			  int want_ret, const char *want)
{
	char path[512], err[512] = "";
	int ret;

	test_begin("%s", case_name);
	ret = pdb_write(tmp_path(path, sizeof(path), "refused.pdb"), img, err, sizeof(err));
	CHECK_EQ(ret, want_ret);
	CHECK_HAS(err, want);
	CHECK(access(path, F_OK) != 0);
	test_end();
}

static void test_refused(void)
{
	struct synth_image s;
	struct pdb_function f;
	char longname[PDB_NAME_MAX + 2];

	synth_multi(&s);
	f = s.fns[3];
	s.fns[3].rva = 0x20000;		/* past every section */
	check_refused("refuses a function outside the sections", &s.img, -EINVAL,
		      "function foo at RVA 0x20000");
	s.fns[3] = f;
	s.fns[3].size = 0x10000;	/* past its section's end */
	check_refused("refuses a function past its section", &s.img, -EINVAL,
		      "is not inside one section");
	s.fns[3] = f;
	s.fns[3].name = "";
	check_refused("refuses a function without a name", &s.img, -EINVAL, "no name");
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	s.fns[3].name = longname;
	check_refused("refuses a name too long for a record", &s.img, -EINVAL,
		      "a too long name");
	s.fns[3] = f;
	s.sections[1].rva = 0x8000;	/* inside .text */
	check_refused("refuses overlapping sections", &s.img, -EINVAL, "overlaps");
	s.sections[1].rva = 0x9000;
	s.img.nsections = 0;
	check_refused("refuses an image without sections", &s.img, -EINVAL, "0 sections");
	synth_free(&s);
}

static void test_write_errors(void)
{
	struct synth_image s;
	char err[512] = "", path[512];
	DIR *dir;
	struct dirent *e;
	int ret, leftovers = 0;

	synth_empty(&s);
	test_begin("a folder that is not there is one error, no file");
	ret = pdb_write(tmp_path(path, sizeof(path), "nodir/x.pdb"), &s.img, err, sizeof(err));
	CHECK_EQ(ret, -ENOENT);
	CHECK_HAS(err, "cannot create");
	test_end();

	test_begin("replaces a PDB whole, leaves no temporary file");
	tmp_path(path, sizeof(path), "replace.pdb");
	CHECK(!pdb_write(path, &s.img, err, sizeof(err)));
	s.img.age = 9;
	CHECK(!pdb_write(path, &s.img, err, sizeof(err)));
	check_pdb(path, &s);
	dir = opendir(tmpdir);
	while (dir && (e = readdir(dir)))
		leftovers += !!strstr(e->d_name, ".tmp-");
	if (dir)
		closedir(dir);
	CHECK_EQ(leftovers, 0);
	test_end();
	synth_free(&s);
}

static void test_store_path(void)
{
	static const uint8_t guid[16] = {
		0x78, 0x56, 0x34, 0x12, 0x34, 0x12, 0x78, 0x56,
		0x9a, 0xbc, 0xde, 0xf0, 0x01, 0x23, 0x45, 0x67,
	};
	char out[512], err[256] = "", id[48], want[512];
	struct stat st;

	test_begin("store id: GUID fields as numbers, upper-case hex, age in hex");
	pdb_store_id(guid, 0x2a, id);
	CHECK_STR(id, "123456781234567" "89ABCDEF0012345672A");
	pdb_store_id(guid, 1, id);
	CHECK_STR(id, "12345678123456789ABCDEF0012345671");
	test_end();

	test_begin("store path: DIR/name/id/name, folders made");
	CHECK(!pdb_store_path(tmpdir, "vmlinux.pdb", guid, 1, out, sizeof(out), err,
			      sizeof(err)));
	snprintf(want, sizeof(want), "%s/vmlinux.pdb/12345678123456789ABCDEF0012345671/vmlinux.pdb",
		 tmpdir);
	CHECK_STR(out, want);
	*strrchr(want, '/') = '\0';
	CHECK(!stat(want, &st) && S_ISDIR(st.st_mode));
	/* again: the folders are there already */
	CHECK(!pdb_store_path(tmpdir, "vmlinux.pdb", guid, 1, out, sizeof(out), err,
			      sizeof(err)));
	test_end();

	test_begin("store path: refuses a name with a slash, a path too long");
	CHECK_EQ(pdb_store_path(tmpdir, "a/b.pdb", guid, 1, out, sizeof(out), err,
				sizeof(err)), -EINVAL);
	CHECK_HAS(err, "not a PDB file name");
	CHECK_EQ(pdb_store_path(tmpdir, "vmlinux.pdb", guid, 1, out, 40, err,
				sizeof(err)), -ENAMETOOLONG);
	test_end();
}

int main(void)
{
	struct synth_image s;
	char path[512], err[512] = "";
	double t;
	struct stat st;

	if (!mkdtemp(tmpdir)) {
		printf("FAIL: unit test_pdb.c setup: mkdtemp: %s\n", strerror(errno));
		return 1;
	}

	synth_multi(&s);
	write_and_check("3 sections, gaps, aliases, long and mangled names", &s);
	synth_free(&s);

	synth_empty(&s);
	write_and_check("no functions", &s);
	synth_free(&s);

	synth_wide(&s);
	write_and_check("a file of more than 4096 blocks skips the repeated FPM blocks", &s);
	synth_free(&s);

	synth_big(&s, 120000);
	test_begin("120000 functions in well under a second");
	tmp_path(path, sizeof(path), s.img.pdb_name);
	t = now();
	CHECK(!pdb_write(path, &s.img, err, sizeof(err)));
	t = now() - t;
	/* a sanitized build is some times slower than ntkl's */
	if (t > 3.0)
		test_fail("took %.3f s (ASan+UBSan)", t);
	CHECK(!stat(path, &st) && st.st_size > 0);
	test_end();
	write_and_check("120000 functions: the file", &s);
	synth_free(&s);

	test_refused();
	test_write_errors();
	test_store_path();

	{
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
		if (system(cmd))
			printf("FAIL: unit test_pdb.c cleanup: %s\n", cmd);
	}
	return test_exit();
}
