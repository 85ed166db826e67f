// SPDX-License-Identifier: MIT
/*
 * aclrtMemsetD32(Async): a 32-bit pattern into N consecutive words of an
 * aclrtMalloc* or aclrtMallocHost* allocation. Device memory is filled by
 * the DMA engine (NPU_OP_FILL32) in stream order; host memory by the CPU,
 * before the call returns.
 */
#include <errno.h>
#include <stdint.h>

#include <acl/acl.h>

#include "context.h"
#include "copy.h"
#include "device.h"
#include "error.h"
#include "mm.h"
#include "model.h"
#include "snapstate.h"
#include "stream.h"

/* Where the words to fill are: an allocation of @dev, device or host memory. */
struct acl_fill_target {
	struct acl_device *dev;
	bool host;
};

/* > 0: nothing to do (N 0); else 0 or an error, checks in the spec's order. */
static int acl_d32_args(void *ptr, size_t memSize, size_t N)
{
	int ret;

	if (!N)
		return 1;
	ret = acl_check_init();
	if (ret)
		return ret;
	if (!ptr)
		return acl_errf(-EINVAL, "ptr must not be NULL");
	if ((uintptr_t)ptr % sizeof(uint32_t))
		return acl_errf(-EINVAL, "ptr %p is not 4-byte aligned", ptr);
	if (N > SIZE_MAX / sizeof(uint32_t) || memSize < N * sizeof(uint32_t))
		return acl_errf(-EINVAL, "memSize %zu is less than N %zu words (%zu * 4 bytes)", memSize, N, N);
	/* device work follows: it waits while the process is locked for a snapshot */
	acl_snap_gate();
	return 0;
}

/*
 * The aclrtMalloc* (device) or aclrtMallocHost* (host) allocation of an
 * open device that holds all of [@p, +@len): the memory layer says which
 * reservation or registration holds @p, and whether the library made it
 * for one of those calls.
 */
static int acl_fill_find(const void *p, size_t len, struct acl_fill_target *t)
{
	uint64_t addr = (uintptr_t)p;
	struct acl_device *dev;
	struct acl_mem_info q;
	int pos = 0;

	while ((dev = acl_dev_iter(&pos))) {
		int kind;

		if (acl_mm_query(dev, addr, &q) || q.kind == NPU_ADDR_NONE)
			continue;
		kind = q.kind == NPU_ADDR_DEVICE ? ACL_REGION_MALLOC : ACL_REGION_HOST_ALLOC;
		if (q.rkind != kind || q.rbase != q.base)
			continue;
		if (addr + len < addr || addr + len > q.rbase + q.rlen)
			return acl_errf(-EINVAL, "ptr %p + %zu bytes runs past the end of its allocation (%#llx + %llu)",
					p, len, (unsigned long long)q.rbase,
					(unsigned long long)q.rlen);
		acl_err_clear();
		t->dev = dev;
		t->host = kind == ACL_REGION_HOST_ALLOC;
		return 0;
	}
	acl_err_clear();
	return acl_errf(-EINVAL, "ptr %p is not memory of aclrtMalloc* or aclrtMallocHost* (of an open device)", p);
}

static void acl_fill32_host(void *p, uint32_t value, size_t n)
{
	uint32_t *w = p;
	size_t i;

	for (i = 0; i < n; i++)
		w[i] = value;
}

/* @stream NULL: the synchronous form. */
static int acl_memset_d32(struct acl_stream *stream, void *ptr, uint32_t value, size_t N)
{
	size_t len = N * sizeof(uint32_t);
	struct acl_fill_target t = { NULL, false };
	struct npu_cmd cmd = {
		.op = NPU_OP_FILL32,
		.dst = (uintptr_t)ptr,
		.length = len,
		.value = value,
	};
	int ret;

	ret = acl_fill_find(ptr, len, &t);
	if (ret)
		return ret;
	if (t.host || (stream && stream->dev != t.dev)) {
		/* after the stream's earlier work, done when the call returns */
		if (stream)
			ret = acl_capture_sync_step(stream);
		if (ret)
			return ret;
		if (t.host) {
			acl_fill32_host(ptr, value, N);
			return 0;
		}
		/* another device's memory: that device fills it */
		stream = NULL;
	}
	if (stream)
		return acl_stream_launch(stream, &cmd, 1);
	return acl_cmds_sync(t.dev, &cmd, 1);
}

ACL_EXPORT aclError aclrtMemsetD32(void *ptr, size_t memSize, uint32_t value, size_t N)
{
	struct acl_device *dev;
	int ret = acl_d32_args(ptr, memSize, N);

	/* a current context, as aclrtMemset needs */
	if (!ret)
		ret = acl_cur_dev(&dev);
	if (!ret)
		ret = acl_memset_d32(NULL, ptr, value, N);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtMemsetD32Async(void *ptr, size_t memSize, uint32_t value, size_t N,
					aclrtStream stream)
{
	struct acl_stream *s;
	int ret = acl_d32_args(ptr, memSize, N);

	if (!ret)
		ret = acl_stream_resolve(stream, ACL_STREAM_OWN, &s);
	if (!ret) {
		ret = acl_memset_d32(s, ptr, value, N);
		acl_stream_put(s);
	}
	return acl_ret(__func__, ret);
}
