// SPDX-License-Identifier: MIT
/*
 * Notifies: one-bit flags of a device, set and consumed in stream order.
 * A notify is a word of the device's notify pool (slots.c): a record is a
 * WRITE_VALUE of 1; a wait is a WAIT_VALUE for it followed by a WRITE_VALUE
 * of 0 in the same submission, so each record releases at most one wait.
 * A notify belongs to its device, not to a context.
 *
 * IPC notifies: an exported notify's flag moves to a device page of its
 * own, which the driver names by an IPC key (IPC_EXPORT: the share
 * table's rules - listed pids or any, the exporter's euid, revoked when
 * the exporter frees it). An importer maps that page (IPC_IMPORT) on the
 * notify's device and records by writing it, from a stream of another
 * device through peer access; waits run on the notify's own device. There
 * are no count notifies (CANN: 950 only): those calls answer
 * ACL_ERROR_RT_FEATURE_NOT_SUPPORT.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <acl/acl.h>

#include "acl_ioctl.h"
#include "context.h"
#include "copy.h"
#include "device.h"
#include "error.h"
#include "handle.h"
#include "ipc.h"
#include "mm.h"
#include "notify.h"
#include "peer.h"
#include "query.h"
#include "slots.h"
#include "stream.h"

/* A notify's last record or wait on one stream. */
struct acl_notify_use {
	struct acl_stream *s;		/* a reference */
	uint32_t id;
	uint64_t seq;
};

struct acl_notify {
	struct acl_obj obj;		/* first: the aclrtNotify is the object */
	struct list_head node;		/* in acl_notify_zombies once destroyed */
	struct acl_device *dev;		/* constant: the flag's device (an import's: the exporter's) */
	unsigned int gen;		/* dev->gen at creation: the flag's life */
	uint32_t slot;			/* the notify id; constant */
	uint64_t *word;			/* the pool word; NULL for an import */
	bool imported;			/* constant */
	pthread_mutex_t lock;		/* protects the uses and the IPC fields */
	struct acl_notify_use *uses;	/* streams with a record or wait not known to have run */
	uint32_t nuses, cap;
	uint64_t dva;			/* IPC: the flag's device VA on @dev; 0: the pool word */
	uint64_t key;			/* exported: the driver's name of its page; else 0 */
};

/*
 * Destroyed notifies whose last task has not run: their id is kept until
 * it has (CANN frees it at once, so a new notify could share a flag with
 * a queued wait).
 */
static pthread_mutex_t acl_notify_zombie_lock = PTHREAD_MUTEX_INITIALIZER;
static struct list_head acl_notify_zombies = LIST_HEAD_INIT(acl_notify_zombies);

/* Drop the uses whose task ran (under @n's lock). */
static void acl_notify_prune_locked(struct acl_notify *n)
{
	uint32_t i = 0;

	while (i < n->nuses) {
		struct acl_notify_use *u = &n->uses[i];

		if (acl_stream_reached(u->s, u->id, u->seq)) {
			acl_stream_put(u->s);
			*u = n->uses[--n->nuses];
		} else {
			i++;
		}
	}
}

/* No record or wait of @n is queued on any stream (under @n's lock). */
static bool acl_notify_idle_locked(struct acl_notify *n)
{
	acl_notify_prune_locked(n);
	return !n->nuses;
}

static bool acl_notify_idle(struct acl_notify *n)
{
	bool idle;

	pthread_mutex_lock(&n->lock);
	idle = acl_notify_idle_locked(n);
	pthread_mutex_unlock(&n->lock);
	return idle;
}

/* Room for one more use, taken before a task is queued: after it nothing may fail. */
static int acl_notify_room_locked(struct acl_notify *n)
{
	struct acl_notify_use *u;
	uint32_t cap;

	acl_notify_prune_locked(n);
	if (n->nuses < n->cap)
		return 0;
	cap = n->cap ? 2 * n->cap : 4;
	u = realloc(n->uses, cap * sizeof(*u));
	if (!u)
		return acl_errf(-ENOMEM, "out of host memory");
	n->uses = u;
	n->cap = cap;
	return 0;
}

/* @s's task (@id, @seq) is @n's last on @s; takes over the caller's reference to @s. */
static void acl_notify_use_locked(struct acl_notify *n, struct acl_stream *s, uint32_t id, uint64_t seq)
{
	uint32_t i;

	for (i = 0; i < n->nuses && n->uses[i].s != s; i++)
		;
	if (i < n->nuses)
		acl_stream_put(s);	/* the use holds one already */
	else
		n->nuses++;
	n->uses[i] = (struct acl_notify_use){ .s = s, .id = id, .seq = seq };
}

static void acl_notify_release(struct acl_obj *obj)
{
	struct acl_notify *n = (struct acl_notify *)obj;
	uint32_t i;

	/* freeing the exported page also revokes its key */
	if (n->dva && __atomic_load_n(&n->dev->gen, __ATOMIC_ACQUIRE) == n->gen)
		acl_mm_free(n->dev, n->dva, n->imported ? ACL_REGION_IPC : ACL_REGION_MALLOC);
	if (n->word)
		acl_slot_free(n->dev, &n->dev->notifies, n->gen, n->slot);
	for (i = 0; i < n->nuses; i++)
		acl_stream_put(n->uses[i].s);
	free(n->uses);
	pthread_mutex_destroy(&n->lock);
	free(n);
}

void acl_notifies_forget(void)
{
	pthread_mutex_init(&acl_notify_zombie_lock, NULL);
	list_init(&acl_notify_zombies);
}

static void acl_notifies_reap(void)
{
	struct acl_notify *n, *nn;
	struct list_head done;

	list_init(&done);
	pthread_mutex_lock(&acl_notify_zombie_lock);
	list_for_each_entry_safe(n, nn, &acl_notify_zombies, node) {
		if (acl_notify_idle(n)) {
			list_del(&n->node);
			list_add_tail(&n->node, &done);
		}
	}
	pthread_mutex_unlock(&acl_notify_zombie_lock);
	list_for_each_entry_safe(n, nn, &done, node)
		acl_obj_put(&n->obj);
}

/* The checks every notify call makes: a live notify, a current context. */
static int acl_notify_get(aclrtNotify notify, struct acl_notify **out, struct acl_context **ctxp)
{
	struct acl_notify *n;
	int ret;

	ret = acl_enter(NULL, notify);
	if (ret)
		return ret;
	n = (struct acl_notify *)acl_obj_get(notify, ACL_OBJ_NOTIFY);
	if (!n)
		return acl_errf(ACLI_EHANDLE, "notify %p is not a live notify", notify);
	/* its device was closed since (every context on it went): its word is gone */
	if (__atomic_load_n(&n->dev->gen, __ATOMIC_ACQUIRE) != n->gen) {
		acl_obj_put(&n->obj);
		return acl_errf(ACLI_EHANDLE, "notify %p died with its device's last context", notify);
	}
	ret = acl_cur_ctx(ctxp);
	if (ret) {
		acl_obj_put(&n->obj);
		return ret;
	}
	*out = n;
	return 0;
}

static void acl_notify_done(struct acl_notify *n, struct acl_context *ctx)
{
	acl_obj_put(&n->obj);
	acl_ctx_put(ctx);
}

/* @n, made, becomes a handle: *@notify. */
static void acl_notify_publish(struct acl_notify *n, aclrtNotify *notify)
{
	pthread_mutex_init(&n->lock, NULL);
	list_init(&n->node);
	acl_obj_add(&n->obj, ACL_OBJ_NOTIFY, acl_notify_release);
	*notify = n;
}

ACL_EXPORT aclError aclrtCreateNotify(aclrtNotify *notify, uint64_t flag)
{
	struct acl_context *ctx;
	struct acl_notify *n;
	int ret;

	ret = acl_enter(NULL, notify);
	if (ret)
		goto out;
	if (flag != ACL_NOTIFY_DEFAULT && flag != ACL_NOTIFY_DEVICE_USE_ONLY) {
		ret = acl_errf(ACLI_ERTPARAM, "flag %#llx must be ACL_NOTIFY_DEFAULT or ACL_NOTIFY_DEVICE_USE_ONLY",
			       (unsigned long long)flag);
		goto out;
	}
	ret = acl_cur_ctx(&ctx);
	if (ret)
		goto out;
	if (flag == ACL_NOTIFY_DEVICE_USE_ONLY) {
		/* CANN: needs the scheduler's MC2 coprocessor feature */
		ret = acl_errf(ACLI_ERTNOTSUPP, "ACL_NOTIFY_DEVICE_USE_ONLY needs device-side code the simulated chip does not run");
		goto put;
	}
	acl_notifies_reap();
	n = calloc(1, sizeof(*n));
	if (!n) {
		ret = acl_errf(-ENOMEM, "out of host memory");
		goto put;
	}
	n->dev = ctx->dev;
	n->gen = __atomic_load_n(&ctx->dev->gen, __ATOMIC_ACQUIRE);
	ret = acl_slot_alloc(ctx->dev, &ctx->dev->notifies, &n->slot, &n->word);
	if (ret) {
		free(n);
		if (ret == -ENOSPC)
			ret = acl_errf(ACLI_ENONOTIFYRES, "no notify left on device %d", ctx->dev->id);
		goto put;
	}
	acl_notify_publish(n, notify);
put:
	acl_ctx_put(ctx);
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtDestroyNotify(aclrtNotify notify)
{
	struct acl_context *ctx;
	struct acl_notify *n;
	int ret;

	ret = acl_notify_get(notify, &n, &ctx);
	if (ret)
		goto out;
	if (!acl_obj_del(&n->obj)) {
		ret = acl_errf(ACLI_EHANDLE, "notify %p is being destroyed by another thread", notify);
	} else if (!acl_notify_idle(n)) {
		/* the table's reference moves to the zombie list */
		pthread_mutex_lock(&acl_notify_zombie_lock);
		list_add_tail(&n->node, &acl_notify_zombies);
		pthread_mutex_unlock(&acl_notify_zombie_lock);
	} else {
		acl_obj_put(&n->obj);
	}
	acl_notify_done(n, ctx);
out:
	return acl_ret(__func__, ret);
}

/* What a notify call queues: a record, a clear, or a wait that clears. */
enum acl_notify_op {
	ACL_NOTIFY_SET,
	ACL_NOTIFY_CLEAR,
	ACL_NOTIFY_WAIT,
};

/* An IPC notify's page: the smallest the driver maps and names. */
#define ACL_NOTIFY_PAGE	4096

/* The 1 a record from another device copies into an IPC notify's page. */
static struct acl_slot_kept acl_notify_ones[ACL_MAX_DEVICES];

/*
 * @op's commands on @n (under its lock) for a stream of @e into @cmds,
 * their number into *@count: on the flag's device a write (and wait) of
 * the flag itself; from another device only a record, of an IPC notify,
 * as a peer copy of a 1 into its page.
 */
static int acl_notify_cmds_locked(struct acl_notify *n, struct acl_device *e, enum acl_notify_op op,
				  struct npu_cmd *cmds, uint32_t *count)
{
	uint32_t host = n->dva ? 0 : NPU_CMD_DST_HOST;
	uint64_t flag = n->dva ?: (uintptr_t)n->word, *one;
	int ret;

	if (e != n->dev) {
		/* the vendor leaves the plain case unchecked; its IPC path answers it */
		if (op != ACL_NOTIFY_SET || !n->dva)
			return acl_errf(ACLI_ERTPARAM, "the notify is of device %d, the stream of device %d%s",
					n->dev->id, e->id,
					n->dva ? ": only a record may come from another device" : "");
		if (!acl_peer_enabled(e, n->dev))
			return acl_no_peer(e, n->dev);
		ret = acl_slot_keep(e, &e->notifies, &acl_notify_ones[e->id], &one);
		if (ret)
			return ret == -ENOSPC ? acl_errf(ACLI_ENONOTIFYRES, "no notify left on device %d", e->id) : ret;
		__atomic_store_n(one, 1, __ATOMIC_RELAXED);
		cmds[0] = (struct npu_cmd){ .op = NPU_OP_COPY, .flags = NPU_CMD_SRC_HOST | NPU_CMD_DST_PEER,
					    .dst = flag, .src = (uintptr_t)one, .length = sizeof(*one),
					    .value = (uint64_t)__atomic_load_n(&n->dev->fd, __ATOMIC_ACQUIRE) };
		*count = 1;
		return 0;
	}
	*count = 0;
	if (op == ACL_NOTIFY_WAIT)
		cmds[(*count)++] = (struct npu_cmd){ .op = NPU_OP_WAIT_VALUE,
						     .flags = (host ? NPU_CMD_SRC_HOST : 0) | NPU_WAIT_GEQ,
						     .src = flag, .value = 1 };
	cmds[(*count)++] = (struct npu_cmd){ .op = NPU_OP_WRITE_VALUE, .flags = host, .dst = flag,
					     .value = op == ACL_NOTIFY_SET };
	return 0;
}

/* Queue @op for @n on @stream, after the checks of record and wait. */
static int acl_notify_queue(aclrtNotify notify, aclrtStream stream, enum acl_notify_op op)
{
	struct acl_context *ctx;
	struct acl_notify *n;
	struct acl_stream *s;
	struct npu_cmd cmds[2];
	uint32_t count = 0, id;
	uint64_t seq;
	int ret;

	ret = acl_notify_get(notify, &n, &ctx);
	if (ret)
		return ret;
	ret = acl_stream_resolve(stream, ACL_STREAM_OWN, &s);
	if (ret)
		goto out;
	pthread_mutex_lock(&n->lock);
	ret = acl_notify_cmds_locked(n, s->dev, op, cmds, &count);
	if (!ret)
		ret = acl_notify_room_locked(n);
	/* on a recording stream, recorded: the model sets (waits for) the flag at each run */
	if (!ret)
		ret = acl_stream_launch_at(s, cmds, count, &id, &seq);
	if (!ret && !seq) {
		acl_stream_put(s);
	} else if (!ret) {
		acl_notify_use_locked(n, s, id, seq);
	} else {
		acl_stream_put(s);
		if (ret == -EPERM && s->dev != n->dev)
			ret = acl_no_peer(s->dev, n->dev);
		else if (ret == -EBADF && s->dev != n->dev)
			ret = acl_errf(ret, "device %d, the notify's, was reset", n->dev->id);
	}
	pthread_mutex_unlock(&n->lock);
out:
	acl_notify_done(n, ctx);
	return ret;
}

ACL_EXPORT aclError aclrtRecordNotify(aclrtNotify notify, aclrtStream stream)
{
	return acl_ret(__func__, acl_notify_queue(notify, stream, ACL_NOTIFY_SET));
}

ACL_EXPORT aclError aclrtWaitAndResetNotify(aclrtNotify notify, aclrtStream stream, uint32_t timeout)
{
	/*
	 * The simulated chip lacks CANN's NOTIFY_WAIT_TIMEOUT feature: as on
	 * such vendor chips the timeout is ignored and the wait has no limit.
	 */
	(void)timeout;
	return acl_ret(__func__, acl_notify_queue(notify, stream, ACL_NOTIFY_WAIT));
}

ACL_EXPORT aclError aclrtGetNotifyId(aclrtNotify notify, uint32_t *notifyId)
{
	struct acl_context *ctx;
	struct acl_notify *n;
	int ret;

	ret = acl_enter(NULL, notifyId);
	if (!ret)
		ret = acl_notify_get(notify, &n, &ctx);
	if (!ret) {
		*notifyId = n->slot;
		acl_notify_done(n, ctx);
	}
	return acl_ret(__func__, ret);
}

static int acl_sync_default(void)
{
	struct acl_stream *s;
	int ret = acl_stream_resolve(NULL, ACL_STREAM_USE, &s);

	if (!ret) {
		ret = acl_stream_sync(s, -1);
		acl_stream_put(s);
	}
	return ret;
}

ACL_EXPORT aclError aclrtNotifyBatchReset(aclrtNotify *notifies, size_t num)
{
	struct acl_context *ctx;
	struct acl_notify *n;
	uint32_t i, count = (uint32_t)num;
	int ret;

	ret = acl_enter(NULL, notifies);
	if (!ret && !count)
		ret = acl_errf(ACLI_ERTPARAM, "num must be non-zero");
	if (ret)
		goto out;
	/* in array order, stopping at the first failure */
	for (i = 0; i < count && !ret; i++) {
		if (!notifies[i]) {
			ret = acl_errf(ACLI_ERTPARAM, "notifies[%u] is NULL", i);
			break;
		}
		ret = acl_notify_get(notifies[i], &n, &ctx);
		if (ret)
			break;
		/* outside every user stream: the context's default stream, waited for */
		ret = acl_notify_queue(n, NULL, ACL_NOTIFY_CLEAR);
		if (!ret)
			ret = acl_sync_default();
		acl_notify_done(n, ctx);
	}
out:
	return acl_ret(__func__, ret);
}

/* The chip's IPC notifies (CANN: RT_FEATURE_IPC_NOTIFY; the 310B class has none). */
static int acl_ipc_notify_chip(void)
{
	if (acl_chip_features() & ACL_SOC_IPC_NOTIFY)
		return 0;
	return acl_errf(ACLI_ERTNOTSUPP, "the chip has no IPC notifies (CANN: RT_FEATURE_IPC_NOTIFY)");
}

/*
 * The flag's page on @n's device, named by the driver (any process of
 * the user when @any): zeroed by the driver, set if @n is set.
 */
static int acl_notify_page(struct acl_notify *n, bool any, uint64_t *va, uint64_t *key)
{
	struct npu_cmd set = { .op = NPU_OP_WRITE_VALUE, .value = 1 };
	int ret;

	ret = acl_ipc_page_export(n->dev, ACL_NOTIFY_PAGE, any, ACLI_ENONOTIFYRES, va, key);
	if (ret || !__atomic_load_n(n->word, __ATOMIC_ACQUIRE))
		return ret;
	set.dst = *va;
	ret = acl_cmds_sync(n->dev, &set, 1);
	if (ret)
		acl_mm_free(n->dev, *va, ACL_REGION_MALLOC);
	return ret;
}

/*
 * The flag moves to a page of its own, which the driver names; the
 * notify must be idle (npu's choice: a queued record or wait would
 * still reach the old word). Exported once, as CANN: 507000 after.
 */
ACL_EXPORT aclError aclrtNotifyGetExportKey(aclrtNotify notify, char *key, size_t len, uint64_t flags)
{
	struct acl_context *ctx;
	struct acl_notify *n;
	uint64_t va, name;
	int ret;

	ret = acl_enter(NULL, notify, key);
	/* CANN passes len on as a uint32_t */
	if (!ret && !(uint32_t)len)
		ret = acl_errf(ACLI_ERTPARAM, "len %zu must be non-zero as a 32-bit count (65 holds every key)", len);
	if (!ret)
		ret = acl_ipc_notify_chip();
	if (!ret && flags != ACL_RT_NOTIFY_EXPORT_FLAG_DEFAULT &&
	    flags != ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION)
		ret = acl_errf(ACLI_ERTPARAM, "flags %#" PRIx64 " must be DEFAULT or DISABLE_PID_VALIDATION", flags);
	if (ret)
		goto out;
	ret = acl_notify_get(notify, &n, &ctx);
	if (ret)
		goto out;
	ret = acl_ipc_key_make(NULL, len, ACL_IPC_KIND_NOTIFY, &n->slot, n->dev, 0);
	if (ret)
		goto put;
	pthread_mutex_lock(&n->lock);
	if (n->imported || n->key) {
		ret = acl_errf(ACLI_EINTERNAL, "notify %p was %s already", notify, n->imported ? "imported" : "exported");
		goto unlock;
	}
	if (!acl_notify_idle_locked(n)) {
		ret = acl_errf(ACLI_ERTPARAM, "notify %p has records or waits queued: export it before it is used, or once they ran",
			       notify);
		goto unlock;
	}
	ret = acl_notify_page(n, flags == ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION, &va, &name);
	if (ret)
		goto unlock;
	n->dva = va;
	n->key = name;
	acl_ipc_key_make(key, len, ACL_IPC_KIND_NOTIFY, &n->slot, n->dev, name);
unlock:
	pthread_mutex_unlock(&n->lock);
put:
	acl_notify_done(n, ctx);
out:
	return acl_ret(__func__, ret);
}

/* The key of @n, exported by this process, for IPC_SET_PIDS. */
static int acl_notify_exported(struct acl_notify *n, uint64_t *key)
{
	pthread_mutex_lock(&n->lock);
	*key = n->key;
	pthread_mutex_unlock(&n->lock);
	if (!*key)
		return acl_errf(ACLI_ERTPARAM, "notify %p is not exported by this process (aclrtNotifyGetExportKey first)",
				(void *)n);
	return 0;
}

ACL_EXPORT aclError aclrtNotifySetImportPid(aclrtNotify notify, int32_t *pid, size_t num)
{
	struct acl_context *ctx;
	struct acl_notify *n;
	uint64_t key;
	int ret;

	ret = acl_enter(NULL, notify, pid);
	if (!ret)
		ret = acl_ipc_notify_chip();
	if (ret || (ret = acl_notify_get(notify, &n, &ctx)))
		goto out;
	ret = acl_pid_list_check(pid, num, "num", ACLI_ERTPARAM, false);
	if (!ret)
		ret = acl_notify_exported(n, &key);
	if (!ret)
		ret = acl_ipc_set_pids_on(n->dev, key, "the notify", pid, num);
	acl_notify_done(n, ctx);
out:
	return acl_ret(__func__, ret);
}

static int acl_notify_pod_set(void *arg, int32_t *pid, size_t num)
{
	struct acl_notify *n = arg;
	uint64_t key;
	int ret;

	ret = acl_notify_exported(n, &key);
	return ret ? ret : acl_ipc_set_pids_on(n->dev, key, "the notify", pid, num);
}

/* As aclrtIpcMemImportPidInterServer (ipc.c), one pid an entry. */
ACL_EXPORT aclError aclrtNotifySetImportPidInterServer(aclrtNotify notify, aclrtServerPid *serverPids,
						       size_t num)
{
	struct acl_context *ctx;
	struct acl_notify *n;
	int ret;

	ret = acl_check_init();
	if (!ret && (!notify || !serverPids || !num))
		ret = acl_errf(ACLI_ERTPARAM, "%s", !notify ? "notify must not be NULL" :
			       !serverPids ? "serverPids must not be NULL" : "num must be non-zero");
	if (ret || (ret = acl_notify_get(notify, &n, &ctx)))
		goto out;
	ret = acl_ipc_pod_pids(serverPids, num, 1, NULL, "aclrtNotifySetImportPid", acl_notify_pod_set, n);
	acl_notify_done(n, ctx);
out:
	return acl_ret(__func__, ret);
}

/*
 * A notify of the current device whose flag is the exporter's page,
 * mapped on the exporter's device (opened for it if this process has no
 * context there, as for IPC memory): records go there from any device
 * with peer access to it, waits run there.
 */
ACL_EXPORT aclError aclrtNotifyImportByKey(aclrtNotify *notify, const char *key, uint64_t flags)
{
	struct acl_context *ctx = NULL;
	struct acl_device *home;
	struct acl_notify *n;
	uint32_t slot = 0;
	uint64_t va;
	__u64 name;
	int ret;

	ret = acl_enter(NULL, notify, key);
	if (!ret)
		ret = acl_ipc_notify_chip();
	if (!ret && flags > (ACL_NOTIFY_DEVICE_USE_ONLY | ACL_RT_NOTIFY_IMPORT_FLAG_ENABLE_PEER_ACCESS))
		ret = acl_errf(ACLI_ERTPARAM, "flags %#" PRIx64 " must be DEFAULT, DEVICE_USE_ONLY, ENABLE_PEER_ACCESS or both",
			       flags);
	if (!ret && (flags & ACL_NOTIFY_DEVICE_USE_ONLY))
		ret = acl_errf(ACLI_ERTNOTSUPP, "DEVICE_USE_ONLY needs device-side code the simulated chip does not run");
	if (!ret)
		ret = acl_cur_ctx(&ctx);
	if (!ret)
		ret = acl_ipc_key_dev_import(key, ACL_IPC_KIND_NOTIFY, &slot, &home, &name);
	if (ret)
		goto out;
	acl_notifies_reap();
	n = calloc(1, sizeof(*n));
	if (!n) {
		ret = acl_errf(-ENOMEM, "out of host memory");
		goto out;
	}
	/* its life is the flag's page's: the exporter's device, not the current one */
	n->dev = home;
	n->gen = __atomic_load_n(&home->gen, __ATOMIC_ACQUIRE);
	n->slot = slot;
	n->imported = true;
	ret = acl_ipc_import(ctx->dev, home, key, name, ACL_IPC_KIND_NOTIFY,
			     flags & ACL_RT_NOTIFY_IMPORT_FLAG_ENABLE_PEER_ACCESS, &va);
	if (ret) {
		free(n);
		goto out;
	}
	n->dva = va;
	acl_notify_publish(n, notify);
out:
	if (ctx)
		acl_ctx_put(ctx);
	return acl_ret(__func__, ret);
}

/* Count notifies exist on the 950 only. */
static int acl_no_cnt_notify(void)
{
	int ret = acl_check_init();

	return ret ? ret : acl_errf(ACLI_ERTNOTSUPP, "the simulated chip has no count notifies (CANN: Ascend 950 only)");
}

ACL_EXPORT aclError aclrtCntNotifyCreate(aclrtCntNotify *cntNotify, uint64_t flag)
{
	(void)cntNotify;
	(void)flag;
	return acl_ret(__func__, acl_no_cnt_notify());
}

ACL_EXPORT aclError aclrtCntNotifyDestroy(aclrtCntNotify cntNotify)
{
	(void)cntNotify;
	return acl_ret(__func__, acl_no_cnt_notify());
}

ACL_EXPORT aclError aclrtCntNotifyRecord(aclrtCntNotify cntNotify, aclrtStream stream,
					 aclrtCntNotifyRecordInfo *info)
{
	(void)cntNotify;
	(void)stream;
	(void)info;
	return acl_ret(__func__, acl_no_cnt_notify());
}

ACL_EXPORT aclError aclrtCntNotifyWaitWithTimeout(aclrtCntNotify cntNotify, aclrtStream stream,
						  aclrtCntNotifyWaitInfo *info)
{
	(void)cntNotify;
	(void)stream;
	(void)info;
	return acl_ret(__func__, acl_no_cnt_notify());
}

ACL_EXPORT aclError aclrtCntNotifyReset(aclrtCntNotify cntNotify, aclrtStream stream)
{
	(void)cntNotify;
	(void)stream;
	return acl_ret(__func__, acl_no_cnt_notify());
}

ACL_EXPORT aclError aclrtCntNotifyGetId(aclrtCntNotify cntNotify, uint32_t *notifyId)
{
	(void)cntNotify;
	(void)notifyId;
	return acl_ret(__func__, acl_no_cnt_notify());
}
