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
 * (copy.h: acl_stream_read()), as the engine does.
 *
 * The checks and codes are CANN's for the 910B class (runtime
 * api_c_standard_soc.cc rtCmoAsync/rtCmoAddrTaskLaunch, api_error.cc,
 * api_impl_standard_soc.cc FlushCache/InvalidCache): the chip has
 * RT_FEATURE_TASK_CMO but not RT_FEATURE_TASK_ASYNC_CMO, so the barrier
 * calls answer ACL_ERROR_RT_FEATURE_NOT_SUPPORT once their arguments pass.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <acl/acl.h>

#include "context.h"
#include "copy.h"
#include "device.h"
#include "error.h"
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
	/* CANN's rtCmoAsync answers an unknown operation without recording it */
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

	/* no acl-layer check: the runtime's NULL check (107000) */
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

ACL_EXPORT aclError aclrtCmoAsyncWithDesc(void *cmoDesc, aclrtCmoType cmoType, aclrtStream stream,
					  const void *reserve)
{
	struct acl_stream *s = NULL;
	struct acl_cmo_desc d;
	int ret;

	/* no acl-layer checks: every answer is the runtime's */
	ret = acl_check_init();
	if (!ret && reserve)
		ret = acl_errf(ACLI_ERTPARAM, "reserve must be NULL");
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
		ret = acl_stream_read(s, cmoDesc, &d, sizeof(d));
	/* a descriptor of no bytes is no work */
	if (!ret && d.len_inner)
		ret = acl_stream_touch(s, (const void *)(uintptr_t)d.src, d.len_inner);
out:
	if (s)
		acl_stream_put(s);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtCmoAsyncWithBarrier(void *src, size_t size, aclrtCmoType cmoType, uint32_t barrierId,
					     aclrtStream stream)
{
	int ret;

	(void)size;
	(void)cmoType;
	(void)barrierId;
	(void)stream;
	ret = acl_enter(NULL, src);
	/* the runtime's first check, before its arguments, recorded */
	if (!ret)
		ret = acl_setlast(acl_errf(ACLI_ERTNOTSUPP, "the simulated chip has no barrier CMO tasks (CANN: RT_FEATURE_TASK_ASYNC_CMO, not on the 910B class)"));
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtCmoWaitBarrier(aclrtBarrierTaskInfo *taskInfo, aclrtStream stream, uint32_t flag)
{
	size_t i;
	int ret;

	(void)stream;
	(void)flag;
	ret = acl_enter(NULL, taskInfo);
	if (ret)
		goto out;
	if (!taskInfo->barrierNum || taskInfo->barrierNum > ACL_RT_CMO_MAX_BARRIER_NUM) {
		ret = acl_errf(-EINVAL, "taskInfo->barrierNum %zu must be 1..%u", taskInfo->barrierNum,
			       ACL_RT_CMO_MAX_BARRIER_NUM);
		goto out;
	}
	for (i = 0; i < taskInfo->barrierNum; i++) {
		const aclrtBarrierCmoInfo *c = &taskInfo->cmoInfo[i];

		if (c->cmoType != ACL_CMO_BARRIER_TYPE || !c->barrierId) {
			ret = acl_errf(ACLI_ERTPARAM, "taskInfo->cmoInfo[%zu]: %s", i,
				       c->cmoType != ACL_CMO_BARRIER_TYPE ? "cmoType must be ACL_RT_CMO_TYPE_INVALID" :
				       "barrierId must be non-zero");
			goto out;
		}
	}
	ret = acl_setlast(acl_errf(ACLI_ERTNOTSUPP, "the simulated chip has no barrier CMO tasks (CANN: RT_FEATURE_TASK_ASYNC_CMO, not on the 910B class)"));
out:
	return acl_ret(__func__, ret);
}
