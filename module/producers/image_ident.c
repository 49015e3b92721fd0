// SPDX-License-Identifier: GPL-2.0
/*
 * Image identities (image_ident.h): the GNU build id of the code an Image
 * record describes, which names the PDB that ntkl symbols writes for it
 * (docs/linux-to-nt.md, "Image identities"). Taken when the record is
 * written, from the code as it is then, never from a file read later
 * that may have been replaced meanwhile:
 *  - the kernel: its notes, read once at load from /sys/kernel/notes;
 *  - a module: its notes lie in its read-only data, looked through at its
 *    Load and at each rundown (a few pages);
 *  - the vDSO: the ELF image the kernel maps for it;
 *  - a file a process maps: its ELF header, program headers and PT_NOTE
 *    segments, from the page cache only, since a probe cannot wait for a
 *    disk. The pages an executable or library was loaded from are almost
 *    always there; where one is not, the image gets DbgID_NONE. An ELF
 *    file without a build id gets the identity its inode gives, which
 *    ntkl symbols computes again from stat() (ntkl_etw.h,
 *    struct ntkl_derived_id).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/elf.h>
#include <linux/fs.h>
#include <linux/highmem.h>
#include <linux/pagemap.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "producers/image_ident.h"
#include "uapi/ntkl_etw.h"
#include "wrapper/compat.h"

/* A note's name, NUL included: 4 bytes, so its desc follows at once. */
#define GNU_NAME	"GNU"
#define NOTE_DESC_MAX	64	/* longer is no build id anyone writes */
#ifndef NT_GNU_BUILD_ID
#define NT_GNU_BUILD_ID	3	/* <elf.h>: a GNU note of type 3 */
#endif

static struct ntkl_build_id kernel_build_id;

/* A build id note at n, with len bytes from n readable: take it. */
static bool take_build_id(const struct elf64_note *n, size_t len, struct ntkl_build_id *bid)
{
	if (n->n_namesz != sizeof(GNU_NAME) || n->n_type != NT_GNU_BUILD_ID ||
	    !n->n_descsz || n->n_descsz > NOTE_DESC_MAX ||
	    sizeof(*n) + sizeof(GNU_NAME) + n->n_descsz > len ||
	    memcmp(n + 1, GNU_NAME, sizeof(GNU_NAME)))
		return false;
	bid->len = min_t(u32, n->n_descsz, NTKL_BUILD_ID_MAX);
	memcpy(bid->id, (const u8 *)(n + 1) + sizeof(GNU_NAME), bid->len);
	return true;
}

/* The build id among the notes of a PT_NOTE segment (len bytes at p). */
static bool notes_build_id(const u8 *p, size_t len, struct ntkl_build_id *bid)
{
	size_t off = 0;

	while (len - off >= sizeof(struct elf64_note)) {
		const struct elf64_note *n = (const void *)(p + off);
		size_t name = ALIGN((size_t)n->n_namesz, 4), desc = ALIGN((size_t)n->n_descsz, 4);

		if (take_build_id(n, len - off, bid))
			return true;
		if (name > len || desc > len || sizeof(*n) + name + desc > len - off)
			return false;
		off += sizeof(*n) + name + desc;
	}
	return false;
}

/*
 * A build id note in memory with no ELF headers at hand to say where (a
 * module's read-only data, the vDSO's image): notes are 4-byte aligned,
 * and a build id's header (name size 4, type 3, "GNU") is what nothing
 * else there looks like.
 */
static bool scan_build_id(const u8 *p, size_t len, struct ntkl_build_id *bid)
{
	size_t off;

	for (off = 0; len - off >= sizeof(struct elf64_note); off += 4)
		if (take_build_id((const void *)(p + off), len - off, bid))
			return true;
	return false;
}

/*
 * The kernel's notes are not exported to modules, but /sys/kernel/notes
 * shows them byte for byte. (Looking through the kernel's image for a
 * build id note finds the vDSOs' first: their ELF images lie in its data.)
 */
void ntkl_build_id_find_kernel(void)
{
	size_t room = PAGE_SIZE;
	struct file *f;
	loff_t pos = 0;
	ssize_t len;
	u8 *buf;

	f = filp_open("/sys/kernel/notes", O_RDONLY, 0);
	if (IS_ERR(f)) {
		pr_info("no /sys/kernel/notes (%ld): the kernel image gets DbgID_NONE\n",
			PTR_ERR(f));
		return;
	}
	buf = kmalloc(room, GFP_KERNEL);
	len = buf ? kernel_read(f, buf, room, &pos) : -ENOMEM;
	if (len > 0)
		notes_build_id(buf, len, &kernel_build_id);
	kfree(buf);
	filp_close(f, NULL);
}

const struct ntkl_build_id *ntkl_build_id_kernel(void)
{
	return &kernel_build_id;
}

void ntkl_build_id_module(const struct module *mod, struct ntkl_build_id *bid)
{
	unsigned long base, size;

	bid->len = 0;
	ntkl_module_rodata(mod, &base, &size);
	if (base && size)
		scan_build_id((const u8 *)base, size, bid);
}

void ntkl_build_id_vdso(const struct mm_struct *mm, struct ntkl_build_id *bid)
{
	size_t size = 0;
	const u8 *elf = ntkl_vdso_elf(mm, &size);

	bid->len = 0;
	if (elf)
		scan_build_id(elf, size, bid);
}

/*
 * Copy len bytes at off of a file from its page cache; false if a page is
 * not there (or not read in yet). Never sleeps.
 */
static bool read_cached(struct address_space *mapping, loff_t off, void *dst, size_t len)
{
	while (len) {
		size_t in = offset_in_page(off), n = min_t(size_t, len, PAGE_SIZE - in);
		struct page *page = find_get_page(mapping, off >> PAGE_SHIFT);
		bool ok;

		if (!page)
			return false;
		ok = PageUptodate(page);
		if (ok)
			memcpy_from_page(dst, page, in, n);
		put_page(page);
		if (!ok)
			return false;
		dst += n;
		off += n;
		len -= n;
	}
	return true;
}

/*
 * An ELF file that carries no build id: the identity its size and
 * modification time give (struct ntkl_derived_id), the same for every
 * capture until the file changes.
 */
static void derived_id(const struct inode *inode, struct ntkl_build_id *bid)
{
	struct timespec64 mtime = ntkl_inode_mtime(inode);
	struct ntkl_derived_id d = {
		.size = i_size_read(inode),
		.mtime_ns = timespec64_to_ns(&mtime),
	};

	BUILD_BUG_ON(sizeof(d) > sizeof(bid->id));
	memcpy(bid->id, &d, sizeof(d));
	bid->len = sizeof(d);
}

/* Room for a PT_NOTE's notes: build ids come first or second. */
#define NOTES_READ	256
#define PHDRS_MAX	64

void ntkl_build_id_file(struct file *file, struct ntkl_build_id *bid)
{
	struct address_space *mapping = file->f_mapping;
	u8 notes[NOTES_READ];
	struct elf64_hdr eh;
	struct elf64_phdr ph;
	unsigned int i;

	bid->len = 0;
	if (!read_cached(mapping, 0, &eh, sizeof(eh)) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh.e_phentsize != sizeof(ph) || eh.e_phnum > PHDRS_MAX)
		return;
	for (i = 0; i < eh.e_phnum; i++) {
		size_t len;

		if (!read_cached(mapping, eh.e_phoff + (u64)i * sizeof(ph), &ph, sizeof(ph)))
			return;
		if (ph.p_type != PT_NOTE)
			continue;
		len = min_t(u64, ph.p_filesz, sizeof(notes));
		if (!read_cached(mapping, ph.p_offset, notes, len))
			return;	/* a note not read: it may hold a build id */
		if (notes_build_id(notes, len, bid))
			return;
	}
	derived_id(file_inode(file), bid);
}
