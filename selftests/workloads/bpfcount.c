// SPDX-License-Identifier: GPL-2.0
/*
 * bpfcount: make bench's BPF peer. It loads a raw tracepoint program that
 * adds one to a per-CPU counter, attaches it to sched_switch, prints
 * "ready", waits for SIGINT or SIGTERM, then prints one line:
 *
 *   bpfcount switches=N ctxt=M
 *
 * N: what the program counted (the per-CPU counters summed); M: the
 * /proc/stat ctxt delta over the same time, an independent count of the
 * same switches (close to N, not equal: the two are read at different
 * moments).
 *
 * The program is written as BPF instructions, so building it needs no
 * BPF compiler; libbpf's low-level API (bpf/bpf.h of libbpf-dev) creates
 * the map, loads the program and attaches it, linked statically like the
 * other workloads: the test VM has no C library.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "wl_util.h"

/* One BPF instruction (struct bpf_insn: code, dst:4, src:4, off, imm). */
#define INSN(c, d, s, o, i) \
	((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i) })
#define MOV64_IMM(d, i)		INSN(BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, i)
#define MOV64_REG(d, s)		INSN(BPF_ALU64 | BPF_MOV | BPF_X, d, s, 0, 0)
#define ADD64_IMM(d, i)		INSN(BPF_ALU64 | BPF_ADD | BPF_K, d, 0, 0, i)
#define ST_W_IMM(d, o, i)	INSN(BPF_ST | BPF_MEM | BPF_W, d, 0, o, i)
#define LDX_DW(d, s, o)		INSN(BPF_LDX | BPF_MEM | BPF_DW, d, s, o, 0)
#define STX_DW(d, s, o)		INSN(BPF_STX | BPF_MEM | BPF_DW, d, s, o, 0)
#define JEQ_IMM(d, i, o)	INSN(BPF_JMP | BPF_JEQ | BPF_K, d, 0, o, i)
#define CALL(f)			INSN(BPF_JMP | BPF_CALL, 0, 0, 0, f)
#define EXIT()			INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)
/* a map's fd into a register: a 64-bit immediate, two instructions */
#define LD_MAP_FD(d, fd) \
	INSN(BPF_LD | BPF_DW | BPF_IMM, d, BPF_PSEUDO_MAP_FD, 0, fd), INSN(0, 0, 0, 0, 0)

static void on_signal(int sig)
{
	(void)sig;
}

int main(void)
{
	char log[4096] = "";
	LIBBPF_OPTS(bpf_prog_load_opts, load, .log_buf = log, .log_size = sizeof(log),
		    .log_level = 1);
	uint64_t ctxt0, sum = 0;
	uint32_t key = 0;
	sigset_t stop;
	int map, prog, link, cpus, i, sig, ret;

	cpus = libbpf_num_possible_cpus();
	if (cpus <= 0 || cpus > 8192) {
		fprintf(stderr, "bpfcount: cannot read /sys/devices/system/cpu/possible\n");
		return 1;
	}
	uint64_t values[cpus];

	map = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "bpfcount", sizeof(key),
			     sizeof(uint64_t), 1, NULL);
	if (map < 0) {
		fprintf(stderr, "bpfcount: cannot create the counter map: %s (run as root, a kernel with CONFIG_BPF_SYSCALL)\n",
			strerror(-map));
		return 1;
	}

	/* counter[0] += 1 on this CPU; no atomics: a per-CPU slot, preemption off */
	struct bpf_insn insns[] = {
		ST_W_IMM(BPF_REG_10, -4, 0),		/* key = 0, on the stack */
		MOV64_REG(BPF_REG_2, BPF_REG_10),
		ADD64_IMM(BPF_REG_2, -4),		/* r2 = &key */
		LD_MAP_FD(BPF_REG_1, map),
		CALL(BPF_FUNC_map_lookup_elem),		/* r0 = this CPU's slot */
		JEQ_IMM(BPF_REG_0, 0, 3),		/* NULL: never, the verifier asks */
		LDX_DW(BPF_REG_1, BPF_REG_0, 0),
		ADD64_IMM(BPF_REG_1, 1),
		STX_DW(BPF_REG_0, BPF_REG_1, 0),
		MOV64_IMM(BPF_REG_0, 0),
		EXIT(),
	};

	prog = bpf_prog_load(BPF_PROG_TYPE_RAW_TRACEPOINT, "bpfcount", "GPL", insns,
			     sizeof(insns) / sizeof(insns[0]), &load);
	if (prog < 0) {
		fprintf(stderr, "bpfcount: the verifier refused the program: %s\n%s\n",
			strerror(-prog), log);
		return 1;
	}

	/* the signals stay pending for sigwait(), never ignored */
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigprocmask(SIG_BLOCK, &stop, NULL);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	link = bpf_raw_tracepoint_open("sched_switch", prog);
	if (link < 0) {
		fprintf(stderr, "bpfcount: cannot attach to sched_switch: %s\n", strerror(-link));
		return 1;
	}
	ctxt0 = wl_ctxt();
	printf("ready\n");
	fflush(stdout);

	sigwait(&stop, &sig);
	close(link);		/* detached: the counters stop */
	ctxt0 = wl_ctxt() - ctxt0;

	ret = bpf_map_lookup_elem(map, &key, values);
	if (ret < 0) {
		fprintf(stderr, "bpfcount: cannot read the counters: %s\n", strerror(-ret));
		return 1;
	}
	for (i = 0; i < cpus; i++)
		sum += values[i];
	printf("bpfcount switches=%lu ctxt=%lu\n", (unsigned long)sum, (unsigned long)ctxt0);
	return 0;
}
