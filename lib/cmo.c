// SPDX-License-Identifier: MIT
/*
 * Cache maintenance (CMO): aclrtMemFlush, aclrtMemInvalidate,
 * aclrtCmoAsync, aclrtCmoGetDescSize, aclrtCmoSetDesc,
 * aclrtCmoAsyncWithDesc, aclrtCmoAsyncWithBarrier, aclrtCmoWaitBarrier.
 *
 * The simulated device has no cache between its engine and its memory,
 * so there is nothing to prefetch, write back, invalidate or flush. A CMO
 * task is still a command of its stream: an NPU_OP_PREFETCH over the
 * range, which moves no data and translates every page through the
 * device's MMU in stream order, so an address the device cannot reach
 * faults at the stream's synchronize as the vendor's SDMA task would. The
 * descriptor form reads its descriptor when the stream gets there
 * (copy.h: acl_stream_deferred()), as the engine does. On a stream being
 * captured (or bound to a model being built) both are recorded, as the
 * vendor's are: the command, or the descriptor's read at each run; the
 * barrier calls are not yet (refused, the capture invalidated).
 *
 * The checks and codes are CANN's (runtime api_c_standard_soc.cc
 * rtCmoAsync/rtCmoAddrTaskLaunch, api_c_memory.cc rtsCmoAsyncWithBarrier/
 * rtsLaunchBarrierTask, api_error.cc, api_impl_standard_soc.cc
 * FlushCache/InvalidCache), and so is which calls the chip has, by the
 * chip profile npu.ko's soc_name picks (query.h): the 910B class and the
 * simulated chip have RT_FEATURE_TASK_CMO (aclrtCmoAsync and the
 * descriptor calls) and not RT_FEATURE_TASK_ASYNC_CMO (the barrier
 * calls); the 310B class (Ascend310B1..4) the other way round; other
 * parts neither. Where the chip lacks the feature the call answers
 * ACL_ERROR_RT_FEATURE_NOT_SUPPORT where CANN's check is.
 *
 * Barriers: a CMO task of aclrtCmoAsyncWithBarrier with cmoType INVALID
 * carries a barrier id; aclrtCmoWaitBarrier queues on its stream a wait
 * for the last task that carried each id it names (NPU_OP_WAIT_STREAM
 * for that task's seqno), so that the stream's later work runs after
 * the invalidation. CANN keeps the ids per model (its CMO ids, allocated
 * from the driver for a model's streams); libacl has no models, so it
 * keeps them per context: any of the context's streams may carry or
 * wait for an id (CANN wants streams bound to a model).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <acl/acl.h>

#include "context.h"
#include "copy.h"
#include "device.h"
#include "error.h"
#include "query.h"
#include "stream.h"

/* The vendor's rtCmoAddrInfo: CmoSetDesc fills src and len_inner. */
struct acl_cmo_desc {
	uint32_t resv0, resv1;
	uint16_t num_outer, num_inner;
	uint32_t len_inner;
	uint64_t src;
	uint32_t stride_outer, stride_inner;
} __attribute__((packed));

_Static_assert(sizeof(struct acl_cmo_desc) == 32, "the 910B class's cmoDDRStructInfoSize");

/* aclrtBarrierCmoInfo's cmoType that a barrier waits for */
#define ACL_CMO_BARRIER_TYPE	ACL_RT_CMO_TYPE_INVALID

/* Barrier ids a context keeps at most: CANN's CMO ids are 16 bits. */
#define ACL_CMO_BARRIER_IDS	65535U

/* A barrier id and the last CMO task that carried it: seqno @seq of kernel stream @sid. */
struct acl_cmo_barrier {
	uint32_t id;
	uint32_t sid;
	uint64_t seq;
};

/* Is @type one of the four operations the runtime knows (RT_CMO_PREFETCH .. RT_CMO_FLUSH)? */
static bool acl_cmo_type_ok(aclrtCmoType type)
{
	return (unsigned int)type <= ACL_RT_CMO_TYPE_FLUSH;
}

/*
 * aclrtMemFlush and aclrtMemInvalidate: on a card attached to its host,
 * CANN's runtime checks the address is not NULL and that there is a
 * current context, and does nothing more (no host cache holds device
 * memory); neither does the simulated device have a cache to flush.
 */
static int acl_cache_sync(void *devPtr, size_t size)
{
	struct acl_device *dev;
	int ret;

	ret = acl_enter(NULL, devPtr);
	if (!ret && !size)
		ret = acl_errf(-EINVAL, "size must be non-zero");
	return ret ? ret : acl_cur_dev(&dev);
}

ACL_EXPORT aclError aclrtMemFlush(void *devPtr, size_t size)
{
	return acl_ret(__func__, acl_cache_sync(devPtr, size));
}

ACL_EXPORT aclError aclrtMemInvalidate(void *devPtr, size_t size)
{
	return acl_ret(__func__, acl_cache_sync(devPtr, size));
}

ACL_EXPORT aclError aclrtCmoAsync(void *src, size_t size, aclrtCmoType cmoType, aclrtStream stream)
{
	struct acl_stream *s;
	int ret;

	ret = acl_enter(NULL, src);
	if (ret)
		goto out;
	if (!size) {
		ret = acl_errf(-EINVAL, "size must be non-zero");
		goto out;
	}
	/* CANN's rtCmoAsync answers both without recording them */
	if (!(acl_chip_features() & ACL_SOC_TASK_CMO)) {
		ret = acl_errf(ACLI_ERTNOTSUPP, "the chip has no CMO tasks (CANN: RT_FEATURE_TASK_CMO, the 910B class)");
		goto out;
	}
	if (!acl_cmo_type_ok(cmoType)) {
		ret = acl_errf(ACLI_ERTNOTSUPP, "cmoType %d is not PREFETCH, WRITEBACK, INVALID or FLUSH",
			       (int)cmoType);
		goto out;
	}
	ret = acl_stream_resolve(stream, ACL_STREAM_OWN, &s);
	if (ret)
		goto out;
	ret = acl_stream_touch(s, src, size);
	acl_stream_put(s);
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtCmoGetDescSize(size_t *size)
{
	int ret = acl_check_init();

	/* no acl-layer check: the runtime's chip check, then its NULL check (107000) */
	if (!ret && !(acl_chip_features() & ACL_SOC_TASK_CMO))
		ret = acl_setlast(acl_errf(ACLI_ERTNOTSUPP, "the chip has no CMO descriptors (CANN: RT_FEATURE_TASK_CMO, the 910B class)"));
	if (!ret && !size)
		ret = acl_errf(ACLI_ERTPARAM, "size must not be NULL");
	if (!ret)
		*size = sizeof(struct acl_cmo_desc);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtCmoSetDesc(void *cmoDesc, void *src, size_t size)
{
	const struct acl_shape sh = { .dpitch = 32, .spitch = 32, .width = 32, .height = 1 };
	struct acl_cmo_desc d = { .len_inner = (uint32_t)size, .src = (uintptr_t)src };
	struct acl_device *cur;
	int ret;

	ret = acl_check_init();
	if (ret)
		goto out;
	if (!(acl_chip_features() & ACL_SOC_TASK_CMO)) {
		ret = acl_setlast(acl_errf(ACLI_ERTNOTSUPP, "the chip has no CMO descriptors (CANN: RT_FEATURE_TASK_CMO, the 910B class)"));
		goto out;
	}
	if (!cmoDesc || !src || !size) {
		ret = acl_errf(ACLI_ERTPARAM, "%s", !cmoDesc ? "cmoDesc must not be NULL" :
			       !src ? "src must not be NULL" : "size must be non-zero");
		goto out;
	}
	ret = acl_cur_dev(&cur);
	/* a synchronous copy into the descriptor, wherever it is, as CANN's MemCopySync */
	if (!ret)
		ret = acl_copy_shape(cur, NULL, cmoDesc, &d, &sh, ACL_MEMCPY_DEFAULT, ACL_DIR_ALL);
out:
	return acl_ret(__func__, ret);
}

/* The descriptor at *@arg, read when the engine gets there, and its task. */
static int acl_cmo_desc_task(struct acl_device *dev, struct acl_stream *s, const void *arg)
{
	const void *desc = *(const void *const *)arg;
	struct acl_cmo_desc d;
	int ret;

	ret = acl_read_at(dev, s, desc, &d, sizeof(d));
	/* a descriptor of no bytes is no work */
	if (!ret && d.len_inner)
		ret = acl_touch_at(dev, s, (const void *)(uintptr_t)d.src, d.len_inner);
	return ret;
}

ACL_EXPORT aclError aclrtCmoAsyncWithDesc(void *cmoDesc, aclrtCmoType cmoType, aclrtStream stream,
					  const void *reserve)
{
	struct acl_stream *s = NULL;
	int ret;

	/* no acl-layer checks: every answer is the runtime's */
	ret = acl_check_init();
	if (!ret && reserve)
		ret = acl_errf(ACLI_ERTPARAM, "reserve must be NULL");
	/* the chip's descriptor size is 0 (CANN: cmoDDRStructInfoSize) */
	if (!ret && !(acl_chip_features() & ACL_SOC_TASK_CMO))
		ret = acl_setlast(acl_errf(ACLI_ERTNOTSUPP, "the chip has no CMO descriptors (CANN: RT_FEATURE_TASK_CMO, the 910B class)"));
	if (!ret)
		ret = acl_stream_resolve(stream, ACL_STREAM_USE, &s);
	if (!ret && !cmoDesc)
		ret = acl_errf(ACLI_ERTPARAM, "cmoDesc must not be NULL");
	if (!ret && !acl_cmo_type_ok(cmoType))
		ret = acl_errf(ACLI_ERTPARAM, "cmoType %d is not PREFETCH, WRITEBACK, INVALID or FLUSH",
			       (int)cmoType);
	if (ret)
		goto out;
	acl_stream_put(s);
	s = NULL;
	ret = acl_stream_resolve(stream, ACL_STREAM_OWN, &s);
	if (!ret)
		ret = acl_stream_deferred(s, acl_cmo_desc_task, &cmoDesc, sizeof(cmoDesc));
out:
	if (s)
		acl_stream_put(s);
	return acl_ret(__func__, ret);
}

/* The entry of barrier @id in @ctx->barriers, or NULL; ctx->lock held. */
static struct acl_cmo_barrier *acl_cmo_barrier_find(struct acl_context *ctx, uint32_t id)
{
	unsigned int i;

	for (i = 0; i < ctx->nbarriers; i++)
		if (ctx->barriers[i].id == id)
			return &ctx->barriers[i];
	return NULL;
}

/* Barrier @id of @ctx is carried by seqno @seq of kernel stream @sid from now on. */
static int acl_cmo_barrier_set(struct acl_context *ctx, uint32_t id, uint32_t sid, uint64_t seq)
{
	struct acl_cmo_barrier *b, *n;
	unsigned int cap;
	int ret = 0;

	pthread_mutex_lock(&ctx->lock);
	b = acl_cmo_barrier_find(ctx, id);
	if (!b && ctx->nbarriers == ACL_CMO_BARRIER_IDS) {
		ret = acl_errf(ACLI_ERESALLOC, "the context carries %u barrier ids already: no CMO id left for %u",
			       ACL_CMO_BARRIER_IDS, id);
	} else if (!b && ctx->nbarriers == ctx->barriers_cap) {
		cap = ctx->barriers_cap ? ctx->barriers_cap * 2 : 8;
		n = realloc(ctx->barriers, cap * sizeof(*n));
		if (n) {
			ctx->barriers = n;
			ctx->barriers_cap = cap;
		} else {
			ret = acl_errf(-ENOMEM, "out of host memory");
		}
	}
	if (!ret) {
		if (!b)
			b = &ctx->barriers[ctx->nbarriers++];
		*b = (struct acl_cmo_barrier){ .id = id, .sid = sid, .seq = seq };
	}
	pthread_mutex_unlock(&ctx->lock);
	return ret;
}

/*
 * The runtime's checks of aclrtCmoAsyncWithBarrier (rtsCmoAsyncWithBarrier):
 * the chip, the size, then the id the operation takes (INVALID a non-zero
 * one, the other three 0); an unknown operation is not supported. CANN
 * records all of them.
 */
static int acl_cmo_barrier_check(size_t size, aclrtCmoType type, uint32_t barrierId)
{
	if (!(acl_chip_features() & ACL_SOC_ASYNC_CMO))
		return acl_setlast(acl_errf(ACLI_ERTNOTSUPP, "the chip has no barrier CMO tasks (CANN: RT_FEATURE_TASK_ASYNC_CMO, the 310B class)"));
	if (!size)
		return acl_errf(ACLI_ERTPARAM, "size must be non-zero");
	if (!acl_cmo_type_ok(type))
		return acl_setlast(acl_errf(ACLI_ERTNOTSUPP, "cmoType %d is not PREFETCH, WRITEBACK, INVALID or FLUSH",
					    (int)type));
	if (type == ACL_CMO_BARRIER_TYPE && !barrierId)
		return acl_errf(ACLI_ERTPARAM, "an INVALID task's barrierId must be non-zero");
	if (type != ACL_CMO_BARRIER_TYPE && barrierId)
		return acl_errf(ACLI_ERTPARAM, "barrierId %u: only an INVALID task carries one (0 for the others)",
				barrierId);
	return 0;
}

ACL_EXPORT aclError aclrtCmoAsyncWithBarrier(void *src, size_t size, aclrtCmoType cmoType, uint32_t barrierId,
					     aclrtStream stream)
{
	struct npu_cmd cmd = { .op = NPU_OP_PREFETCH, .dst = (uintptr_t)src, .length = size };
	struct acl_stream *s;
	uint32_t sid;
	uint64_t seq;
	int ret;

	ret = acl_enter(NULL, src);
	if (!ret)
		ret = acl_cmo_barrier_check(size, cmoType, barrierId);
	if (!ret)
		ret = acl_stream_resolve(stream, ACL_STREAM_OWN, &s);
	if (ret)
		goto out;
	ret = acl_stream_submit_at(s, &cmd, 1, &sid, &seq);
	if (!ret && barrierId)
		ret = acl_cmo_barrier_set(s->ctx, barrierId, sid, seq);
	acl_stream_put(s);
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtCmoWaitBarrier(aclrtBarrierTaskInfo *taskInfo, aclrtStream stream, uint32_t flag)
{
	struct acl_cmo_barrier want[ACL_RT_CMO_MAX_BARRIER_NUM], *b;
	struct npu_cmd cmd = { .op = NPU_OP_WAIT_STREAM };
	struct acl_stream *s = NULL;
	size_t i, n;
	uint32_t own;
	int ret;

	/* reserved: CANN passes it on and its barrier task ignores it */
	(void)flag;
	ret = acl_enter(NULL, taskInfo);
	if (ret)
		goto out;
	n = taskInfo->barrierNum;
	if (!n || n > ACL_RT_CMO_MAX_BARRIER_NUM) {
		ret = acl_errf(-EINVAL, "taskInfo->barrierNum %zu must be 1..%u", n, ACL_RT_CMO_MAX_BARRIER_NUM);
		goto out;
	}
	for (i = 0; i < n; i++) {
		const aclrtBarrierCmoInfo *c = &taskInfo->cmoInfo[i];

		if (c->cmoType != ACL_CMO_BARRIER_TYPE || !c->barrierId) {
			ret = acl_errf(ACLI_ERTPARAM, "taskInfo->cmoInfo[%zu]: %s", i,
				       c->cmoType != ACL_CMO_BARRIER_TYPE ? "cmoType must be ACL_RT_CMO_TYPE_INVALID" :
				       "barrierId must be non-zero");
			goto out;
		}
	}
	if (!(acl_chip_features() & ACL_SOC_ASYNC_CMO)) {
		ret = acl_setlast(acl_errf(ACLI_ERTNOTSUPP, "the chip has no barrier CMO tasks (CANN: RT_FEATURE_TASK_ASYNC_CMO, the 310B class)"));
		goto out;
	}
	ret = acl_stream_resolve(stream, ACL_STREAM_OWN, &s);
	if (ret)
		goto out;
	/* every id first, as CANN's barrier task takes its CMO ids: one unknown fails the call */
	pthread_mutex_lock(&s->ctx->lock);
	for (i = 0; i < n && !ret; i++) {
		b = acl_cmo_barrier_find(s->ctx, taskInfo->cmoInfo[i].barrierId);
		if (b)
			want[i] = *b;
		else
			ret = acl_errf(ACLI_ESTREAMMODEL, "barrierId %u: no CMO task of this context carried it (aclrtCmoAsyncWithBarrier)",
				       taskInfo->cmoInfo[i].barrierId);
	}
	pthread_mutex_unlock(&s->ctx->lock);
	own = acl_stream_id(s);
	for (i = 0; i < n && !ret; i++) {
		/* the stream's own task is before anything it queues from now on */
		if (want[i].sid == own)
			continue;
		cmd.src = want[i].sid;
		cmd.value = want[i].seq;
		ret = acl_stream_submit(s, &cmd, 1, NULL);
		if (!ret) {
			acl_stream_note_dep(s, want[i].sid, want[i].seq);
		} else if (ret == -ENOENT) {
			/* the carrying stream is gone, its work done or dropped: nothing to wait for */
			acl_err_clear();
			ret = 0;
		}
	}
out:
	if (s)
		acl_stream_put(s);
	return acl_ret(__func__, ret);
}
