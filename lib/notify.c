// SPDX-License-Identifier: MIT
/*
 * Notifies: one-bit flags of a device, set and consumed in stream order.
 * A notify is a word of the device's notify pool (slots.c): a record is a
 * WRITE_VALUE of 1; a wait is a WAIT_VALUE for it followed by a WRITE_VALUE
 * of 0 in the same submission, so each record releases at most one wait.
 * A notify belongs to its device, not to a context. The simulated chip
 * has no IPC notifies and no count notifies (CANN: 950 only): those calls
 * answer ACL_ERROR_RT_FEATURE_NOT_SUPPORT.
 */
#include <errno.h>
#include <stdlib.h>

#include <acl/acl.h>

#include "context.h"
#include "device.h"
#include "error.h"
#include "handle.h"
#include "notify.h"
#include "slots.h"
#include "stream.h"

struct acl_notify {
	struct acl_obj obj;		/* first: the aclrtNotify is the object */
	struct list_head node;		/* in acl_notify_zombies once destroyed */
	struct acl_device *dev;		/* constant */
	unsigned int gen;		/* dev->gen at creation: the pool's life */
	uint32_t slot;			/* the notify id; constant */
	uint64_t *word;
	pthread_mutex_t lock;		/* protects the last task */
	struct acl_stream *last_s;	/* stream of the last record or wait (reference) */
	uint32_t last_id;
	uint64_t last_seq;
};

/*
 * Destroyed notifies whose last task has not run: their id is kept until
 * it has (CANN frees it at once, so a new notify could share a flag with
 * a queued wait).
 */
static pthread_mutex_t acl_notify_zombie_lock = PTHREAD_MUTEX_INITIALIZER;
static struct list_head acl_notify_zombies = LIST_HEAD_INIT(acl_notify_zombies);

static bool acl_notify_idle(struct acl_notify *n)
{
	bool idle;

	pthread_mutex_lock(&n->lock);
	idle = !n->last_s || acl_stream_reached(n->last_s, n->last_id, n->last_seq);
	pthread_mutex_unlock(&n->lock);
	return idle;
}

static void acl_notify_release(struct acl_obj *obj)
{
	struct acl_notify *n = (struct acl_notify *)obj;

	acl_slot_free(n->dev, &n->dev->notifies, n->gen, n->slot);
	if (n->last_s)
		acl_stream_put(n->last_s);
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
	pthread_mutex_init(&n->lock, NULL);
	list_init(&n->node);
	acl_obj_add(&n->obj, ACL_OBJ_NOTIFY, acl_notify_release);
	*notify = n;
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

/* Queue @cmds for @n on @stream, after the checks of record and wait. */
static int acl_notify_queue(aclrtNotify notify, aclrtStream stream, struct npu_cmd *cmds,
			    uint32_t count)
{
	struct acl_context *ctx;
	struct acl_notify *n;
	struct acl_stream *s, *old = NULL;
	uint64_t seq;
	uint32_t i, id;
	int ret;

	ret = acl_notify_get(notify, &n, &ctx);
	if (ret)
		return ret;
	ret = acl_stream_resolve(stream, ACL_STREAM_OWN, &s);
	if (ret)
		goto out;
	if (s->dev != n->dev) {
		/* the vendor leaves it unchecked; its IPC path answers this */
		ret = acl_errf(ACLI_ERTPARAM, "the notify is of device %d, the stream of device %d",
			       n->dev->id, s->dev->id);
		acl_stream_put(s);
		goto out;
	}
	for (i = 0; i < count; i++) {
		if (cmds[i].op == NPU_OP_WAIT_VALUE)
			cmds[i].src = (uintptr_t)n->word;
		else
			cmds[i].dst = (uintptr_t)n->word;
	}
	pthread_mutex_lock(&n->lock);
	ret = acl_stream_submit_at(s, cmds, count, &id, &seq);
	if (!ret) {
		old = n->last_s;
		n->last_s = s;
		n->last_id = id;
		n->last_seq = seq;
	} else {
		old = s;
	}
	pthread_mutex_unlock(&n->lock);
	if (old)
		acl_stream_put(old);
out:
	acl_notify_done(n, ctx);
	return ret;
}

ACL_EXPORT aclError aclrtRecordNotify(aclrtNotify notify, aclrtStream stream)
{
	struct npu_cmd set = { .op = NPU_OP_WRITE_VALUE, .flags = NPU_CMD_DST_HOST, .value = 1 };

	return acl_ret(__func__, acl_notify_queue(notify, stream, &set, 1));
}

ACL_EXPORT aclError aclrtWaitAndResetNotify(aclrtNotify notify, aclrtStream stream, uint32_t timeout)
{
	struct npu_cmd cmds[2] = {
		{ .op = NPU_OP_WAIT_VALUE, .flags = NPU_CMD_SRC_HOST | NPU_WAIT_GEQ, .value = 1 },
		{ .op = NPU_OP_WRITE_VALUE, .flags = NPU_CMD_DST_HOST, .value = 0 },
	};

	/*
	 * The simulated chip lacks CANN's NOTIFY_WAIT_TIMEOUT feature: as on
	 * such vendor chips the timeout is ignored and the wait has no limit.
	 */
	(void)timeout;
	return acl_ret(__func__, acl_notify_queue(notify, stream, cmds, 2));
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
	struct npu_cmd clear = { .op = NPU_OP_WRITE_VALUE, .flags = NPU_CMD_DST_HOST, .value = 0 };
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
		ret = acl_notify_queue(n, NULL, &clear, 1);
		if (!ret)
			ret = acl_sync_default();
		acl_notify_done(n, ctx);
	}
out:
	return acl_ret(__func__, ret);
}

static int acl_no_ipc_notify(void)
{
	int ret = acl_check_init();

	return ret ? ret : acl_errf(ACLI_ERTNOTSUPP, "the simulated chip has no IPC notifies");
}

ACL_EXPORT aclError aclrtNotifyGetExportKey(aclrtNotify notify, char *key, size_t len, uint64_t flags)
{
	int ret = acl_enter(NULL, notify, key);

	(void)len;
	(void)flags;
	return acl_ret(__func__, ret ? ret : acl_no_ipc_notify());
}

ACL_EXPORT aclError aclrtNotifySetImportPid(aclrtNotify notify, int32_t *pid, size_t num)
{
	int ret = acl_enter(NULL, notify, pid);

	(void)num;
	return acl_ret(__func__, ret ? ret : acl_no_ipc_notify());
}

ACL_EXPORT aclError aclrtNotifySetImportPidInterServer(aclrtNotify notify, aclrtServerPid *serverPids,
						       size_t num)
{
	(void)notify;
	(void)serverPids;
	(void)num;
	return acl_ret(__func__, acl_no_ipc_notify());
}

ACL_EXPORT aclError aclrtNotifyImportByKey(aclrtNotify *notify, const char *key, uint64_t flags)
{
	int ret = acl_enter(NULL, notify, key);

	(void)flags;
	return acl_ret(__func__, ret ? ret : acl_no_ipc_notify());
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
