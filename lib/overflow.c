// SPDX-License-Identifier: MIT
/*
 * The float overflow status of a context (CANN: 64 bytes the AI cores set
 * when a computation overflows). It is device state: ACL_CTX_OVF_WORDS
 * device-visible words of the context (context.h), made on first use,
 * which every kernel launch of the context names (lib/kernel.c): the
 * executor ORs into them what the kernel's blocks set (NPU_OVF_FLOAT: a
 * float or half result overflowed to inf or nan from finite inputs, also
 * when saturating). As in CANN (api_impl.cc GetDeviceSatStatus), reading
 * and clearing happen in stream order:
 *   aclrtGetOverflowStatus: one COPY command of the 64 bytes to outputAddr
 *     (memory the stream's device reaches: its own or registered host);
 *   aclrtResetOverflowStatus: one MEMSET command of them to zero.
 * NULL stream: the current context's default stream. The rts names of
 * the same calls and the 910B class's NPU float status tasks (below) read
 * and clear the same words.
 */
#include <errno.h>
#include <stdint.h>

#include <acl/acl.h>

#include "context.h"
#include "copy.h"
#include "device.h"
#include "error.h"
#include "query.h"
#include "slots.h"
#include "stream.h"

#define ACL_OVF_SIZE	(ACL_CTX_OVF_WORDS * sizeof(uint64_t))

/* The status words of @ctx, made on first use. */
int acl_ovf_words(struct acl_context *ctx, uint64_t **out)
{
	struct acl_device *dev = ctx->dev;
	unsigned int gen;
	uint64_t *w;
	uint32_t idx;
	int ret;

	pthread_mutex_lock(&ctx->lock);
	*out = ctx->ovf;
	pthread_mutex_unlock(&ctx->lock);
	if (*out)
		return 0;
	/* outside ctx->lock: the pool takes dev->lock */
	ret = acl_slots_alloc(dev, &dev->overflow, ACL_CTX_OVF_WORDS, &idx, &w);
	if (ret == -ENOSPC)
		return acl_errf(-ENOMEM, "no room for another context's overflow status on device %d", dev->id);
	if (ret)
		return ret;
	gen = __atomic_load_n(&dev->gen, __ATOMIC_ACQUIRE);
	pthread_mutex_lock(&ctx->lock);
	if (ctx->dying) {
		ret = acl_errf(ACLI_ECTXRELEASE, "the context is being destroyed");
	} else if (!ctx->ovf) {
		ctx->ovf = w;
		ctx->ovf_slot = idx;
		ctx->ovf_gen = gen;
		w = NULL;
	}
	*out = ctx->ovf;
	pthread_mutex_unlock(&ctx->lock);
	/* another thread was first, or the context is going */
	if (w)
		acl_slots_free(dev, &dev->overflow, gen, idx, ACL_CTX_OVF_WORDS);
	return ret;
}

/*
 * GetDeviceSatStatus: the stream (NULL: the default stream), then the
 * runtime's checks of outputAddr and outputSize, not in a capture.
 */
static int acl_ovf_get(void *outputAddr, uint64_t outputSize, aclrtStream stream)
{
	struct npu_cmd cmd = { .op = NPU_OP_COPY, .flags = NPU_CMD_SRC_HOST, .length = ACL_OVF_SIZE };
	struct acl_stream *s;
	struct acl_side d;
	uint64_t *w;
	int ret;

	ret = acl_stream_resolve(stream, ACL_STREAM_OWN, &s);
	if (ret)
		return ret;
	if (!outputAddr)
		ret = acl_errf(ACLI_ERTPARAM, "outputAddr must not be NULL");
	else if (outputSize != ACL_OVF_SIZE)
		ret = acl_errf(ACLI_ERTPARAM, "outputSize %llu must be %zu", (unsigned long long)outputSize,
			       (size_t)ACL_OVF_SIZE);
	else
		ret = acl_stream_not_capturing(s, "reading the overflow status on");
	if (ret)
		goto put;
	ret = acl_classify(s->dev, outputAddr, ACL_OVF_SIZE, true, "outputAddr", &d);
	if (!ret && d.kind != ACL_SIDE_DEVICE && d.kind != ACL_SIDE_PINNED)
		ret = acl_errf(ACLI_ERTPARAM, "outputAddr %p is not memory device %d reaches (its own or registered host memory)",
			       outputAddr, s->dev->id);
	if (!ret)
		ret = acl_ovf_words(s->ctx, &w);
	if (ret)
		goto put;
	cmd.flags |= d.kind == ACL_SIDE_PINNED ? NPU_CMD_DST_HOST : 0;
	cmd.src = (uintptr_t)w;
	cmd.dst = (uintptr_t)outputAddr;
	ret = acl_stream_submit(s, &cmd, 1, NULL);
put:
	acl_stream_put(s);
	return ret;
}

/* CleanDeviceSatStatus: one MEMSET of the words, not in a capture. */
static int acl_ovf_reset(aclrtStream stream)
{
	struct npu_cmd cmd = { .op = NPU_OP_MEMSET, .flags = NPU_CMD_DST_HOST, .length = ACL_OVF_SIZE };
	struct acl_stream *s;
	uint64_t *w;
	int ret;

	ret = acl_stream_enter(stream, ACL_STREAM_OWN, &s);
	if (ret)
		return ret;
	ret = acl_stream_not_capturing(s, "resetting the overflow status on");
	if (!ret)
		ret = acl_ovf_words(s->ctx, &w);
	if (!ret) {
		cmd.dst = (uintptr_t)w;
		ret = acl_stream_submit(s, &cmd, 1, NULL);
	}
	acl_stream_put(s);
	return ret;
}

/* The acl layer checks outputAddr itself, before the runtime (device.cpp). */
ACL_EXPORT aclError aclrtGetOverflowStatus(void *outputAddr, size_t outputSize, aclrtStream stream)
{
	int ret;

	ret = acl_enter(NULL, outputAddr);
	if (!ret)
		ret = acl_ovf_get(outputAddr, outputSize, stream);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtResetOverflowStatus(aclrtStream stream)
{
	return acl_ret(__func__, acl_ovf_reset(stream));
}

/* The same status under the rts names (rtsGetFloatOverflowStatus = rtGetDeviceSatStatus): no acl-layer check. */
ACL_EXPORT aclError aclrtGetFloatOverflowStatus(void *outputAddr, uint64_t outputSize, aclrtStream stream)
{
	int ret;

	ret = acl_check_init();
	if (!ret)
		ret = acl_ovf_get(outputAddr, outputSize, stream);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtResetFloatOverflowStatus(aclrtStream stream)
{
	return acl_ret(__func__, acl_ovf_reset(stream));
}

/* rtCtxGetOverflowAddr: the device address of the current context's words. */
ACL_EXPORT aclError aclrtCtxGetFloatOverflowAddr(void **overflowAddr)
{
	struct acl_context *ctx;
	uint64_t *w;
	int ret;

	ret = acl_check_init();
	if (!ret && !overflowAddr)
		ret = acl_errf(ACLI_ERTPARAM, "overflowAddr must not be NULL");
	if (ret)
		goto out;
	ret = acl_cur_ctx(&ctx);
	if (ret)
		goto out;
	ret = acl_ovf_words(ctx, &w);
	if (!ret)
		*overflowAddr = w;
	acl_ctx_put(ctx);
out:
	return acl_ret(__func__, ret);
}

/*
 * The NPU float status tasks (TS_TASK_TYPE_NPU_GET/CLEAR_FLOAT_STATUS)
 * exist on the chips with RT_FEATURE_DEVICE_FLOAT_STATUS (the 910B and
 * 910_93 classes): ACL_ERROR_RT_FEATURE_NOT_SUPPORT elsewhere, before the
 * stream is looked at. The device keeps one status per context, so they
 * read and clear the same words as the calls above; checkMode is passed
 * to the device's task, which the simulated chip does not distinguish.
 */
static int acl_npu_float_status(void)
{
	int ret;

	ret = acl_check_init();
	if (!ret && !(acl_chip_features() & ACL_SOC_FLOAT_STATUS))
		ret = acl_setlast(acl_errf(ACLI_ERTNOTSUPP,
					   "the chip has no NPU float status task (CANN: RT_FEATURE_DEVICE_FLOAT_STATUS, the 910B class)"));
	return ret;
}

ACL_EXPORT aclError aclrtNpuGetFloatOverFlowStatus(void *outputAddr, uint64_t outputSize, uint32_t checkMode,
						   aclrtStream stream)
{
	int ret;

	(void)checkMode;
	ret = acl_npu_float_status();
	if (!ret)
		ret = acl_ovf_get(outputAddr, outputSize, stream);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtNpuClearFloatOverFlowStatus(uint32_t checkMode, aclrtStream stream)
{
	int ret;

	(void)checkMode;
	ret = acl_npu_float_status();
	if (!ret)
		ret = acl_ovf_reset(stream);
	return acl_ret(__func__, ret);
}
