// SPDX-License-Identifier: MIT
/*
 * Copies whose addresses the engine reads from device memory:
 * aclrtGetMemcpyDescSize, aclrtSetMemcpyDesc and aclrtMemcpyAsyncWithDesc
 * (a descriptor: source, destination, length), aclrtMemcpyAsyncWithOffset
 * (two pointers in device memory, each plus an offset).
 *
 * CANN's STARS engine reads the descriptor or the pointers when it runs
 * the task (the SDMA's pointer mode). The driver has no command that does,
 * so the library reads them at the same point of the stream: it waits
 * for the stream's earlier work (acl_stream_deferred()), reads them
 * through the device (acl_read_at()), and queues the copy, which the
 * device translates when it runs (acl_copy_va_at()). Whatever the stream, or a stream or
 * host it waited for, wrote there before is what is read; the call returns
 * once the earlier work is done. An address the device cannot read faults
 * in stream order, as the engine's read would. On a stream that records a
 * model the same happens at each run of the model, a host step of it
 * (acl_stream_deferred()).
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

/*
 * The vendor's descriptor (rtMemcpyAddrInfo, MEMCPY_DESC_SIZE_V1 on the
 * 910B class): the length is 32 bits; 0 stands for 4 GiB, the largest
 * copy it describes.
 */
struct acl_memcpy_desc {
	uint32_t resv[3];
	uint32_t len;
	uint64_t src;
	uint64_t dst;
};

_Static_assert(sizeof(struct acl_memcpy_desc) == 32, "MEMCPY_DESC_SIZE_V1");

#define ACL_DESC_ALIGN		64	/* the engine's: a descriptor is 64-byte aligned */
#define ACL_D2D_MAX		(4ULL << 30)	/* MAX_MEMCPY_SIZE_OF_D2D */
#define ACL_OFFSET_MAX		0xFFFFFFFFFFFFULL	/* a 48-bit offset field */

/* aclrtMemcpyKind as the acl layer range-checks it (RT_MEMCPY_KIND_MAX): 100000. */
static int acl_desc_kind(aclrtMemcpyKind kind)
{
	if ((unsigned int)kind > ACL_MEMCPY_INTER_DEVICE_TO_DEVICE)
		return acl_errf(-EINVAL, "kind %d is not an aclrtMemcpyKind", (int)kind);
	return 0;
}

/* The runtime's answer to a kind the descriptor copies do not take: 207000. */
static int acl_desc_inner(aclrtMemcpyKind kind)
{
	if (kind != ACL_MEMCPY_INNER_DEVICE_TO_DEVICE)
		return acl_errf(ACLI_ERTNOTSUPP, "kind %d: descriptor copies are ACL_MEMCPY_INNER_DEVICE_TO_DEVICE only",
				(int)kind);
	return 0;
}

/* The device whose device memory holds @p (as aclrtPointerGetAttributes says), or -1. */
static int acl_desc_owner(const void *p)
{
	aclrtPtrAttributes a;

	if (aclrtPointerGetAttributes(p, &a) || a.location.type != ACL_MEM_LOCATION_TYPE_DEVICE)
		return -1;
	return (int)a.location.id;
}

static int acl_desc_at(const void *desc)
{
	if (acl_desc_owner(desc) < 0)
		return acl_errf(ACLI_ERTPARAM, "desc %p is not device memory", desc);
	if ((uintptr_t)desc % ACL_DESC_ALIGN)
		return acl_errf(ACLI_ERTPARAM, "desc %p is not %d-byte aligned", desc, ACL_DESC_ALIGN);
	return 0;
}

ACL_EXPORT aclError aclrtGetMemcpyDescSize(aclrtMemcpyKind kind, size_t *descSize)
{
	int ret;

	ret = acl_enter(NULL, descSize);
	if (!ret)
		ret = acl_desc_kind(kind);
	/* CANN's runtime records this one */
	if (!ret && acl_desc_inner(kind))
		ret = acl_setlast(ACLI_ERTNOTSUPP);
	if (!ret)
		*descSize = sizeof(struct acl_memcpy_desc);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtSetMemcpyDesc(void *desc, aclrtMemcpyKind kind, void *srcAddr, void *dstAddr, size_t count,
				       void *config)
{
	const struct acl_shape sh = { .dpitch = 32, .spitch = 32, .width = 32, .height = 1 };
	struct acl_memcpy_desc d = { .len = (uint32_t)count, .src = (uintptr_t)srcAddr, .dst = (uintptr_t)dstAddr };
	struct acl_device *cur;
	int dev_d, dev_s, ret;

	ret = acl_enter(NULL, desc);
	if (!ret)
		ret = acl_desc_kind(kind);
	if (!ret)
		ret = acl_enter(NULL, srcAddr, dstAddr);
	if (ret)
		goto out;
	if (!count || config) {
		ret = acl_errf(-EINVAL, !count ? "count must be non-zero" : "config is reserved and must be NULL");
		goto out;
	}
	ret = acl_desc_inner(kind);
	if (ret)
		goto out;
	if (count > ACL_D2D_MAX) {
		ret = acl_errf(ACLI_ERTPARAM, "count %zu exceeds 4 GiB", count);
		goto out;
	}
	ret = acl_desc_at(desc);
	if (ret)
		goto out;
	dev_d = acl_desc_owner(dstAddr);
	dev_s = acl_desc_owner(srcAddr);
	if (dev_d < 0 || dev_s < 0 || dev_d != dev_s) {
		ret = acl_errf(ACLI_ERTPARAM, "dstAddr %p and srcAddr %p must be device memory of one device (kind INNER_DEVICE_TO_DEVICE): devices %d and %d",
			       dstAddr, srcAddr, dev_d, dev_s);
		goto out;
	}
	ret = acl_cur_dev(&cur);
	/* written as CANN writes it: a synchronous copy into the descriptor */
	if (!ret)
		ret = acl_copy_shape(cur, NULL, desc, &d, &sh, ACL_MEMCPY_HOST_TO_DEVICE, ACL_DIR_H2D);
out:
	return acl_ret(__func__, ret);
}

/* The descriptor at *@arg, read when the engine gets there, and its copy. */
static int acl_desc_copy(struct acl_device *dev, struct acl_stream *s, const void *arg)
{
	const void *desc = *(const void *const *)arg;
	struct acl_memcpy_desc d;
	int ret;

	ret = acl_read_at(dev, s, desc, &d, sizeof(d));
	if (!ret)
		ret = acl_copy_va_at(dev, s, d.dst, d.src, d.len ? d.len : ACL_D2D_MAX);
	return ret;
}

ACL_EXPORT aclError aclrtMemcpyAsyncWithDesc(void *desc, aclrtMemcpyKind kind, aclrtStream stream)
{
	struct acl_stream *s = NULL;
	int ret;

	ret = acl_enter(NULL, desc);
	if (!ret)
		ret = acl_desc_kind(kind);
	if (!ret)
		ret = acl_enter(NULL, stream);
	if (!ret)
		ret = acl_stream_resolve(stream, ACL_STREAM_USE, &s);
	if (!ret)
		ret = acl_desc_inner(kind);
	if (!ret)
		ret = acl_desc_at(desc);
	if (ret)
		goto out;
	/* the stream must be the current context's to take the task */
	acl_stream_put(s);
	s = NULL;
	ret = acl_stream_resolve(stream, ACL_STREAM_OWN, &s);
	if (!ret)
		ret = acl_stream_deferred(s, acl_desc_copy, &desc, sizeof(desc));
out:
	if (s)
		acl_stream_put(s);
	return acl_ret(__func__, ret);
}

/* aclrtMemcpyAsyncWithOffset's operands: two pointers in device memory, their offsets. */
struct acl_offset_copy {
	void **dst;
	const void **src;
	uint64_t doff, soff, count;
};

/* The base addresses at @arg's pointers, read when the engine gets there, and the copy between them. */
static int acl_offset_copy(struct acl_device *dev, struct acl_stream *s, const void *arg)
{
	const struct acl_offset_copy *c = arg;
	uint64_t dbase, sbase;
	int ret;

	ret = acl_read_at(dev, s, c->dst, &dbase, sizeof(dbase));
	if (!ret)
		ret = acl_read_at(dev, s, c->src, &sbase, sizeof(sbase));
	if (!ret)
		ret = acl_copy_va_at(dev, s, dbase + c->doff, sbase + c->soff, c->count);
	return ret;
}

ACL_EXPORT aclError aclrtMemcpyAsyncWithOffset(void **dst, size_t destMax, size_t dstDataOffset, const void **src,
					       size_t count, size_t srcDataOffset, aclrtMemcpyKind kind,
					       aclrtStream stream)
{
	struct acl_offset_copy c = {
		.dst = dst, .src = src, .doff = dstDataOffset, .soff = srcDataOffset, .count = count,
	};
	struct acl_stream *s = NULL;
	int ret;

	if (!count)
		return ACL_SUCCESS;
	ret = acl_check_init();
	if (ret)
		goto out;
	/* from here every check is the runtime's (107000) */
	if (kind != ACL_MEMCPY_INNER_DEVICE_TO_DEVICE) {
		ret = acl_errf(ACLI_ERTPARAM, "kind %d must be ACL_MEMCPY_INNER_DEVICE_TO_DEVICE", (int)kind);
		goto out;
	}
	ret = acl_stream_resolve(stream, ACL_STREAM_USE, &s);
	if (ret)
		goto out;
	if (!dst || !src)
		ret = acl_errf(ACLI_ERTPARAM, "%s must not be NULL", !dst ? "dst" : "src");
	else if (count > destMax || count > ACL_D2D_MAX)
		ret = acl_errf(ACLI_ERTPARAM, "count %zu exceeds %s", count,
			       count > destMax ? "destMax" : "4 GiB");
	else if (srcDataOffset > ACL_OFFSET_MAX || dstDataOffset > ACL_OFFSET_MAX)
		ret = acl_errf(ACLI_ERTPARAM, "%s %zu exceeds 2^48 - 1",
			       srcDataOffset > ACL_OFFSET_MAX ? "srcDataOffset" : "dstDataOffset",
			       srcDataOffset > ACL_OFFSET_MAX ? srcDataOffset : dstDataOffset);
	else if (dstDataOffset >= destMax || count > destMax - dstDataOffset)
		ret = acl_errf(ACLI_ERTPARAM, "dstDataOffset %zu plus count %zu exceeds destMax %zu",
			       dstDataOffset, count, destMax);
	if (ret)
		goto out;
	acl_stream_put(s);
	s = NULL;
	ret = acl_stream_resolve(stream, ACL_STREAM_OWN, &s);
	/* the base addresses: pointers in device memory, read when the stream gets here */
	if (!ret)
		ret = acl_stream_deferred(s, acl_offset_copy, &c, sizeof(c));
out:
	if (s)
		acl_stream_put(s);
	return acl_ret(__func__, ret);
}
