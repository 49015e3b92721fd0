// SPDX-License-Identifier: GPL-2.0
/*
 * An image of a trace, loaded from this machine: its functions and its
 * build-id now, from the file, the kernel or its modules as sym_trace.h's
 * image names them (docs/symbols.md). Used by ntkl symbols and by dump
 * --stats's functions.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "sym_load.h"

enum sym_kind sym_kind_of(const struct sym_trace_image *img)
{
	if (!img->pid && !strncmp(img->path, "/boot/vmlinux-", 14))
		return SYM_KIND_KERNEL;
	if (!img->pid && !strncmp(img->path, "/sys/module/", 12))
		return SYM_KIND_MODULE;
	if (!strcmp(img->path, "[vdso]"))
		return SYM_KIND_VDSO;
	return SYM_KIND_FILE;
}

bool sym_is_windows_path(const char *p)
{
	return p[0] == '\\' || (p[0] && p[1] == ':');
}

const char *sym_base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

void sym_loader_free(struct sym_loader *ld)
{
	if (ld->ksyms_state > 0)
		sym_kallsyms_free(&ld->ksyms);
	ld->ksyms_state = 0;
}

/* The vDSO of this process: the same image every process of this kernel maps. */
static int vdso_image(const void **data, size_t *size)
{
	unsigned long start = getauxval(AT_SYSINFO_EHDR), lo, hi;
	char line[512];
	FILE *maps = fopen("/proc/self/maps", "re");
	int ret = -1;

	if (!start || !maps) {
		if (maps)
			fclose(maps);
		return -1;
	}
	while (fgets(line, sizeof(line), maps))
		if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && lo == start && strstr(line, "[vdso]")) {
			*data = (const void *)start;
			*size = hi - lo;
			ret = 0;
			break;
		}
	fclose(maps);
	return ret;
}

/*
 * An ELF file without a build id: the identity the module gave it from
 * its inode (struct ntkl_derived_id), again from stat() now.
 */
static int derived_id(const char *path, uint8_t id[SYM_BUILD_ID_MAX], char *why, size_t why_size)
{
	struct ntkl_derived_id d;
	struct stat st;

	if (stat(path, &st)) {
		snprintf(why, why_size, "%s: %s: WPA shows %s!0x... addresses", path, strerror(errno),
			 sym_base_name(path));
		return -1;
	}
	d.size = (uint64_t)st.st_size;
	d.mtime_ns = (uint64_t)st.st_mtim.tv_sec * 1000000000u + (uint64_t)st.st_mtim.tv_nsec;
	memcpy(id, &d, sizeof(d));
	return (int)sizeof(d);
}

int sym_load(struct sym_loader *ld, const struct sym_trace_image *img, struct sym_table *t,
	     uint8_t id[SYM_BUILD_ID_MAX], char *why, size_t why_size)
{
	char err[4400], path[4200];
	const char *name = NULL, *root = ld->debug_root ? ld->debug_root : "/usr/lib/debug";
	int n = 0;

	switch (sym_kind_of(img)) {
	case SYM_KIND_KERNEL: {
		struct utsname u;
		const char *release = img->path + 14;
		uint8_t vid[SYM_BUILD_ID_MAX];

		uname(&u);
		if (strcmp(release, u.release)) {
			snprintf(why, why_size, "the trace is of kernel %s, this machine runs %s: WPA shows "
				"vmlinux-%s!0x... addresses; run ntkl symbols on the traced machine, "
				"booted into %s", release, u.release, release, release);
			return -1;
		}
		n = sym_notes_file_build_id("/sys/kernel/notes", id);
		if (n < 0) {
			snprintf(why, why_size, "/sys/kernel/notes: %s: its build-id is unknown; run as root",
				strerror(-n));
			return -1;
		}
		/* a debug vmlinux has real function sizes: kallsyms has none */
		snprintf(path, sizeof(path), "%s/boot/vmlinux-%s", root, release);
		if (!access(path, R_OK) && sym_elf_build_id(path, vid, err, sizeof(err)) == n &&
		    !memcmp(vid, id, (size_t)n) && !sym_elf_read(path, NULL, t, err, sizeof(err)) &&
		    t->text_addr) {
			t->base = (t->text_addr & ~(uint64_t)4095) - NTKL_IMAGE_HEADER_SIZE;
			t->nsegs = 0;
			return n;
		}
		sym_table_free(t);
		name = NULL;
		break;
	}
	case SYM_KIND_MODULE:
		name = img->path + 12;
		snprintf(path, sizeof(path), "/sys/module/%s/notes/.note.gnu.build-id", name);
		n = sym_notes_file_build_id(path, id);
		if (n < 0) {
			snprintf(why, why_size, "module %s is not loaded now (%s): WPA shows %s!0x... "
				"addresses; modprobe %s and run ntkl symbols again", name,
				strerror(-n), name, name);
			return -1;
		}
		break;
	case SYM_KIND_VDSO: {
		const void *data;
		size_t size;

		if (vdso_image(&data, &size) ||
		    sym_elf_read_memory(data, size, "[vdso]", t, err, sizeof(err))) {
			snprintf(why, why_size, "this process has no vDSO to read: WPA shows [vdso]!0x... addresses");
			return -1;
		}
		memcpy(id, t->build_id, t->build_id_len);
		return (int)t->build_id_len;
	}
	case SYM_KIND_FILE:
		if (sym_elf_read(img->path, root, t, err, sizeof(err))) {
			if (access(img->path, F_OK))
				snprintf(why, why_size, "deleted since the trace was recorded: WPA shows %s!0x... "
					"addresses; run ntkl symbols before the file changes (right "
					"after the capture)", sym_base_name(img->path));
			else
				snprintf(why, why_size, "%s: WPA shows %s!0x... addresses", err,
					sym_base_name(img->path));
			return -1;
		}
		if (!t->build_id_len)
			return derived_id(img->path, id, why, why_size);
		memcpy(id, t->build_id, t->build_id_len);
		return (int)t->build_id_len;
	}
	/* the kernel from kallsyms (when no debug vmlinux), a module */
	if (!ld->ksyms_state) {
		ld->ksyms_state = sym_kallsyms_read(ld->kallsyms_path, &ld->ksyms, ld->ksyms_err,
						   sizeof(ld->ksyms_err)) ? -1 : 1;
	}
	if (ld->ksyms_state < 0) {
		snprintf(why, why_size, "%s; until then WPA shows %s!0x... addresses", ld->ksyms_err,
			sym_base_name(img->path));
		return -1;
	}
	if (sym_kallsyms_table(&ld->ksyms, name, t, err, sizeof(err))) {
		snprintf(why, why_size, "%s", err);
		return -1;
	}
	return n;
}


int sym_load_checked(struct sym_loader *ld, const struct sym_trace_image *img,
		     struct sym_table *t, uint8_t guid[16], char *why, size_t why_size)
{
	uint8_t id[SYM_BUILD_ID_MAX];
	int n;

	if (img->has_none) {
		snprintf(why, why_size, "the trace recorded no build-id for it (DbgID_NONE): WPA shows "
			 "%s!0x... addresses; link it with -Wl,--build-id", sym_base_name(img->path));
		return -1;
	}
	n = sym_load(ld, img, t, id, why, why_size);
	if (n < 0)
		return -1;
	if (n == 0) {
		snprintf(why, why_size, "it has no build-id, so no PDB can be matched to it: WPA shows "
			 "%s!0x... addresses; link it with -Wl,--build-id", sym_base_name(img->path));
		return -1;
	}
	/* the identity rule: the build-id's first 16 bytes, age 1 */
	memset(guid, 0, 16);
	memcpy(guid, id, n < 16 ? (size_t)n : 16);
	if (img->has_rsds && memcmp(guid, img->guid, 16)) {
		snprintf(why, why_size, "replaced since the trace was recorded (its %s differs "
			 "from the trace's): WPA shows %s!0x... addresses; run ntkl symbols before "
			 "the file changes (right after the capture)",
			 t->build_id_len || sym_kind_of(img) != SYM_KIND_FILE ? "build-id" :
			 "size or modification time (it has no build-id)", sym_base_name(img->path));
		return -1;
	}
	return 0;
}
