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
 *
 * IPC memory uses the same table: an IPC key names a page-aligned range of
 * a mapping of memory the context allocated, and an import gets a slice
 * handle, a window of that memory (npu_handle_slice()). A process holds at
 * most one import of a key at a time. The key dies when the exporter
 * destroys it, unmaps the mapping (frees the memory), or closes; then, as
 * on the vendor's device, its importers lose the pages: their mappings
 * stay, but every later device access through them faults. The slices
 * keep the memory itself until they go, so that the pages are never
 * reused under an access that translated them just before.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/hashtable.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/user_namespace.h>

#include <uapi/npu.h>

#include "npu_devmem.h"
#include "npu_drv.h"
#include "npu_share.h"
#include "npu_vm.h"

static unsigned int max_ipc_keys = 4096;
module_param(max_ipc_keys, uint, 0644);
MODULE_PARM_DESC(max_ipc_keys, "IPC_EXPORT keys per context (default 4096)");

/**
 * struct npu_ipc_life - whether an IPC key still grants its pages
 * @ref: held by the key and by each of its imports
 * @revoked: the key died: its importers' accesses fault (set once)
 * @imports: its imports (struct npu_ipc_import), one per process at most
 */
struct npu_ipc_life {
	refcount_t ref;
	bool revoked;
	struct list_head imports;
};

/**
 * struct npu_ipc_import - one process's import of an IPC key
 * @link: in the key's @imports
 * @tgid: the importing process (a reference)
 * @life: the key's (a reference)
 */
struct npu_ipc_import {
	struct list_head link;
	struct pid *tgid;
	struct npu_ipc_life *life;
};

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
 * @ipc: an IPC_EXPORT key, naming [@offset, @offset + @length) of @handle
 * @offset: start of an IPC key's range in @handle
 * @length: bytes of an IPC key's range
 * @map: the exporter's mapping an IPC key's range was named in: unmapping
 *	it revokes the key (only compared, never dereferenced)
 * @life: an IPC key's life, revoked when the share is freed
 * @published: its export answered: imports, SET_PIDS and IPC_DESTROY find
 *	it. Until then the name is in npu_shares only so that no other
 *	share takes it (reserve, respond, publish: a name exists only once
 *	its exporter knows it).
 * @dead: revoked before it was published: the export's end frees it
 *
 * All but @node, @npids, @pids, @published and @dead are set before the
 * share is in npu_shares and never change.
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
	bool ipc;
	u64 offset;
	u64 length;
	const struct npu_mapping *map;
	struct npu_ipc_life *life;
	bool published;
	bool dead;
};

/*
 * Protects npu_shares, every share's @node, @npids, @pids, @published and
 * @dead, every handle's share, and every IPC life's @imports.
 */
static DEFINE_MUTEX(npu_share_lock);
static DEFINE_HASHTABLE(npu_shares, 8);

/* The share named @key, published or (@any) not yet. */
static struct npu_share *npu_share_lookup_locked(u64 key, bool any)
{
	struct npu_share *share;

	lockdep_assert_held(&npu_share_lock);
	hash_for_each_possible(npu_shares, share, node, key)
		if (share->key == key)
			return any || share->published ? share : NULL;
	return NULL;
}

static struct npu_share *npu_share_find_locked(u64 key)
{
	return npu_share_lookup_locked(key, false);
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

static void npu_ipc_life_put(struct npu_ipc_life *life)
{
	if (refcount_dec_and_test(&life->ref))
		kfree(life);
}

/*
 * Has the exporter revoked the IPC key @slice was imported from? Asked by
 * the MMU for every access through a revocable entry (NPU_PT_REVOCABLE).
 */
bool npu_ipc_revoked(const struct npu_handle *slice)
{
	return slice->ipc && READ_ONCE(slice->ipc->life->revoked);
}

/* The slice of an IPC import is freed: the process may import it again. */
void npu_ipc_import_release(struct npu_ipc_import *import)
{
	mutex_lock(&npu_share_lock);
	list_del(&import->link);
	mutex_unlock(&npu_share_lock);
	npu_ipc_life_put(import->life);
	put_pid(import->tgid);
	kfree(import);
}

/* A share that is not (or no longer) in npu_shares. */
static void npu_share_free(struct npu_share *share)
{
	if (share->life) {
		bool imported;

		/* from now on every access through an import faults */
		WRITE_ONCE(share->life->revoked, true);
		/* unpublished: no import comes any more */
		mutex_lock(&npu_share_lock);
		imported = !list_empty(&share->life->imports);
		mutex_unlock(&npu_share_lock);
		/* and no aperture maps an imported page (DOC: npu aperture) */
		if (imported)
			npu_vm_cpu_zap_all();
		npu_ipc_life_put(share->life);
	}
	if (share->handle)
		npu_handle_put(share->handle);
	npu_share_put_pids(share->pids, share->npids);
	put_pid(share->owner_tgid);
	kfree(share);
}

/* Take @share out of the table and its exporter's counts. */
static void npu_share_unpublish_locked(struct npu_share *share)
{
	lockdep_assert_held(&npu_share_lock);
	hash_del(&share->node);
	atomic_long_dec(&share->owner->nr_exported);
	if (share->ipc)
		atomic_long_dec(&share->owner->nr_ipc_keys);
	else
		share->handle->share = NULL;
}

/*
 * Give @share a fresh random name in the table, not published yet: the
 * export answers with it, then npu_share_export_finish() publishes it.
 */
static void npu_share_reserve_locked(struct npu_share *share)
{
	lockdep_assert_held(&npu_share_lock);
	do
		share->key = get_random_u64();
	while (!share->key || npu_share_lookup_locked(share->key, true));
	hash_add(npu_shares, &share->node, share->key);
	atomic_long_inc(&share->owner->nr_exported);
}

/*
 * Revoke @share: true if it left the table (the caller frees it); a share
 * not yet published stays until its export's end frees it.
 */
static bool npu_share_kill_locked(struct npu_share *share)
{
	lockdep_assert_held(&npu_share_lock);
	if (!share->published) {
		share->dead = true;
		return false;
	}
	npu_share_unpublish_locked(share);
	return true;
}

/* The exporter lets go of @handle: its name goes with it. */
void npu_share_revoke(struct npu_context *ctx, struct npu_handle *handle)
{
	struct npu_share *share;

	mutex_lock(&npu_share_lock);
	share = handle->share;
	if (!share || share->owner != ctx || !npu_share_kill_locked(share))
		share = NULL;
	mutex_unlock(&npu_share_lock);
	if (share)
		npu_share_free(share);
}

/*
 * After SHARE_EXPORT or IPC_EXPORT copied its answer out (@ret 0) or failed
 * to (-EFAULT): the name is published now, or goes, as does one revoked
 * meanwhile.
 */
void npu_share_export_finish(struct npu_context *ctx, void *arg, int ret)
{
	struct npu_share *share = ((struct npu_share_export_args *)arg)->share;
	bool drop;

	mutex_lock(&npu_share_lock);
	drop = ret || share->dead;
	if (drop)
		npu_share_unpublish_locked(share);
	else
		share->published = true;
	mutex_unlock(&npu_share_lock);
	if (drop)
		npu_share_free(share);
}

/* Revoke @ctx's IPC keys named in @map, or all of them if @map is NULL. */
static void npu_ipc_revoke(struct npu_context *ctx,
			   const struct npu_mapping *map)
{
	struct npu_share *share;
	struct hlist_node *tmp;
	HLIST_HEAD(dead);
	int bkt;

	mutex_lock(&npu_share_lock);
	hash_for_each_safe(npu_shares, bkt, tmp, share, node) {
		if (!share->ipc || share->owner != ctx ||
		    (map && share->map != map))
			continue;
		if (npu_share_kill_locked(share))
			hlist_add_head(&share->node, &dead);
	}
	mutex_unlock(&npu_share_lock);
	hlist_for_each_entry_safe(share, tmp, &dead, node) {
		hlist_del(&share->node);
		npu_share_free(share);
	}
}

/*
 * @map of @ctx is being unmapped (and not yet freed): the keys of its
 * memory go. Most contexts export nothing: no walk for them.
 */
void npu_ipc_revoke_mapping(struct npu_context *ctx,
			    const struct npu_mapping *map)
{
	if (atomic_long_read(&ctx->nr_ipc_keys))
		npu_ipc_revoke(ctx, map);
}

/* The context closes: its IPC keys go (its handles' names go with them). */
void npu_share_release(struct npu_context *ctx)
{
	npu_ipc_revoke_mapping(ctx, NULL);
}

/* A share of the current process, exported from @ctx, not yet published. */
static struct npu_share *npu_share_create(struct npu_context *ctx, u32 flags)
{
	struct npu_share *share = kzalloc(sizeof(*share), GFP_KERNEL_ACCOUNT);

	if (!share)
		return NULL;
	share->owner = ctx;
	share->owner_tgid = get_pid(task_tgid(current));
	share->owner_euid = current_euid();
	/* a question, not a permission: no audit record when the answer is no */
	share->privileged = ns_capable_noaudit(&init_user_ns, CAP_SYS_ADMIN);
	share->any_pid = flags & NPU_SHARE_ANY_PID;
	return share;
}

int npu_share_export_ioctl(struct npu_context *ctx, void *arg)
{
	struct npu_share_export_args *a = arg;
	struct npu_share_export *args = &a->uapi;
	struct npu_handle *handle;
	struct npu_share *share;
	bool imported;
	int ret = 0;

	if (args->flags & ~NPU_SHARE_ANY_PID || args->__reserved)
		return -EINVAL;
	handle = npu_handle_lookup(ctx, args->handle, &imported);
	if (!handle)
		return -ENOENT;
	/* Only the allocating process names its memory. */
	if (imported) {
		npu_handle_put(handle);
		return -EINVAL;
	}
	share = npu_share_create(ctx, args->flags);
	if (!share) {
		npu_handle_put(handle);
		return -ENOMEM;
	}
	share->handle = handle;

	mutex_lock(&npu_share_lock);
	if (!npu_handle_is(ctx, args->handle, handle)) {
		ret = -ENOENT;	/* freed meanwhile: revoke has run already */
	} else if (handle->share) {
		ret = -EBUSY;
	} else {
		npu_share_reserve_locked(share);
		handle->share = share;
		args->shareable = share->key;
		a->share = share;
	}
	mutex_unlock(&npu_share_lock);
	if (ret)
		npu_share_free(share);
	return ret;
}

/* The IPC key being made for @args, and who makes it. */
struct npu_ipc_name {
	struct npu_context *ctx;
	struct npu_share_export_args *a;
	struct npu_share *share;
};

/*
 * Name the range in @map (the VA space held: an unmap revokes only after
 * the reservation): memory this context allocated, whole pages.
 */
static int npu_ipc_name(const struct npu_mapping *map, void *arg)
{
	struct npu_ipc_name *n = arg;
	struct npu_ipc_export *args = &n->a->ipc;
	struct npu_share *share = n->share;
	u64 page = map->handle->page_size;

	/* Only the allocating process names its memory. */
	if (map->handle->owner != n->ctx || !IS_ALIGNED(args->addr, page) ||
	    !IS_ALIGNED(args->length, page))
		return -EINVAL;
	kref_get(&map->handle->ref);
	share->handle = map->handle;
	share->offset = args->addr - map->start;
	share->length = args->length;
	share->map = map;
	mutex_lock(&npu_share_lock);
	npu_share_reserve_locked(share);
	args->key = share->key;
	n->a->share = share;
	mutex_unlock(&npu_share_lock);
	return 0;
}

int npu_ipc_export_ioctl(struct npu_context *ctx, void *arg)
{
	struct npu_ipc_name n = { .ctx = ctx, .a = arg };
	struct npu_ipc_export *args = &n.a->ipc;
	int ret;

	if (args->flags & ~NPU_SHARE_ANY_PID || !args->length)
		return -EINVAL;
	if (!npu_charge(&ctx->nr_ipc_keys, 1, READ_ONCE(max_ipc_keys)))
		return -ENOSPC;
	n.share = npu_share_create(ctx, args->flags);
	if (!n.share) {
		atomic_long_dec(&ctx->nr_ipc_keys);
		return -ENOMEM;
	}
	n.share->ipc = true;
	n.share->life = kzalloc(sizeof(*n.share->life), GFP_KERNEL_ACCOUNT);
	if (!n.share->life) {
		ret = -ENOMEM;
		goto fail;
	}
	refcount_set(&n.share->life->ref, 1);
	INIT_LIST_HEAD(&n.share->life->imports);
	ret = npu_vm_with_memory(&ctx->vm, args->addr, args->length,
				 npu_ipc_name, &n);
	if (!ret)
		return 0;
fail:
	atomic_long_dec(&ctx->nr_ipc_keys);
	npu_share_free(n.share);
	return ret;
}

int npu_ipc_destroy_ioctl(struct npu_context *ctx, void *arg)
{
	struct npu_ipc_destroy *args = arg;
	struct npu_share *share;

	if (args->flags)
		return -EINVAL;
	mutex_lock(&npu_share_lock);
	share = npu_share_find_locked(args->key);
	if (share && share->ipc && share->owner == ctx)
		npu_share_unpublish_locked(share);
	else
		share = NULL;
	mutex_unlock(&npu_share_lock);
	if (!share)
		return -ENOENT;
	npu_share_free(share);
	return 0;
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

/* An IPC key's list grows: add @pids (their references move to it). */
static int npu_share_add_pids_locked(struct npu_share *share,
				     struct pid **pids, u32 npids)
{
	struct pid **all;

	lockdep_assert_held(&npu_share_lock);
	if (share->npids + npids > NPU_SHARE_MAX_PIDS)
		return -ENOSPC;
	all = krealloc_array(share->pids, share->npids + npids, sizeof(*all),
			     GFP_KERNEL_ACCOUNT);
	if (!all)
		return -ENOMEM;
	memcpy(all + share->npids, pids, npids * sizeof(*all));
	share->pids = all;
	share->npids += npids;
	return 0;
}

/* SHARE_SET_PIDS replaces a name's list, IPC_SET_PIDS adds to a key's. */
static int npu_share_set_pids(struct npu_context *ctx,
			      struct npu_share_pids *args, bool ipc)
{
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
	if (!share || share->owner != ctx || share->ipc != ipc) {
		ret = -ENOENT;
	} else if (!ipc) {
		swap(share->pids, pids);
		swap(share->npids, npids);
	} else {
		ret = npu_share_add_pids_locked(share, pids, npids);
		if (!ret)
			npids = 0;	/* moved */
	}
	mutex_unlock(&npu_share_lock);
	/* the old list, or the new one that found no share */
	npu_share_put_pids(pids, npids);
	return ret;
}

int npu_share_set_pids_ioctl(struct npu_context *ctx, void *arg)
{
	return npu_share_set_pids(ctx, arg, false);
}

int npu_ipc_set_pids_ioctl(struct npu_context *ctx, void *arg)
{
	return npu_share_set_pids(ctx, arg, true);
}

/* Does the current process hold an import of @life's key already? */
static bool npu_ipc_imported_locked(struct npu_ipc_life *life)
{
	struct npu_ipc_import *import;

	lockdep_assert_held(&npu_share_lock);
	list_for_each_entry(import, &life->imports, link)
		if (import->tgid == task_tgid(current))
			return true;
	return false;
}

/*
 * The current process imports IPC key @share: a slice of its memory that
 * records the import in the key's life (@import is the slice's then).
 */
static struct npu_handle *npu_ipc_slice_locked(struct npu_share *share,
					       struct npu_ipc_import *import)
{
	struct npu_handle *slice;

	lockdep_assert_held(&npu_share_lock);
	slice = npu_handle_slice(share->handle, share->offset, share->length);
	if (IS_ERR(slice))
		return slice;
	import->tgid = get_pid(task_tgid(current));
	refcount_inc(&share->life->ref);
	import->life = share->life;
	list_add(&import->link, &share->life->imports);
	slice->ipc = import;
	return slice;
}

/*
 * Find what @ctx's process may import as @key, a SHARE_EXPORT name or
 * (@ipc) an IPC_EXPORT key, and take a reference: the handle itself, or a
 * slice of it for an IPC key.
 */
static struct npu_handle *npu_share_take(struct npu_context *ctx, u64 key,
					 bool ipc)
{
	struct npu_ipc_import *import = NULL;
	struct npu_handle *handle;
	struct npu_share *share;

	if (ipc) {
		import = kzalloc(sizeof(*import), GFP_KERNEL_ACCOUNT);
		if (!import)
			return ERR_PTR(-ENOMEM);
	}
	mutex_lock(&npu_share_lock);
	share = npu_share_find_locked(key);
	if (!share || share->ipc != ipc)
		handle = ERR_PTR(-ENOENT);
	else if (share->owner_tgid == task_tgid(current))
		handle = ERR_PTR(-EINVAL);
	/* an exporter lost to a device reset: its names are as revoked */
	else if (!npu_share_allows_locked(share) || READ_ONCE(share->owner->lost))
		handle = ERR_PTR(-ENOENT);
	else if (share->handle->mem != ctx->npu->mem)
		handle = ERR_PTR(-ENODEV);
	else if (ipc && npu_ipc_imported_locked(share->life))
		handle = ERR_PTR(-EINVAL);	/* once per process, as the vendor */
	else if (ipc)
		handle = npu_ipc_slice_locked(share, import);
	else
		handle = share->handle;
	if (!IS_ERR(handle) && !ipc)
		kref_get(&handle->ref);
	mutex_unlock(&npu_share_lock);
	if (ipc && IS_ERR(handle))
		kfree(import);
	return handle;
}

/* An import: its handle is published once the answer is copied out. */
static int npu_share_import(struct npu_context *ctx, struct npu_handle_args *a,
			    bool ipc)
{
	struct npu_share_import *args = &a->import;

	if (args->flags || args->__reserved)
		return -EINVAL;
	a->handle = npu_share_take(ctx, args->shareable, ipc);
	if (IS_ERR(a->handle))
		return PTR_ERR(a->handle);
	a->type = NPU_OBJ_IMPORT;
	args->length = a->handle->size;
	args->page_size = a->handle->page_size;
	return npu_handle_new_id(ctx, a, &args->handle);
}

int npu_share_import_ioctl(struct npu_context *ctx, void *arg)
{
	return npu_share_import(ctx, arg, false);
}

int npu_ipc_import_ioctl(struct npu_context *ctx, void *arg)
{
	return npu_share_import(ctx, arg, true);
}
