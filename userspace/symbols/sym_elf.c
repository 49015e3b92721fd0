// SPDX-License-Identifier: GPL-2.0
/*
 * The functions of a user ELF file (64-bit, little-endian: x86-64), read
 * from the file's bytes with glibc's <elf.h>: every size and offset is
 * checked against the file before use, so a truncated or foreign file is
 * an error line, not a crash. See sym.h for what is read and in which
 * order; docs/symbols.md for why.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sym.h"

#define PAGE	4096u

struct elf {
	const uint8_t *data;
	size_t size;
	const char *name;
	Elf64_Ehdr eh;
};

/* Is [off, off + len) inside the file? */
static bool in_file(const struct elf *e, uint64_t off, uint64_t len)
{
	return off <= e->size && len <= e->size - off;
}

static int elf_open(struct elf *e, const void *data, size_t size, const char *name,
		    char *err, size_t err_size)
{
	e->data = data;
	e->size = size;
	e->name = name;
	if (size < sizeof(e->eh) || memcmp(data, ELFMAG, SELFMAG)) {
		snprintf(err, err_size, "%s: not an ELF file", name);
		return -1;
	}
	memcpy(&e->eh, data, sizeof(e->eh));
	if (e->eh.e_ident[EI_CLASS] != ELFCLASS64 || e->eh.e_ident[EI_DATA] != ELFDATA2LSB) {
		snprintf(err, err_size, "%s: not a 64-bit little-endian ELF file (ntkl names x86-64 code)",
			 name);
		return -1;
	}
	if ((e->eh.e_phnum && (e->eh.e_phentsize != sizeof(Elf64_Phdr) ||
			       !in_file(e, e->eh.e_phoff, (uint64_t)e->eh.e_phnum * sizeof(Elf64_Phdr)))) ||
	    (e->eh.e_shnum && (e->eh.e_shentsize != sizeof(Elf64_Shdr) ||
			       !in_file(e, e->eh.e_shoff, (uint64_t)e->eh.e_shnum * sizeof(Elf64_Shdr))))) {
		snprintf(err, err_size, "%s: its program or section headers lie past its end (a truncated file?)",
			 name);
		return -1;
	}
	return 0;
}

static Elf64_Phdr phdr(const struct elf *e, unsigned int i)
{
	Elf64_Phdr p;

	memcpy(&p, e->data + e->eh.e_phoff + (uint64_t)i * sizeof(p), sizeof(p));
	return p;
}

static Elf64_Shdr shdr(const struct elf *e, unsigned int i)
{
	Elf64_Shdr s;

	memcpy(&s, e->data + e->eh.e_shoff + (uint64_t)i * sizeof(s), sizeof(s));
	return s;
}

/* The build-id from the PT_NOTE segments, else the SHT_NOTE sections. */
static size_t elf_build_id(const struct elf *e, uint8_t id[SYM_BUILD_ID_MAX])
{
	size_t n;

	for (unsigned int i = 0; i < e->eh.e_phnum; i++) {
		Elf64_Phdr p = phdr(e, i);

		if (p.p_type == PT_NOTE && in_file(e, p.p_offset, p.p_filesz) &&
		    (n = sym_notes_build_id(e->data + p.p_offset, p.p_filesz, id)))
			return n;
	}
	/* a debug file's notes: its sections (its segments have no file bytes) */
	for (unsigned int i = 0; i < e->eh.e_shnum; i++) {
		Elf64_Shdr s = shdr(e, i);

		if (s.sh_type == SHT_NOTE && in_file(e, s.sh_offset, s.sh_size) &&
		    (n = sym_notes_build_id(e->data + s.sh_offset, s.sh_size, id)))
			return n;
	}
	return 0;
}

/* The executable PT_LOADs and where file offset 0 lies. */
static int elf_segments(const struct elf *e, struct sym_table *t, char *err, size_t err_size)
{
	bool first = true;

	t->nsegs = 0;
	for (unsigned int i = 0; i < e->eh.e_phnum; i++) {
		Elf64_Phdr p = phdr(e, i);

		if (p.p_type != PT_LOAD)
			continue;
		if (first) {
			/* the loader maps the first PT_LOAD's page from offset 0 */
			t->base = (p.p_vaddr - p.p_offset) & ~(uint64_t)(PAGE - 1);
			first = false;
		}
		if (!(p.p_flags & PF_X) || !p.p_memsz)
			continue;
		if (t->nsegs == SYM_MAX_SEGS) {
			snprintf(err, err_size, "%s: more than %d executable segments", e->name,
				 SYM_MAX_SEGS);
			return -1;
		}
		t->segs[t->nsegs++] = (struct sym_seg){ .addr = p.p_vaddr, .size = p.p_memsz };
	}
	if (first) {
		snprintf(err, err_size, "%s: no loadable segment (not an executable or shared object)",
			 e->name);
		return -1;
	}
	return 0;
}

/* The section of type type (SHT_SYMTAB, SHT_DYNSYM), or -1. */
static int find_section(const struct elf *e, uint32_t type)
{
	for (unsigned int i = 0; i < e->eh.e_shnum; i++)
		if (shdr(e, i).sh_type == type)
			return (int)i;
	return -1;
}

/*
 * Add the STT_FUNC symbols defined in section symtab, and the symbol at
 * the entry point whatever its type: hand-written startup code leaves its
 * _start untyped (ld.so's, musl's crt1), and it is where a process's
 * stacks begin (sym_start_routine()).
 */
static int elf_functions(const struct elf *e, int symtab, struct sym_table *t,
			 char *err, size_t err_size)
{
	Elf64_Shdr s = shdr(e, (unsigned int)symtab), str;
	uint64_t count;

	if (s.sh_link >= e->eh.e_shnum || s.sh_entsize != sizeof(Elf64_Sym) ||
	    s.sh_type == SHT_NOBITS || !in_file(e, s.sh_offset, s.sh_size)) {
		snprintf(err, err_size, "%s: its symbol table is malformed", e->name);
		return -1;
	}
	str = shdr(e, s.sh_link);
	if (!in_file(e, str.sh_offset, str.sh_size) || !str.sh_size ||
	    e->data[str.sh_offset + str.sh_size - 1]) {
		snprintf(err, err_size, "%s: its symbol names are malformed", e->name);
		return -1;
	}
	count = s.sh_size / sizeof(Elf64_Sym);
	for (uint64_t i = 1; i < count; i++) {
		Elf64_Sym sym;

		memcpy(&sym, e->data + s.sh_offset + i * sizeof(sym), sizeof(sym));
		/* the kernel's start, a bare symbol (vmlinux's base) */
		if (sym.st_name < str.sh_size && sym.st_shndx != SHN_UNDEF &&
		    !strcmp((const char *)e->data + str.sh_offset + sym.st_name, "_text"))
			t->text_addr = sym.st_value;
		if ((ELF64_ST_TYPE(sym.st_info) != STT_FUNC &&
		     (ELF64_ST_TYPE(sym.st_info) != STT_NOTYPE || sym.st_value != e->eh.e_entry)) ||
		    sym.st_shndx == SHN_UNDEF || !sym.st_value || sym.st_name >= str.sh_size)
			continue;
		if (sym_table_add(t, sym.st_value, sym.st_size,
				  (const char *)e->data + str.sh_offset + sym.st_name)) {
			snprintf(err, err_size, "out of memory reading %s", e->name);
			return -1;
		}
	}
	return 0;
}

/* The whole file, mapped read-only. */
static int map_file(const char *path, const void **data, size_t *size, char *err, size_t err_size)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st)) {
		snprintf(err, err_size, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -errno;
	}
	if (!S_ISREG(st.st_mode) || st.st_size == 0) {
		snprintf(err, err_size, "%s: not a regular ELF file", path);
		close(fd);
		return -EINVAL;
	}
	*size = (size_t)st.st_size;
	*data = mmap(NULL, *size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (*data == MAP_FAILED) {
		snprintf(err, err_size, "%s: cannot map it: %s", path, strerror(errno));
		return -errno;
	}
	return 0;
}

int sym_elf_build_id(const char *path, uint8_t id[SYM_BUILD_ID_MAX], char *err, size_t err_size)
{
	const void *data;
	size_t size;
	struct elf e;
	int ret = map_file(path, &data, &size, err, err_size);

	if (ret)
		return ret;
	ret = elf_open(&e, data, size, path, err, err_size) ? -1 : (int)elf_build_id(&e, id);
	munmap((void *)data, size);
	return ret;
}

/* The functions of the debug file with t's build-id, if it is there: 1, 0 none, -1 error. */
static int debug_file(const char *debug_root, struct sym_table *t, char *err, size_t err_size)
{
	char path[4096];
	int n = snprintf(path, sizeof(path), "%s/.build-id/%02x/",
			 debug_root ? debug_root : "/usr/lib/debug", t->build_id[0]);
	const void *data;
	size_t size;
	struct elf e;
	int sec, ret;

	for (size_t i = 1; i < t->build_id_len && n > 0 && (size_t)n < sizeof(path) - 8; i++)
		n += snprintf(path + n, sizeof(path) - (size_t)n, "%02x", t->build_id[i]);
	if (n <= 0 || (size_t)n >= sizeof(path) - 8)
		return 0;
	strcpy(path + n, ".debug");
	if (access(path, R_OK))
		return 0;
	if (map_file(path, &data, &size, err, err_size))
		return -1;
	ret = elf_open(&e, data, size, path, err, err_size);
	if (!ret && (sec = find_section(&e, SHT_SYMTAB)) >= 0) {
		ret = elf_functions(&e, sec, t, err, err_size) ? -1 : 1;
		snprintf(t->from, sizeof(t->from), "%s", path);
	}
	munmap((void *)data, size);
	return ret;
}

static int elf_read(const struct elf *e, const char *debug_root, struct sym_table *t,
		    char *err, size_t err_size)
{
	int sec, ret;

	t->build_id_len = elf_build_id(e, t->build_id);
	if (elf_segments(e, t, err, err_size))
		return -1;
	sec = find_section(e, SHT_SYMTAB);
	if (sec >= 0) {
		snprintf(t->from, sizeof(t->from), "%s .symtab", e->name);
		return elf_functions(e, sec, t, err, err_size);
	}
	/* stripped: a debug file names every function, .dynsym the exported ones */
	if (t->build_id_len && debug_root && (ret = debug_file(debug_root, t, err, err_size)))
		return ret < 0 ? -1 : 0;
	sec = find_section(e, SHT_DYNSYM);
	if (sec >= 0) {
		snprintf(t->from, sizeof(t->from), "%s .dynsym", e->name);
		return elf_functions(e, sec, t, err, err_size);
	}
	snprintf(t->from, sizeof(t->from), "%s (stripped, no debug file)", e->name);
	return 0;
}

int sym_elf_read_memory(const void *data, size_t size, const char *name,
			struct sym_table *t, char *err, size_t err_size)
{
	struct elf e;

	if (elf_open(&e, data, size, name, err, err_size))
		return -1;
	return elf_read(&e, NULL, t, err, err_size);
}

int sym_elf_read(const char *path, const char *debug_root, struct sym_table *t,
		 char *err, size_t err_size)
{
	const void *data;
	size_t size;
	struct elf e;
	int ret;

	if (map_file(path, &data, &size, err, err_size))
		return -1;
	ret = elf_open(&e, data, size, path, err, err_size);
	if (!ret)
		ret = elf_read(&e, debug_root ? debug_root : "/usr/lib/debug", t, err, err_size);
	munmap((void *)data, size);
	return ret;
}
