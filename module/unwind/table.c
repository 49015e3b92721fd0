// SPDX-License-Identifier: GPL-2.0
/*
 * One table per file that processes map with code in it: the rows of its
 * .eh_frame (unwind/cfi.h) and where its code segments lie, read from the
 * file itself (the mapping's own struct file, with kernel_read()) by the
 * maps worker, in process context. A file mapped by many processes (libc)
 * has one table, found by its inode, which it pins while the table lives.
 * A file with no .eh_frame, another architecture's, or one whose table
 * would pass the memory bound (unwind_tables_mb) gets a table with no
 * rows, so that it is not read again: its frames go by frame pointer.
 *
 * A table no process maps any more is kept (while a logger walks by
 * tables) for the next process of the same file: a shell's commands, a
 * build's compilers, a test's runs start and end by the thousand, and
 * rebuilding libc's table costs each one some milliseconds. It is kept
 * while the file is as it was read (its ctime and size) and linked (an
 * unlinked file's blocks are not held), and until the memory bound needs
 * its room: tables are listed by last use, the least recently used
 * unmapped one goes first.
 *
 * Only the maps worker (maps.c) calls these, under its mutex: no lock of
 * their own. A walk reads a table's rows through a map published with
 * RCU, and a table is freed only after the maps that held it were
 * replaced and a grace period passed (maps.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/elf.h>
#include <linux/fs.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "unwind/cfi.h"
#include "unwind/unwind.h"

/* A file's executable PT_LOAD segments: text, and rarely a second. */
#define TABLE_SEGMENTS		4
/* .eh_frame sizes read: a large C++ program's is some tens of MiB */
#define EH_FRAME_MAX		(64U << 20)
#define SECTIONS_MAX		4096
#define SHSTRTAB_MAX		(64U << 10)

static unsigned int unwind_tables_mb = 256;
module_param(unwind_tables_mb, uint, 0644);
MODULE_PARM_DESC(unwind_tables_mb,
		 "Memory for user unwind tables, MiB (default 256; a file past it is walked by frame pointer)");

struct ntkl_unwind_table {
	struct list_head node;		/* in tables */
	struct inode *inode;		/* pinned (ihold) */
	struct timespec64 ctime;	/* the file's, as it was read */
	loff_t size;
	unsigned int users;		/* maps that hold it; 0: kept for the next */
	size_t bytes;			/* of rows and index */
	u32 n;				/* rows; 0: no unwind data */
	struct ntkl_cfi_row *rows;
	u32 *index;			/* of rows by code address (ntkl_cfi_index()) */
	unsigned int nsegs;
	struct {
		u64 offset, vaddr, filesz;
	} seg[TABLE_SEGMENTS];
};

static LIST_HEAD(tables);			/* by last use, the latest first */
static size_t tables_bytes;

static void table_free(struct ntkl_unwind_table *t)
{
	list_del(&t->node);
	tables_bytes -= t->bytes;
	iput(t->inode);
	kvfree(t->rows);
	kvfree(t->index);
	kfree(t);
}

/* Is t's file still the one it was read from? */
static bool table_current(const struct ntkl_unwind_table *t)
{
	struct timespec64 ctime = inode_get_ctime(t->inode);

	return t->inode->i_nlink && timespec64_equal(&ctime, &t->ctime) &&
	       i_size_read(t->inode) == t->size;
}

/* Free unmapped tables, least recently used first, until bytes more fit. */
static void tables_make_room(size_t bytes, size_t limit)
{
	struct ntkl_unwind_table *t, *prev;

	list_for_each_entry_safe_reverse(t, prev, &tables, node) {
		if (tables_bytes + bytes <= limit)
			return;
		if (!t->users)
			table_free(t);
	}
}

const struct ntkl_cfi_row *ntkl_unwind_table_row(const struct ntkl_unwind_table *t, u64 pc)
{
	return t->index ? ntkl_cfi_find_indexed(t->rows, t->n, t->index, pc) :
			  ntkl_cfi_find(t->rows, t->n, pc);
}

bool ntkl_unwind_table_vaddr(const struct ntkl_unwind_table *t, u64 file_off, u64 *vaddr)
{
	unsigned int i;

	for (i = 0; i < t->nsegs; i++) {
		if (file_off >= (t->seg[i].offset & PAGE_MASK) &&
		    file_off < t->seg[i].offset + t->seg[i].filesz) {
			*vaddr = file_off - t->seg[i].offset + t->seg[i].vaddr;
			return true;
		}
	}
	return false;
}

static int read_at(struct file *file, void *buf, size_t len, loff_t pos)
{
	ssize_t r = kernel_read(file, buf, len, &pos);

	return r == (ssize_t)len ? 0 : -EIO;
}

/* The executable segments of the ELF file whose header is eh. */
static int read_segments(struct file *file, const struct elf64_hdr *eh,
			 struct ntkl_unwind_table *t)
{
	struct elf64_phdr *ph;
	unsigned int i;
	int ret;

	if (eh->e_phentsize != sizeof(*ph) || !eh->e_phnum || eh->e_phnum > 256)
		return -ENOEXEC;
	ph = kmalloc_array(eh->e_phnum, sizeof(*ph), GFP_KERNEL);
	if (!ph)
		return -ENOMEM;
	ret = read_at(file, ph, eh->e_phnum * sizeof(*ph), eh->e_phoff);
	for (i = 0; !ret && i < eh->e_phnum && t->nsegs < TABLE_SEGMENTS; i++) {
		if (ph[i].p_type != PT_LOAD || !(ph[i].p_flags & PF_X))
			continue;
		t->seg[t->nsegs].offset = ph[i].p_offset;
		t->seg[t->nsegs].vaddr = ph[i].p_vaddr;
		t->seg[t->nsegs].filesz = ph[i].p_filesz;
		t->nsegs++;
	}
	kfree(ph);
	return ret;
}

/* Where the section named name is, by the section headers: false if none. */
static bool find_section(struct file *file, const struct elf64_hdr *eh, const char *name,
			 struct elf64_shdr *found)
{
	struct elf64_shdr *sh = NULL;
	size_t len = strlen(name) + 1;
	char *names = NULL;
	bool ok = false;
	unsigned int i;

	if (eh->e_shentsize != sizeof(*sh) || !eh->e_shnum || eh->e_shnum > SECTIONS_MAX ||
	    eh->e_shstrndx >= eh->e_shnum)
		return false;
	sh = kvmalloc_array(eh->e_shnum, sizeof(*sh), GFP_KERNEL);
	if (!sh || read_at(file, sh, eh->e_shnum * sizeof(*sh), eh->e_shoff))
		goto out;
	if (sh[eh->e_shstrndx].sh_size > SHSTRTAB_MAX)
		goto out;
	names = kvmalloc(sh[eh->e_shstrndx].sh_size + 1, GFP_KERNEL);
	if (!names || read_at(file, names, sh[eh->e_shstrndx].sh_size,
			      sh[eh->e_shstrndx].sh_offset))
		goto out;
	names[sh[eh->e_shstrndx].sh_size] = '\0';
	for (i = 0; i < eh->e_shnum && !ok; i++) {
		if (sh[i].sh_type != SHT_PROGBITS ||
		    sh[i].sh_name + len > sh[eh->e_shstrndx].sh_size + 1 ||
		    memcmp(names + sh[i].sh_name, name, len))
			continue;
		*found = sh[i];
		ok = true;
	}
out:
	kvfree(names);
	kvfree(sh);
	return ok;
}

/*
 * Compile a .eh_frame section into t's rows, in one pass where the guess
 * of their number holds (libc has a row per 8 bytes of it: room for one
 * per 4 is made; a second pass where it does not), sorted, then kept in an
 * array of their size with its index (unwind/cfi.h).
 */
static int table_compile(struct ntkl_unwind_table *t, const u8 *section, size_t size, u64 vaddr)
{
	struct ntkl_cfi_row *rows, *scratch;
	struct ntkl_cfi_stats stats;
	size_t room = size / 4 + 16, nindex, bytes;
	long n;

	rows = kvmalloc_array(room, sizeof(*rows), GFP_KERNEL);
	if (!rows)
		return -ENOMEM;
	n = ntkl_cfi_compile(section, size, vaddr, rows, room, &stats);
	if (n > (long)room) {
		kvfree(rows);
		room = n;
		rows = kvmalloc_array(room, sizeof(*rows), GFP_KERNEL);
		if (!rows)
			return -ENOMEM;
		n = ntkl_cfi_compile(section, size, vaddr, rows, room, &stats);
	}
	if (n <= 0) {
		kvfree(rows);
		return n ? n : -ENOENT;
	}
	/* sort into scratch's room, then keep an array of the rows left */
	scratch = kvmalloc_array(n, sizeof(*rows), GFP_KERNEL);
	if (!scratch) {
		kvfree(rows);
		return -ENOMEM;
	}
	n = ntkl_cfi_sort(rows, n, scratch);
	kvfree(scratch);
	/* rows scattered over far more code than they describe go unindexed */
	nindex = ntkl_cfi_index_size(rows, n);
	if (nindex > 4 * n + 64)
		nindex = 0;
	bytes = n * sizeof(*rows) + nindex * sizeof(*t->index);
	tables_make_room(bytes, (size_t)READ_ONCE(unwind_tables_mb) << 20);
	if (tables_bytes + bytes > (size_t)READ_ONCE(unwind_tables_mb) << 20) {
		kvfree(rows);
		return -ENOSPC;
	}
	t->rows = kvmalloc_array(n, sizeof(*rows), GFP_KERNEL);
	t->index = nindex ? kvmalloc_array(nindex, sizeof(*t->index), GFP_KERNEL) : NULL;
	if (!t->rows || (nindex && !t->index)) {
		kvfree(rows);
		return -ENOMEM;		/* the caller frees t's */
	}
	memcpy(t->rows, rows, n * sizeof(*rows));
	kvfree(rows);
	if (t->index)
		ntkl_cfi_index(t->rows, n, t->index);
	t->n = n;
	t->bytes = bytes;
	tables_bytes += t->bytes;
	return 0;
}

/* Read file's .eh_frame into t's rows; an error leaves t without rows. */
static int table_read(struct file *file, struct ntkl_unwind_table *t)
{
	struct elf64_shdr eh_frame;
	struct elf64_hdr eh;
	u8 *section;
	int ret;

	ret = read_at(file, &eh, sizeof(eh), 0);
	if (ret)
		return ret;
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_machine != EM_X86_64 ||
	    (eh.e_type != ET_EXEC && eh.e_type != ET_DYN))
		return -ENOEXEC;
	ret = read_segments(file, &eh, t);
	if (ret)
		return ret;
	if (!find_section(file, &eh, ".eh_frame", &eh_frame) || !eh_frame.sh_size ||
	    eh_frame.sh_size > EH_FRAME_MAX)
		return -ENOENT;
	section = kvmalloc(eh_frame.sh_size, GFP_KERNEL);
	if (!section)
		return -ENOMEM;
	ret = read_at(file, section, eh_frame.sh_size, eh_frame.sh_offset);
	if (ret)
		goto out;
	ret = table_compile(t, section, eh_frame.sh_size, eh_frame.sh_addr);
	if (ret == -ENOSPC)
		pr_info_ratelimited("unwind tables over unwind_tables_mb (%u MiB): %pD walked by frame pointer\n",
				    READ_ONCE(unwind_tables_mb), file);
out:
	kvfree(section);
	return ret;
}

struct ntkl_unwind_table *ntkl_unwind_table_get(struct file *file)
{
	struct inode *inode = file_inode(file);
	struct ntkl_unwind_table *t, *next;

	list_for_each_entry_safe(t, next, &tables, node) {
		if (!table_current(t)) {
			/* changed or unlinked since: no new user, and gone once unmapped */
			if (!t->users)
				table_free(t);
			continue;
		}
		if (t->inode == inode) {
			t->users++;
			list_move(&t->node, &tables);
			return t;
		}
	}
	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return NULL;
	/* before the read: a change while it reads makes the table stale, not wrong */
	t->ctime = inode_get_ctime(inode);
	t->size = i_size_read(inode);
	if (table_read(file, t)) {
		kvfree(t->rows);
		kvfree(t->index);
		t->rows = NULL;
		t->index = NULL;
		t->n = 0;
	}
	ihold(inode);
	t->inode = inode;
	t->users = 1;
	list_add(&t->node, &tables);
	return t;
}

void ntkl_unwind_table_put(struct ntkl_unwind_table *t)
{
	/* unmapped: kept for the next process of the file, if it is current */
	if (t && !--t->users && !table_current(t))
		table_free(t);
}

/* Every table, when no map holds any (maps.c, at disable and unload). */
void ntkl_unwind_tables_free(void)
{
	struct ntkl_unwind_table *t, *next;

	list_for_each_entry_safe(t, next, &tables, node) {
		WARN_ON_ONCE(t->users);
		table_free(t);
	}
}
