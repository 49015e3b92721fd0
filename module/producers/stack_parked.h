/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Parked user stacks: the user frames a thread had when it was switched
 * out, kept for the CSwitch that switches it back in. Between the two it
 * runs no user code, so they are its user stack then too, and that
 * CSwitch's New Thread Stack can be whole: its kernel frames, walked
 * from its saved context, and these user frames, which could not be
 * walked then (its address space is not the current one). Kernel frames
 * are parked likewise for a thread whose kernel stack cannot be walked at
 * its switch in (below).
 */
#ifndef _NTKL_STACK_PARKED_H
#define _NTKL_STACK_PARKED_H

#include <linux/types.h>

struct task_struct;
struct pt_regs;
struct ntkl_unwind_memo;

/* The user frames kept per thread; a deeper stack keeps its innermost. */
#define NTKL_PARKED_FRAMES	64

/* Process context: make the store, once (kept until unload); -ENOMEM. */
int ntkl_parked_prepare(void);
void ntkl_parked_free(void);

/*
 * At the switch that takes t (current) off its CPU: its user frames and
 * how their walk ended (enum ntkl_user_stop), and what that walk read
 * (memo: NULL or none kept where it was not by the tables).
 * Lock-free; a thread another CPU parks in the same slot at that moment
 * keeps its slot, and t is not parked.
 */
void ntkl_parked_put(const struct task_struct *t, const u64 *frames, u32 n, s8 stop,
		     const struct ntkl_unwind_memo *memo);

/*
 * At the switch that takes t (current) off its CPU, instead of a walk and
 * a put: are its parked frames its user stack again (ntkl_unwind_memo)?
 * Then they are parked for this switch too. Page faults disabled by the
 * caller; lock-free as put is.
 */
bool ntkl_parked_again(const struct task_struct *t, const struct pt_regs *regs);

/*
 * At the switch that brings t back: its parked frames (up to room) into
 * frames, their number; 0 if t was not parked at its last switch out.
 * *truncated: it had more than were kept or fit; *stop: how the walk
 * that parked them ended (enum ntkl_user_stop), as put gave it.
 */
u32 ntkl_parked_take(const struct task_struct *t, u64 *frames, u32 room, bool *truncated,
		     s8 *stop);

/*
 * Kernel frames parked, in a table of their own: at the switch that takes
 * t (current) off its CPU, its kernel frames, for the switch in that
 * cannot walk them (ntkl_stack_switch() says why); lock-free as put is.
 * Take gives them back at that switch in (up to room; *truncated: more
 * than were kept or fit), 0 if t did not park them at its last switch
 * out or other threads took its slots since.
 */
void ntkl_parked_put_kernel(const struct task_struct *t, const u64 *frames, u32 n);
u32 ntkl_parked_take_kernel(const struct task_struct *t, u64 *frames, u32 room, bool *truncated);

#endif /* _NTKL_STACK_PARKED_H */
