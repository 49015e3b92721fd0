// SPDX-License-Identifier: GPL-2.0
/*
 * insn-mark: one instruction that scripts/insn-profile's qemu plugin
 * recognizes, to open or close a window of counted guest instructions. A
 * nopl does nothing on any x86 CPU; its displacement, "LKTN", is what no
 * compiler emits.
 */
int main(void)
{
#if defined(__x86_64__)
	__asm__ volatile (".byte 0x0f, 0x1f, 0x80, 0x4c, 0x4b, 0x54, 0x4e");
#endif
	return 0;
}
