// SPDX-License-Identifier: GPL-2.0
/*
 * GNU build-ids in ELF notes: what identifies an image's exact build, and
 * so its PDB (the first 16 bytes are the PDB's GUID; docs/symbols.md).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "sym.h"

static uint32_t align4(uint32_t n)
{
	return (n + 3) & ~3u;
}

size_t sym_notes_build_id(const uint8_t *notes, size_t len, uint8_t id[SYM_BUILD_ID_MAX])
{
	size_t pos = 0;

	/* each note: namesz, descsz, type, the name, the descriptor; 4-aligned */
	while (len - pos >= sizeof(Elf64_Nhdr)) {
		Elf64_Nhdr nh;
		uint64_t name_at = pos + sizeof(nh), desc_at, next;

		memcpy(&nh, notes + pos, sizeof(nh));
		desc_at = name_at + align4(nh.n_namesz);
		next = desc_at + align4(nh.n_descsz);
		if (nh.n_namesz > len || nh.n_descsz > len || next > len)
			return 0;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp(notes + name_at, "GNU", 4) && nh.n_descsz > 0 &&
		    nh.n_descsz <= SYM_BUILD_ID_MAX) {
			memcpy(id, notes + desc_at, nh.n_descsz);
			return nh.n_descsz;
		}
		pos = next;
	}
	return 0;
}

int sym_notes_file_build_id(const char *path, uint8_t id[SYM_BUILD_ID_MAX])
{
	uint8_t buf[8192];
	size_t len = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	/* sysfs files: read to the end, they are small */
	while (len < sizeof(buf) && (n = read(fd, buf + len, sizeof(buf) - len)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			n = -errno;
			close(fd);
			return (int)n;
		}
		len += (size_t)n;
	}
	close(fd);
	return (int)sym_notes_build_id(buf, len, id);
}
