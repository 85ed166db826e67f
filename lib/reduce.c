// SPDX-License-Identifier: MIT
/*
 * aclrtReduceAsync: a copy that reduces into its destination, queued on a
 * stream like any copy (one NPU_OP_REDUCE; the engine does the
 * arithmetic, kernel/npu_reduce.c).
 *
 * The checks, their order and codes are the vendor's (acl layer:
 * src/acl/aclrt_impl/memory.cpp aclrtReduceAsyncImpl and its type map;
 * runtime: api_error.cc ReduceAsync, memory_stars.cc CheckReduceCapability
 * and the alignment check of SubmitReduceTask), and so is what the chip
 * has: the 910B-class parts and the simulated chip (ACL_SOC_SDMA_REDUCE,
 * the driver's CHIP_CLOUD_V2 capabilities) reduce SUM, MAX and MIN of six
 * types. npu models no other part's reduce (the 910's and 310P's SUM-only
 * path, the 950's EQUAL): there every call is
 * ACL_ERROR_RT_FEATURE_NOT_SUPPORT. Where the vendor does not check,
 * npu's choices: count must be whole elements (ACL_ERROR_RT_PARAM_INVALID),
 * and the operands are a copy's (lib/README.md).
 */
#include <errno.h>
#include <stdint.h>

#include <acl/acl.h>

#include "context.h"
#include "copy.h"
#include "error.h"
#include "query.h"
#include "stream.h"

#define ACL_REDUCE_SUM_MAX	(4ULL << 30)	/* the vendor's MAX_MEMCPY_SIZE_OF_D2D */

/* The acl layer's types (its kMapDataType), with what the simulated engine does with them. */
static const struct {
	aclDataType type;
	uint32_t elem;		/* bytes; 0 for a type no chip here reduces */
	uint32_t npu;		/* NPU_REDUCE_TYPE_* */
} acl_reduce_types[] = {
	{ ACL_FLOAT, 4, NPU_REDUCE_TYPE_FP32 },
	{ ACL_FLOAT16, 2, NPU_REDUCE_TYPE_FP16 },
	{ ACL_INT16, 2, NPU_REDUCE_TYPE_INT16 },
	{ ACL_INT4, 0, 0 },
	{ ACL_INT8, 1, NPU_REDUCE_TYPE_INT8 },
	{ ACL_INT32, 4, NPU_REDUCE_TYPE_INT32 },
	{ ACL_BF16, 2, NPU_REDUCE_TYPE_BF16 },
	{ ACL_UINT8, 0, 0 },
	{ ACL_UINT16, 0, 0 },
	{ ACL_UINT32, 0, 0 },
};

/* The runtime's checks after the acl layer's: 0, or why the call fails. */
static int acl_reduce_check(const void *dst, const void *src, uint64_t count, aclrtReduceKind kind,
			    uint32_t elem)
{
	if (!count)
		return acl_errf(ACLI_ERTPARAM, "count must be non-zero");
	if (kind < ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM || kind > ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL)
		return acl_errf(ACLI_ERTPARAM, "kind %d is not an aclrtReduceKind (10..13)", (int)kind);
	if (kind == ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM && count > ACL_REDUCE_SUM_MAX)
		return acl_errf(ACLI_ERTPARAM, "count %llu: a SUM reduces at most 4 GiB",
				(unsigned long long)count);
	if (!(acl_chip_features() & ACL_SOC_SDMA_REDUCE))
		return acl_errf(ACLI_ERTNOTSUPP, "npu models the SDMA reduce of the 910B-class chips only");
	if (kind == ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL)
		return acl_errf(ACLI_ERTNOTSUPP, "kind EQUAL: the chip's SDMA engine reduces SUM, MAX and MIN");
	if (!elem)
		return acl_errf(ACLI_ERTNOTSUPP, "the chip's SDMA engine reduces ACL_INT8, ACL_INT16, ACL_INT32, ACL_FLOAT16, ACL_FLOAT and ACL_BF16 only");
	/* bytes (elem 1) need no alignment */
	if ((uintptr_t)src % elem || (uintptr_t)dst % elem)
		return acl_errf(ACLI_EUNALIGNED, "%s %p must be %u-byte aligned for its type",
				(uintptr_t)src % elem ? "src" : "dst",
				(uintptr_t)src % elem ? src : dst, elem);
	if (count % elem)
		return acl_errf(ACLI_ERTPARAM, "count %llu is not a whole number of %u-byte elements",
				(unsigned long long)count, elem);
	return 0;
}

ACL_EXPORT aclError aclrtReduceAsync(void *dst, const void *src, uint64_t count, aclrtReduceKind kind,
				     aclDataType type, aclrtStream stream, void *reserve)
{
	struct acl_stream *s;
	uint32_t elem = 0, npu = 0;
	size_t i, n = sizeof(acl_reduce_types) / sizeof(acl_reduce_types[0]);
	int ret;

	ret = acl_enter(NULL, dst, src);
	if (!ret && reserve)
		ret = acl_errf(-EINVAL, "reserve must be NULL");
	for (i = 0; !ret && i < n && acl_reduce_types[i].type != type; i++)
		;
	if (!ret && i == n)
		ret = acl_errf(-EINVAL, "type %d is not a type the SDMA engine knows", (int)type);
	if (ret)
		goto out;
	elem = acl_reduce_types[i].elem;
	npu = acl_reduce_types[i].npu;
	/* the stream (107017, 107002, 107003) is the runtime's first check */
	ret = acl_stream_resolve(stream, ACL_STREAM_OWN, &s);
	if (ret)
		goto out;
	ret = acl_reduce_check(dst, src, count, kind, elem);
	/* kinds SUM, MAX, MIN are NPU_REDUCE_OP_* 0, 1, 2 */
	if (!ret)
		ret = acl_stream_reduce(s, dst, src, count,
					(uint32_t)(kind - ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM) << 8 | npu);
	acl_stream_put(s);
out:
	return acl_ret(__func__, ret);
}
