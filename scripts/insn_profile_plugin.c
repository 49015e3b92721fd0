// SPDX-License-Identifier: GPL-2.0
/*
 * A qemu TCG plugin (qemu's plugin API, version 1, as Debian 12's qemu 7.2
 * has it) that counts the guest's instructions per translation block
 * between marks, for scripts/insn-profile.
 *
 * Every block gets an inline counter of its executions, keyed by its guest
 * address and length (one address can be translated at several lengths),
 * so a block's instructions are its length times its count: the same
 * count -icount makes guest time of, a rep-prefixed instruction once per
 * iteration. The guest marks a window by running insn-mark, whose one
 * instruction is a nopl with a displacement no compiler emits: the first
 * mark zeroes the counts, the next writes them to OUT.N (N = 0, 1, ...)
 * as "address length executions" lines, the next zeroes them again.
 *
 * The API's declarations are written here, from its documentation, as
 * Debian ships qemu without qemu-plugin.h.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;

enum { QEMU_PLUGIN_CB_NO_REGS = 0 };
enum { QEMU_PLUGIN_INLINE_ADD_U64 = 0 };

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   void (*cb)(qemu_plugin_id_t, struct qemu_plugin_tb *));
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb, int op, void *ptr,
					      uint64_t imm);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
					    void (*cb)(unsigned int, void *), int flags,
					    void *udata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, void (*cb)(qemu_plugin_id_t, void *),
				    void *udata);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

/* nopl 0x4e544b4c(%rax): "LKTN", see selftests/workloads/insn-mark.c */
static const unsigned char mark[] = { 0x0f, 0x1f, 0x80, 0x4c, 0x4b, 0x54, 0x4e };

struct block {
	uint64_t vaddr;
	uint64_t insns;		/* 0: a free slot */
	uint64_t execs;
};

#define SLOTS (1u << 21)	/* a booted guest translates about 100,000 blocks */
static struct block *blocks;
static const char *out = "insn-profile";
static int counting, windows;

static struct block *lookup(uint64_t vaddr, uint64_t insns)
{
	uint64_t i = (vaddr * 0x9E3779B97F4A7C15ull ^ insns) >> 43;

	for (;; i = (i + 1) & (SLOTS - 1)) {
		struct block *b = &blocks[i];

		if (!b->insns) {
			b->vaddr = vaddr;
			b->insns = insns;
			return b;
		}
		if (b->vaddr == vaddr && b->insns == insns)
			return b;
	}
}

static void save(void)
{
	char name[4096];
	FILE *f;
	uint64_t i;

	snprintf(name, sizeof(name), "%s.%d", out, windows++);
	f = fopen(name, "w");
	if (!f) {
		perror(name);
		return;
	}
	for (i = 0; i < SLOTS; i++)
		if (blocks[i].execs)
			fprintf(f, "%016llx %llu %llu\n", (unsigned long long)blocks[i].vaddr,
				(unsigned long long)blocks[i].insns,
				(unsigned long long)blocks[i].execs);
	fclose(f);
}

/* Single-threaded TCG (-icount) runs every vCPU on one host thread. */
static void on_mark(unsigned int vcpu, void *udata)
{
	uint64_t i;

	if (counting) {
		save();
	} else {
		for (i = 0; i < SLOTS; i++)
			blocks[i].execs = 0;
	}
	counting = !counting;
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);
	struct block *b = lookup(qemu_plugin_tb_vaddr(tb), n);

	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &b->execs, 1);
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

		if (qemu_plugin_insn_size(insn) == sizeof(mark) &&
		    !memcmp(qemu_plugin_insn_data(insn), mark, sizeof(mark)))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_mark,
							       QEMU_PLUGIN_CB_NO_REGS, NULL);
	}
}

/* A window the guest left open ends with the guest. */
static void on_qemu_exit(qemu_plugin_id_t id, void *udata)
{
	if (counting)
		save();
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const void *info, int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++)
		if (!strncmp(argv[i], "out=", 4))
			out = argv[i] + 4;
	blocks = calloc(SLOTS, sizeof(*blocks));
	if (!blocks)
		return -1;
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, on_qemu_exit, NULL);
	return 0;
}
