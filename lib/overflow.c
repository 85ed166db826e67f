// SPDX-License-Identifier: MIT
/*
 * The float overflow status of a context (CANN: 64 bytes the AI cores set
 * when a computation overflows). It is device state: ACL_CTX_OVF_WORDS
 * device-visible words of the context (context.h), made on first use, all
 * zero while nothing on the simulated chip computes; the AI-core work
 * will set them. As in CANN (api_impl.cc GetDeviceSatStatus), reading
 * and clearing happen in stream order:
 *   aclrtGetOverflowStatus: one COPY command of the 64 bytes to outputAddr
 *     (memory the stream's device reaches: its own or registered host);
 *   aclrtResetOverflowStatus: one MEMSET command of them to zero.
 * NULL stream: the current context's default stream.
 */
#include <errno.h>
#include <stdint.h>

#include <acl/acl.h>

#include "context.h"
#include "copy.h"
#include "device.h"
#include "error.h"
#include "slots.h"
#include "stream.h"

#define ACL_OVF_SIZE	(ACL_CTX_OVF_WORDS * sizeof(uint64_t))

/* The status words of @ctx, made on first use. */
static int acl_ovf_words(struct acl_context *ctx, uint64_t **out)
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

ACL_EXPORT aclError aclrtGetOverflowStatus(void *outputAddr, size_t outputSize, aclrtStream stream)
{
	struct npu_cmd cmd = { .op = NPU_OP_COPY, .flags = NPU_CMD_SRC_HOST, .length = ACL_OVF_SIZE };
	struct acl_stream *s;
	struct acl_side d;
	uint64_t *w;
	int ret;

	ret = acl_enter(NULL, outputAddr);
	if (!ret)
		ret = acl_stream_resolve(stream, ACL_STREAM_OWN, &s);
	if (ret)
		goto out;
	if (outputSize != ACL_OVF_SIZE) {
		ret = acl_errf(ACLI_ERTPARAM, "outputSize %zu must be %zu", outputSize, (size_t)ACL_OVF_SIZE);
		goto put;
	}
	/* CANN's GetDeviceSatStatus: not in a capture */
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
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtResetOverflowStatus(aclrtStream stream)
{
	struct npu_cmd cmd = { .op = NPU_OP_MEMSET, .flags = NPU_CMD_DST_HOST, .length = ACL_OVF_SIZE };
	struct acl_stream *s;
	uint64_t *w;
	int ret;

	ret = acl_stream_enter(stream, ACL_STREAM_OWN, &s);
	if (ret)
		goto out;
	/* CANN's CleanDeviceSatStatus: not in a capture */
	ret = acl_stream_not_capturing(s, "resetting the overflow status on");
	if (!ret)
		ret = acl_ovf_words(s->ctx, &w);
	if (!ret) {
		cmd.dst = (uintptr_t)w;
		ret = acl_stream_submit(s, &cmd, 1, NULL);
	}
	acl_stream_put(s);
out:
	return acl_ret(__func__, ret);
}
