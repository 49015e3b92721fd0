// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl_image_id_test: the identity before every Image record (issue 32),
 * checked against what Linux itself says of each image's build id.
 *
 * Each Image record (DCStart, DCEnd, Load, UnLoad) must come right after
 * an ImageID and a DbgID_RSDS (or DbgID_NONE) record of the same buffer,
 * with its timestamp, ImageBase and ProcessId, as xperf -merge leaves them
 * and as the strictest reader pairs them. The DbgID_RSDS GUID must be the
 * first 16 bytes of the image's GNU build id, age 1, "<file>.pdb", where
 * the build id is read independently here: /sys/kernel/notes for the
 * kernel, /sys/module/<name>/notes/.note.gnu.build-id for a module (the
 * .ko file's note for one unloaded since), the ELF this process was given
 * as its vDSO (AT_SYSINFO_EHDR), and the PT_NOTE segments of each file.
 */
#include <elf.h>
#include <limits.h>
#include <sys/auxv.h>
#include <sys/stat.h>

#include "kselftest_harness.h"
#include "ntkl_reader.h"

#define LOGGER		"selftest image id"
#define LOCKBENCH_KO	"/lib/modules/ntkl_lockbench.ko"
#define MAX_IMAGES	1024

struct build_id {
	uint8_t id[64];
	unsigned int len;	/* 0: none */
};

struct image {
	uint16_t hook;
	uint64_t base;
	uint32_t pid;
	char name[PATH_MAX];
	bool paired;		/* ImageID and a DbgID right before, matching */
	bool rsds;
	uint8_t guid[16];
	uint32_t age;
	char pdb[NAME_MAX + 8];
};

struct view {
	struct image *img;
	unsigned int n;
	struct etl_record prev[2];	/* the last two records of this buffer */
	unsigned int have;
	struct capture_verdict verdict;
};

static bool same_image(const struct etl_record *id, const struct etl_record *r,
		       uint64_t base, uint32_t pid, uint32_t pid_at)
{
	uint32_t p;
	uint64_t b;

	if (id->payload_len < pid_at + 4)
		return false;
	memcpy(&b, id->payload, 8);
	memcpy(&p, id->payload + pid_at, 4);
	return id->timestamp == r->timestamp && b == base && p == pid;
}

static void view_image(struct view *v, const struct etl_record *r)
{
	const struct etw_image_v3 *p = (const void *)r->payload;
	const struct etl_record *dbg = &v->prev[0], *id = &v->prev[1];
	struct image *img;
	unsigned int i, len;

	if (r->payload_len < sizeof(*p) + 2 || v->n == MAX_IMAGES)
		return;
	img = &v->img[v->n++];
	img->hook = r->hook_id;
	img->base = p->image_base;
	img->pid = p->process_id;
	len = (r->payload_len - sizeof(*p)) / 2;
	for (i = 0; i < len && i < sizeof(img->name) - 1 && r->payload[sizeof(*p) + 2 * i]; i++)
		img->name[i] = (char)r->payload[sizeof(*p) + 2 * i];
	img->name[i] = 0;
	if (v->have < 2 || !etl_record_listed(dbg) || !etl_record_listed(id) ||
	    id->hook_id != ETW_EVENT_IMAGE_ID_HOOK ||
	    (dbg->hook_id != ETW_EVENT_DBGID_RSDS_HOOK && dbg->hook_id != ETW_EVENT_DBGID_NONE_HOOK))
		return;
	img->paired = same_image(dbg, r, img->base, img->pid,
				 offsetof(struct etw_dbgid_rsds, process_id)) &&
		      same_image(id, r, img->base, img->pid,
				 offsetof(struct etw_image_id, process_id)) &&
		      dbg->process_id == r->process_id && id->process_id == r->process_id;
	img->rsds = dbg->hook_id == ETW_EVENT_DBGID_RSDS_HOOK &&
		    dbg->payload_len > sizeof(struct etw_dbgid_rsds);
	if (img->rsds) {
		const struct etw_dbgid_rsds *d = (const void *)dbg->payload;

		memcpy(img->guid, d->guid, 16);
		img->age = d->age;
		snprintf(img->pdb, sizeof(img->pdb), "%.*s",
			 (int)(dbg->payload_len - sizeof(*d)), (const char *)(d + 1));
	}
}

static void view_record(void *ctx, const struct etl_file *f, const struct etl_buffer *b,
			const struct etl_record *r)
{
	struct view *v = ctx;

	if (!r) {
		v->have = 0;	/* a new buffer: identities never cross one */
		return;
	}
	if (r->kind == ETL_KIND_KERNEL && (r->hook_id == ETW_EVENT_IMAGE_DC_START_HOOK ||
					   r->hook_id == ETW_EVENT_IMAGE_DC_END_HOOK ||
					   r->hook_id == ETW_EVENT_IMAGE_LOAD_HOOK ||
					   r->hook_id == ETW_EVENT_IMAGE_UNLOAD_HOOK))
		view_image(v, r);
	v->prev[1] = v->prev[0];
	v->prev[0] = *r;
	v->have++;
}

/* --- build ids, read here -------------------------------------------------- */

/* The build id among notes (len bytes at p). */
static bool notes_build_id(const uint8_t *p, size_t len, struct build_id *bid)
{
	size_t off = 0;

	while (off + sizeof(Elf64_Nhdr) <= len) {
		const Elf64_Nhdr *n = (const void *)(p + off);
		size_t name = (n->n_namesz + 3) & ~3u, desc = (n->n_descsz + 3) & ~3u;

		if (off + sizeof(*n) + name + desc > len)
			return false;
		if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
		    !memcmp(n + 1, "GNU", 4) && n->n_descsz <= sizeof(bid->id)) {
			memcpy(bid->id, p + off + sizeof(*n) + name, n->n_descsz);
			bid->len = n->n_descsz;
			return true;
		}
		off += sizeof(*n) + name + desc;
	}
	return false;
}

static uint8_t *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	size_t room = 1 << 16, n = 0;
	uint8_t *buf = NULL;

	if (!f)
		return NULL;
	for (;;) {
		uint8_t *grown = realloc(buf, room);
		size_t got;

		if (!grown)
			break;
		buf = grown;
		got = fread(buf + n, 1, room - n, f);
		n += got;
		if (n < room)
			break;
		room *= 2;
	}
	fclose(f);
	*len = n;
	return buf;
}

/* An ELF file's or image's build id: its PT_NOTE segments, else its SHT_NOTE sections. */
static bool elf_build_id(const uint8_t *p, size_t len, struct build_id *bid)
{
	const Elf64_Ehdr *eh = (const void *)p;
	unsigned int i;

	if (len < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64)
		return false;
	for (i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = (const void *)(p + eh->e_phoff + i * sizeof(*ph));

		if (eh->e_phoff + (i + 1) * sizeof(*ph) > len)
			break;
		if (ph->p_type == PT_NOTE && ph->p_offset + ph->p_filesz <= len &&
		    notes_build_id(p + ph->p_offset, ph->p_filesz, bid))
			return true;
	}
	for (i = 0; i < eh->e_shnum; i++) {
		const Elf64_Shdr *sh = (const void *)(p + eh->e_shoff + i * sizeof(*sh));

		if (eh->e_shoff + (i + 1) * sizeof(*sh) > len)
			break;
		if (sh->sh_type == SHT_NOTE && sh->sh_offset + sh->sh_size <= len &&
		    notes_build_id(p + sh->sh_offset, sh->sh_size, bid))
			return true;
	}
	return false;
}

/* What Linux says the build id of an image is; false if none is known. */
static bool expected_build_id(const struct image *img, struct build_id *bid)
{
	char path[PATH_MAX + 64];
	uint8_t *buf;
	size_t len;
	bool found;

	memset(bid, 0, sizeof(*bid));
	if (!strcmp(img->name, "[vdso]")) {
		const uint8_t *vdso = (const void *)getauxval(AT_SYSINFO_EHDR);

		/* the same vDSO in every process: this one's, read in memory */
		return vdso && elf_build_id(vdso, 2 * 4096, bid);
	}
	if (!strncmp(img->name, "/boot/vmlinux-", 14)) {
		snprintf(path, sizeof(path), "/sys/kernel/notes");
	} else if (!strncmp(img->name, "/sys/module/", 12)) {
		snprintf(path, sizeof(path), "%s/notes/.note.gnu.build-id", img->name);
		if (access(path, R_OK) && !strcmp(img->name + 12, "ntkl_lockbench"))
			snprintf(path, sizeof(path), "%s", LOCKBENCH_KO);	/* unloaded */
	} else {
		snprintf(path, sizeof(path), "%s", img->name);
	}
	buf = read_all(path, &len);
	if (!buf)
		return false;
	found = elf_build_id(buf, len, bid) || notes_build_id(buf, len, bid);
	/* an ELF file without one: its size and mtime (struct ntkl_derived_id) */
	if (!found && path[0] == '/' && strncmp(path, "/sys/", 5) && len > EI_CLASS &&
	    !memcmp(buf, ELFMAG, SELFMAG) && buf[EI_CLASS] == ELFCLASS64) {
		struct ntkl_derived_id d;
		struct stat st;

		if (!stat(path, &st)) {
			d.size = (uint64_t)st.st_size;
			d.mtime_ns = (uint64_t)st.st_mtim.tv_sec * 1000000000u +
				     (uint64_t)st.st_mtim.tv_nsec;
			memcpy(bid->id, &d, sizeof(d));
			bid->len = sizeof(d);
			found = true;
		}
	}
	free(buf);
	return found;
}

/* --- the test ------------------------------------------------------------- */

static void run(const char *cmd)
{
	if (system(cmd) < 0)
		perror(cmd);
}

/* selftests/workloads/no-build-id, where vm-run puts it */
#define NO_BUILD_ID	"/workloads/no-build-id"

static void workload(void *arg)
{
	run_execs("/bin/true", 3);
	if (!access(NO_BUILD_ID, X_OK))
		run_execs(NO_BUILD_ID, 2);
	if (!access(LOCKBENCH_KO, R_OK)) {
		run("insmod " LOCKBENCH_KO);
		run("rmmod ntkl_lockbench");
	}
}

NTKL_READER_FIXTURE(image_id);

TEST_F(image_id, every_image_has_its_build_id)
{
	struct ntkl_properties p, final = { .size = sizeof(final) };
	unsigned int i, unpaired = 0, matched = 0, none = 0, derived = 0, kinds[4] = { 0 };
	struct capture c = { 0 };
	struct view v = { 0 };

	v.img = calloc(MAX_IMAGES, sizeof(*v.img));
	ASSERT_NE(NULL, v.img);
	props_init(&p, LOGGER, EVENT_TRACE_FLAG_PROCESS | EVENT_TRACE_FLAG_IMAGE_LOAD);
	ASSERT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_START, &p));
	ASSERT_EQ(0, ntkl_bind_id(self->reader, p.logger_id));
	workload(NULL);
	ASSERT_EQ(0, ntkl_stop_name(self->ctl, LOGGER));
	ASSERT_EQ(0, capture_drain(self->reader, p.buffer_size_kb * 1024, &c, 0));
	ASSERT_EQ(0, ntkl_ctl(self->reader, NTKL_IOC_QUERY, &final));
	capture_patch(&c, &final);
	ASSERT_EQ(0, capture_walk(&c, view_record, &v, &v.verdict));
	/* the checker holds ntkl's files to it too (etl_check.c) */
	EXPECT_EQ(0, v.verdict.violations) TH_LOG("first: %s", v.verdict.first_violation);
	ASSERT_GT(v.n, 0);

	for (i = 0; i < v.n; i++) {
		const struct image *img = &v.img[i];
		const char *file = strrchr(img->name, '/');
		struct build_id want;
		char pdb[PATH_MAX + 8];

		if (!img->paired) {
			if (!unpaired++)
				TH_LOG("%s (0x%04x, pid %u) has no identity right before it",
				       img->name, img->hook, img->pid);
			continue;
		}
		kinds[!strncmp(img->name, "/boot/", 6) ? 0 : !strncmp(img->name, "/sys/module/", 12) ?
		      1 : !strcmp(img->name, "[vdso]") ? 2 : 3]++;
		if (!expected_build_id(img, &want)) {
			none++;
			EXPECT_FALSE(img->rsds) TH_LOG("%s: RSDS where Linux shows no build id",
						       img->name);
			continue;
		}
		EXPECT_TRUE(img->rsds) TH_LOG("%s: DbgID_NONE, but its build id is known",
					      img->name);
		if (!img->rsds)
			continue;
		snprintf(pdb, sizeof(pdb), "%s.pdb", file ? file + 1 : img->name);
		EXPECT_EQ(0, memcmp(img->guid, want.id, want.len < 16 ? want.len : 16))
			TH_LOG("%s: the GUID is not its build id's first 16 bytes", img->name);
		EXPECT_EQ(1, img->age);
		EXPECT_STREQ(pdb, img->pdb);
		matched++;
		derived += !strcmp(img->name, NO_BUILD_ID);
	}
	printf("# %u Image records: %u with their build id (kernel %u, modules %u, vDSO %u, files %u; %u of %s by size and mtime), %u with none known, %u without identity\n",
	       v.n, matched, kinds[0], kinds[1], kinds[2], kinds[3], derived, NO_BUILD_ID, none,
	       unpaired);
	fflush(stdout);
	EXPECT_EQ(0, unpaired);
	/* its Load at each exec, with the identity its inode gives */
	if (!access(NO_BUILD_ID, X_OK))
		EXPECT_GE(derived, 2) TH_LOG("%s: %u Image records with its size and mtime",
					      NO_BUILD_ID, derived);
	EXPECT_GT(kinds[0], 0);
	EXPECT_GT(kinds[1], 0);
	EXPECT_GT(kinds[3], 0);
	capture_free(&c);
	free(v.img);
}

TEST_HARNESS_MAIN
