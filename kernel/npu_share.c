// SPDX-License-Identifier: GPL-2.0
/*
 * npu: sharing physical handles between processes.
 *
 * Exporting a handle gives it a random 64-bit name in one global table;
 * this table is the only place a handle is visible outside its context.
 * Another process on the same device imports it by name - if its pid is
 * on the exporter's list, or the exporter waived the check - and gets a
 * handle of its own to the same memory. A name that does not exist and a
 * name this process may not import answer the same, so names cannot be
 * probed. The name dies when the exporter frees its handle; the memory
 * lives until the last handle and mapping in any process are gone.
 */
#include <linux/hashtable.h>
#include <linux/mutex.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

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
 * @owner_tgid: the exporting process
 * @any_pid: NPU_SHARE_ANY_PID: anyone but the exporter may import
 * @npids: entries in @pids
 * @pids: processes that may import
 */
struct npu_share {
	struct hlist_node node;
	u64 key;
	struct npu_handle *handle;
	struct npu_context *owner;
	pid_t owner_tgid;
	bool any_pid;
	u32 npids;
	pid_t *pids;
};

/* Protects npu_shares, every share's pid list, and every handle's share. */
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

static bool npu_share_allows(struct npu_share *share, pid_t tgid)
{
	u32 i;

	if (share->any_pid)
		return true;
	for (i = 0; i < share->npids; i++)
		if (share->pids[i] == tgid)
			return true;
	return false;
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
	} else {
		share = NULL;
	}
	mutex_unlock(&npu_share_lock);
	if (!share)
		return;
	npu_handle_put(share->handle);
	kfree(share->pids);
	kfree(share);
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
	share->owner_tgid = task_tgid_nr(current);
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
		args->shareable = share->key;
	}
	mutex_unlock(&npu_share_lock);
	if (ret) {
		npu_handle_put(handle);
		kfree(share);
	}
	return ret;
}

int npu_share_set_pids_ioctl(struct npu_context *ctx, void *arg)
{
	struct npu_share_pids *args = arg;
	struct npu_share *share;
	pid_t *pids;
	u32 i;

	if (args->flags || args->__reserved || !args->count ||
	    args->count > NPU_SHARE_MAX_PIDS)
		return -EINVAL;
	pids = memdup_user(u64_to_user_ptr(args->pids),
			   array_size(args->count, sizeof(*pids)));
	if (IS_ERR(pids))
		return PTR_ERR(pids);
	for (i = 0; i < args->count; i++) {
		if (pids[i] <= 0) {
			kfree(pids);
			return -EINVAL;
		}
	}

	mutex_lock(&npu_share_lock);
	share = npu_share_find_locked(args->shareable);
	if (share && share->owner == ctx) {
		swap(share->pids, pids);
		share->npids = args->count;
	} else {
		share = NULL;
	}
	mutex_unlock(&npu_share_lock);
	kfree(pids);
	return share ? 0 : -ENOENT;
}

int npu_share_import_ioctl(struct npu_context *ctx, void *arg)
{
	struct npu_share_import *args = arg;
	pid_t tgid = task_tgid_nr(current);
	struct npu_handle *handle = NULL;
	struct npu_share *share;
	int ret = 0;

	if (args->flags || args->__reserved)
		return -EINVAL;
	mutex_lock(&npu_share_lock);
	share = npu_share_find_locked(args->shareable);
	if (!share)
		ret = -ENOENT;
	else if (share->owner_tgid == tgid)
		ret = -EINVAL;
	else if (!npu_share_allows(share, tgid))
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
