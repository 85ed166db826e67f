/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tests/npu_cgroup.h - cgroup v2 files for the tests that check what the
 * driver charges to a memory cgroup (npu_vm_test, npu_model_test).
 */
#ifndef NPU_TEST_CGROUP_H
#define NPU_TEST_CGROUP_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/stat.h>

#include "npu_util.h"

#define CGROOT	"/sys/fs/cgroup"

static inline int cg_write(const char *dir, const char *file, const char *val)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return npu_write_file(path, val);
}

/* @key's value in a flat-keyed cgroup file, a plain number's if !@key; -1 if none. */
static inline long long cg_read(const char *dir, const char *file, const char *key)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return npu_file_value_at(AT_FDCWD, path, key, ' ');
}

/*
 * How far memory.current may stand from what is really charged, in bytes.
 * memory.current is the page counter (memory_current_read()), and the
 * counter holds, besides the charged pages, the per-CPU precharge of
 * try_charge_memcg(): a charge of fewer than MEMCG_CHARGE_BATCH (64) pages
 * takes a whole batch and leaves the rest in the CPU's stock, which
 * __refill_stock() drains only when it passes the batch, another memcg
 * takes the CPU's stock, or drain_all_stock() runs (on hitting the limit).
 * So each CPU's stock holds 0 to 64 pages of this memcg at any moment, and
 * the slab charges add each CPU's byte-granular object stock (below
 * sizeof(object) + PAGE_SIZE, refill_obj_stock()) and the objcg's flushed
 * leftover (nr_charged_bytes, under a page per CPU that flushed it). Both
 * 6.1 and 6.12 work so (MEMCG_CHARGE_BATCH is 64 in both). A 2 MiB device
 * page itself is charged exactly: 512 pages is more than a batch, so it
 * neither comes from nor leaves anything in a stock. memory.stat is no
 * better: mem_cgroup_flush_stats() skips the flush until
 * MEMCG_CHARGE_BATCH * nr_cpus updates are pending.
 *
 * Every reading is then (charged) + [0, slack], and a difference of two
 * readings is off by at most the slack either way.
 */
static inline long long memcg_slack(void)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);

	return (ncpu > 0 ? ncpu : 64) * (64 + 3) * (long long)SZ_4K;
}

/*
 * memory.current less the cgroup's file pages, which reclaim may take
 * back at any moment (a debug kernel's guest runs short of memory): what
 * the cgroup holds for good. memory.stat's figure lags by up to a slack,
 * so a difference of two readings is off by at most twice the slack.
 */
static inline long long cg_current_unfiled(const char *cg)
{
	long long cur = cg_read(cg, "memory.current", NULL);
	long long file = cg_read(cg, "memory.stat", "file");

	return cur < 0 || file < 0 ? -1 : cur - file;
}

/*
 * Move the calling process into a new memory cgroup of its own, named
 * @prefix-PID, its path into @cg: 0, 1 if the system has no cgroup2
 * memory controller (the caller skips), or -errno.
 */
static inline int cg_enter_own(char *cg, size_t size, const char *prefix)
{
	char num[32];

	if (access(CGROOT "/cgroup.controllers", F_OK) ||
	    cg_write(CGROOT, "cgroup.subtree_control", "+memory"))
		return 1;
	snprintf(cg, size, CGROOT "/%s-%d", prefix, getpid());
	snprintf(num, sizeof(num), "%d", getpid());
	if (mkdir(cg, 0755))
		return -errno;
	return cg_write(cg, "cgroup.procs", num);
}

/* Back to the root cgroup, and @cg removed: 0 or -errno. */
static inline int cg_leave(const char *cg)
{
	char num[32];
	int ret;

	snprintf(num, sizeof(num), "%d", getpid());
	ret = cg_write(CGROOT, "cgroup.procs", num);
	if (!ret && rmdir(cg))
		ret = -errno;
	return ret;
}

#endif /* NPU_TEST_CGROUP_H */
