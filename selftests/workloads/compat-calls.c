// SPDX-License-Identifier: GPL-2.0
/*
 * compat-calls: system calls of the other two x86-64 ABIs, for
 * ntkl_syscall_test, built twice without a C library (no ia32 or x32
 * libc need be installed), CALLS ioctl(-1, 0, 0), each failing with
 * EBADF, then exit(0): as compat-calls-ia32 (gcc -m32) through int 0x80
 * (ia32's number 54), which the kernel runs as __ia32_compat_sys_ioctl; as
 * compat-calls-x32 (gcc -mx32) through syscall with __X32_SYSCALL_BIT set
 * (x32's own number 514), which it runs as __x64_compat_sys_ioctl. No
 * 64-bit task's call runs either (theirs is __x64_sys_ioctl), where
 * getppid's routine would be one address for all three ABIs.
 */
#define CALLS	1000

#if defined(__i386__)
static long call3(long nr, long a, long b, long c)
{
	long ret;

	__asm__ volatile("int $0x80" : "=a"(ret) : "a"(nr), "b"(a), "c"(b), "d"(c) : "memory");
	return ret;
}

static void leave(void)
{
	__asm__ volatile("int $0x80" : : "a"(1L), "b"(0L) : "memory");	/* exit(0) */
}

static void calls(void)
{
	for (int i = 0; i < CALLS; i++)
		call3(54, -1, 0, 0);				/* ioctl(-1, 0, 0) */
}
#elif defined(__x86_64__) && defined(__ILP32__)
#define X32_BIT	0x40000000L

static long call3(long nr, long a, long b, long c)
{
	long ret;

	__asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c)
			 : "rcx", "r11", "memory");
	return ret;
}

static void leave(void)
{
	call3(X32_BIT | 60, 0, 0, 0);				/* exit(0) */
}

static void calls(void)
{
	for (int i = 0; i < CALLS; i++)
		call3(X32_BIT | 514, -1, 0, 0);			/* ioctl(-1, 0, 0) */
}
#else
#error "compat-calls is built with -m32 or -mx32"
#endif

void _start(void);

void _start(void)
{
	calls();
	leave();
	for (;;)
		;
}
