// SPDX-License-Identifier: GPL-2.0
/*
 * npu: sharing physical handles between processes.
 *
 * Exporting a handle gives it a random 64-bit name in one global table;
 * this table is the only place a handle is visible outside its context.
 * Another process on the same device imports it by name - if it is on the
 * exporter's list, or the exporter waived the list - and gets a handle of
 * its own to the same memory. The list holds processes (struct pid of
 * their thread groups), resolved in the exporter's pid namespace when it
 * sets them: a process that exits stays listed, and whoever gets its
 * number next is another struct pid, so it does not match. The importer
 * must also run with the exporter's effective uid, unless the exporter
 * was privileged (CAP_SYS_ADMIN) when it exported. A name that does not
 * exist and a name this process may not import answer the same, so names
 * cannot be probed. The name dies when the exporter frees its handle; the
 * memory lives until the last handle and mapping in any process are gone.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/hashtable.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/user_namespace.h>

#include <uapi/npu.h>

#include "npu_devmem.h"
#include "npu_drv.h"
#include "npu_share.h"

/**
 * struct npu_share - an exported handle
 * @node: in npu_shares
 * @key: its name
 * @handle: the memory (holds a reference)
 * @owner: the exporting context
 * @owner_tgid: the exporting process (holds a reference)
 * @owner_euid: the exporter's effective uid at export
 * @privileged: the exporter had CAP_SYS_ADMIN at export: any euid imports
 * @any_pid: NPU_SHARE_ANY_PID: any process but the exporter may import
 * @npids: entries in @pids
 * @pids: processes that may import (each holds a reference)
 *
 * All but @node, @npids and @pids are set before the share is in
 * npu_shares and never change.
 */
struct npu_share {
	struct hlist_node node;
	u64 key;
	struct npu_handle *handle;
	struct npu_context *owner;
	struct pid *owner_tgid;
	kuid_t owner_euid;
	bool privileged;
	bool any_pid;
	u32 npids;
	struct pid **pids;
};

/*
 * Protects npu_shares, every share's @node, @npids and @pids, and every
 * handle's share.
 */
static DEFINE_MUTEX(npu_share_lock);
static DEFINE_HASHTABLE(npu_shares, 8);

static struct npu_share *npu_share_find_locked(u64 key)
{
	struct npu_share *share;

	lockdep_assert_held(&npu_share_lock);
	hash_for_each_possible(npu_shares, share, node, key)
		if (share->key == key)
			return share;
	return NULL;
}

/* May the current process import @share? (Not asked of the exporter.) */
static bool npu_share_allows_locked(struct npu_share *share)
{
	struct pid *tgid = task_tgid(current);
	u32 i;

	lockdep_assert_held(&npu_share_lock);
	if (!share->privileged && !uid_eq(share->owner_euid, current_euid()))
		return false;
	if (share->any_pid)
		return true;
	for (i = 0; i < share->npids; i++)
		if (share->pids[i] == tgid)
			return true;
	return false;
}

static void npu_share_put_pids(struct pid **pids, u32 npids)
{
	u32 i;

	for (i = 0; i < npids; i++)
		put_pid(pids[i]);
	kfree(pids);
}

/* A share that is not (or no longer) in npu_shares. */
static void npu_share_free(struct npu_share *share)
{
	npu_handle_put(share->handle);
	npu_share_put_pids(share->pids, share->npids);
	put_pid(share->owner_tgid);
	kfree(share);
}

/* The exporter lets go of @handle: its name goes with it. */
void npu_share_revoke(struct npu_context *ctx, struct npu_handle *handle)
{
	struct npu_share *share;

	mutex_lock(&npu_share_lock);
	share = handle->share;
	if (share && share->owner == ctx) {
		hash_del(&share->node);
		handle->share = NULL;
		atomic_long_dec(&ctx->nr_exported);
	} else {
		share = NULL;
	}
	mutex_unlock(&npu_share_lock);
	if (share)
		npu_share_free(share);
}

int npu_share_export_ioctl(struct npu_context *ctx, void *arg)
{
	struct npu_share_export *args = arg;
	struct npu_handle *handle;
	struct npu_share *share;
	int ret = 0;

	if (args->flags & ~NPU_SHARE_ANY_PID || args->__reserved)
		return -EINVAL;
	share = kzalloc(sizeof(*share), GFP_KERNEL_ACCOUNT);
	if (!share)
		return -ENOMEM;
	handle = npu_handle_lookup(ctx, args->handle);
	if (!handle) {
		kfree(share);
		return -ENOENT;
	}
	/* Only the allocating process names its memory. */
	if (xa_get_mark(&ctx->handles, args->handle, NPU_HANDLE_IMPORTED)) {
		npu_handle_put(handle);
		kfree(share);
		return -EINVAL;
	}
	share->handle = handle;
	share->owner = ctx;
	share->owner_tgid = get_pid(task_tgid(current));
	share->owner_euid = current_euid();
	/* a question, not a permission: no audit record when the answer is no */
	share->privileged = ns_capable_noaudit(&init_user_ns, CAP_SYS_ADMIN);
	share->any_pid = args->flags & NPU_SHARE_ANY_PID;

	mutex_lock(&npu_share_lock);
	if (xa_load(&ctx->handles, args->handle) != handle) {
		ret = -ENOENT;	/* freed meanwhile: revoke has run already */
	} else if (handle->share) {
		ret = -EBUSY;
	} else {
		do
			share->key = get_random_u64();
		while (!share->key || npu_share_find_locked(share->key));
		hash_add(npu_shares, &share->node, share->key);
		handle->share = share;
		atomic_long_inc(&ctx->nr_exported);
		args->shareable = share->key;
	}
	mutex_unlock(&npu_share_lock);
	if (ret)
		npu_share_free(share);
	return ret;
}

/*
 * The processes @nrs name in the caller's pid namespace, each with a
 * reference, into @pids: 0, or -ESRCH (and no references) if a number
 * names no process - nothing, or a thread that is not its group's leader.
 */
static int npu_share_resolve_pids(const pid_t *nrs, u32 count,
				  struct pid **pids)
{
	struct pid *pid;
	u32 i;

	/* find_vpid() needs RCU; the references keep the pids after it */
	rcu_read_lock();
	for (i = 0; i < count; i++) {
		pid = find_vpid(nrs[i]);
		if (!pid || !pid_has_task(pid, PIDTYPE_TGID))
			break;
		pids[i] = get_pid(pid);
	}
	rcu_read_unlock();
	if (i == count)
		return 0;
	while (i--)
		put_pid(pids[i]);
	return -ESRCH;
}

int npu_share_set_pids_ioctl(struct npu_context *ctx, void *arg)
{
	struct npu_share_pids *args = arg;
	u32 i, npids = args->count;
	struct npu_share *share;
	struct pid **pids;
	pid_t *nrs;
	int ret;

	if (args->flags || args->__reserved || !args->count ||
	    args->count > NPU_SHARE_MAX_PIDS)
		return -EINVAL;
	nrs = memdup_user(u64_to_user_ptr(args->pids),
			  array_size(args->count, sizeof(*nrs)));
	if (IS_ERR(nrs))
		return PTR_ERR(nrs);
	for (i = 0; i < args->count; i++) {
		if (nrs[i] <= 0) {
			kfree(nrs);
			return -EINVAL;
		}
	}
	pids = kcalloc(args->count, sizeof(*pids), GFP_KERNEL_ACCOUNT);
	if (!pids) {
		kfree(nrs);
		return -ENOMEM;
	}
	ret = npu_share_resolve_pids(nrs, args->count, pids);
	kfree(nrs);
	if (ret) {
		kfree(pids);
		return ret;
	}

	mutex_lock(&npu_share_lock);
	share = npu_share_find_locked(args->shareable);
	if (share && share->owner == ctx) {
		swap(share->pids, pids);
		swap(share->npids, npids);
	} else {
		ret = -ENOENT;
	}
	mutex_unlock(&npu_share_lock);
	/* the old list, or the new one that found no share */
	npu_share_put_pids(pids, npids);
	return ret;
}

int npu_share_import_ioctl(struct npu_context *ctx, void *arg)
{
	struct npu_share_import *args = arg;
	struct npu_handle *handle = NULL;
	struct npu_share *share;
	int ret = 0;

	if (args->flags || args->__reserved)
		return -EINVAL;
	mutex_lock(&npu_share_lock);
	share = npu_share_find_locked(args->shareable);
	if (!share)
		ret = -ENOENT;
	else if (share->owner_tgid == task_tgid(current))
		ret = -EINVAL;
	else if (!npu_share_allows_locked(share))
		ret = -ENOENT;
	else if (share->handle->mem != ctx->npu->mem)
		ret = -ENODEV;
	else
		handle = share->handle;
	if (handle)
		kref_get(&handle->ref);
	mutex_unlock(&npu_share_lock);
	if (ret)
		return ret;

	args->length = handle->size;
	args->page_size = handle->page_size;
	return npu_handle_install(ctx, handle, &args->handle, true);
}
