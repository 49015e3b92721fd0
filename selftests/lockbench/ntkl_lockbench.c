// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl_lockbench: a fixed number of contended spin lock acquisitions, so
 * that make bench can price what a recorder adds to one. Not part of ntkl:
 * the bench loads it in its test VM, nothing installs it.
 *
 * Writing N to /proc/ntkl_lockbench runs N rounds on CPUs 0, 1 and 2 and
 * returns when they are done; reading it tells the last run's rounds and
 * nanoseconds. In a round the holder (CPU 0) takes the lock and keeps it
 * until both waiters have said they are about to take it, and then for
 * HOLD_RELAXES more cpu_relax()es. Of the two waiters, the first to come
 * spins as qspinlock's "pending" waiter, which no tracepoint reports; the
 * second queues in the slow path, which lock:contention_begin/end report.
 * So each round is exactly one traced contention, whatever the timing.
 *
 * Between rounds, with the lock free, every thread offers its CPU
 * (cond_resched()): a long run on a slow guest (TCG on a busy host) would
 * otherwise keep three CPUs from scheduling long enough for the soft
 * lockup detector. It costs the same few instructions with and without a
 * recorder, so the bench's difference does not see it.
 */
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/kernel.h>
#include <linux/kstrtox.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/proc_fs.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>
#include <linux/timekeeping.h>

#define WAITERS		2
#define HOLD_RELAXES	200
#define MAX_ROUNDS	1000000

static DEFINE_SPINLOCK(bench_lock);
static DEFINE_MUTEX(run_lock);		/* one run at a time */

static unsigned int rounds;
static atomic_t round_open;		/* the round the holder has the lock for */
static atomic_t arrived;		/* waiters about to take the lock */
static atomic_t finished;		/* waiters done with this round */
static struct completion waiters_done;
static u64 last_rounds, last_ns;

static int waiter(void *unused)
{
	unsigned int r;

	for (r = 1; r <= rounds; r++) {
		while (atomic_read_acquire(&round_open) < r)
			cpu_relax();
		atomic_inc(&arrived);
		spin_lock(&bench_lock);
		spin_unlock(&bench_lock);
		atomic_inc(&finished);
		cond_resched();
	}
	complete(&waiters_done);
	return 0;
}

/* The holder: the writer's own thread, moved to CPU 0 for the run. */
static void hold_rounds(void)
{
	unsigned int r, i;

	for (r = 1; r <= rounds; r++) {
		atomic_set(&arrived, 0);
		atomic_set(&finished, 0);
		spin_lock(&bench_lock);
		atomic_set_release(&round_open, r);
		while (atomic_read(&arrived) < WAITERS)
			cpu_relax();
		for (i = 0; i < HOLD_RELAXES; i++)
			cpu_relax();
		spin_unlock(&bench_lock);
		while (atomic_read(&finished) < WAITERS)
			cpu_relax();
		cond_resched();
	}
}

static int run(unsigned int n)
{
	struct task_struct *t[WAITERS];
	cpumask_var_t saved;
	u64 start;
	int i, ret;

	if (!cpu_online(0) || !cpu_online(1) || !cpu_online(2))
		return -ENODEV;
	if (!alloc_cpumask_var(&saved, GFP_KERNEL))
		return -ENOMEM;
	cpumask_copy(saved, current->cpus_ptr);
	/* the holder must not share a CPU with a waiter it waits for */
	ret = set_cpus_allowed_ptr(current, cpumask_of(0));
	if (ret)
		goto out;
	rounds = n;
	atomic_set(&round_open, 0);
	init_completion(&waiters_done);
	for (i = 0; i < WAITERS; i++) {
		t[i] = kthread_create(waiter, NULL, "ntkl_lockbench/%d", i + 1);
		if (IS_ERR(t[i])) {
			ret = PTR_ERR(t[i]);
			while (i--)
				kthread_stop(t[i]);	/* never woken: never runs */
			goto out;
		}
		kthread_bind(t[i], i + 1);
	}
	start = ktime_get_ns();
	for (i = 0; i < WAITERS; i++)
		wake_up_process(t[i]);
	hold_rounds();
	for (i = 0; i < WAITERS; i++)
		wait_for_completion(&waiters_done);
	last_ns = ktime_get_ns() - start;
	last_rounds = n;
out:
	set_cpus_allowed_ptr(current, saved);
	free_cpumask_var(saved);
	return ret;
}

static ssize_t bench_write(struct file *file, const char __user *buf, size_t len,
			   loff_t *pos)
{
	unsigned int n;
	int ret;

	ret = kstrtouint_from_user(buf, len, 10, &n);
	if (ret)
		return ret;
	if (!n || n > MAX_ROUNDS)
		return -EINVAL;
	mutex_lock(&run_lock);
	ret = run(n);
	mutex_unlock(&run_lock);
	return ret ? ret : len;
}

static int bench_show(struct seq_file *m, void *v)
{
	mutex_lock(&run_lock);
	seq_printf(m, "rounds=%llu ns=%llu\n", last_rounds, last_ns);
	mutex_unlock(&run_lock);
	return 0;
}

static int bench_open(struct inode *inode, struct file *file)
{
	return single_open(file, bench_show, NULL);
}

static const struct proc_ops bench_ops = {
	.proc_open = bench_open,
	.proc_read = seq_read,
	.proc_write = bench_write,
	.proc_lseek = seq_lseek,
	.proc_release = single_release,
};

static struct proc_dir_entry *entry;

static int __init lockbench_init(void)
{
	entry = proc_create("ntkl_lockbench", 0600, NULL, &bench_ops);
	return entry ? 0 : -ENOMEM;
}

static void __exit lockbench_exit(void)
{
	proc_remove(entry);
}

module_init(lockbench_init);
module_exit(lockbench_exit);

MODULE_DESCRIPTION("ntkl make bench: a fixed number of contended spin lock acquisitions");
MODULE_AUTHOR("ntkl developers");
MODULE_LICENSE("GPL");
