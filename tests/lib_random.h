/* SPDX-License-Identifier: MIT */
/*
 * aclrtRandomNumTaskInfo for the tests of random-number tasks (launched,
 * captured, updated): parameters given by value or by address.
 */
#ifndef LIB_RANDOM_H
#define LIB_RANDOM_H

#include <stdint.h>
#include <string.h>

#include <acl/acl.h>

#define UNIFORM	ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS
#define NORMAL	ACL_RT_RANDOM_NUM_FUNC_TYPE_NORMAL_DIS
#define TNORMAL	ACL_RT_RANDOM_NUM_FUNC_TYPE_TRUNCATED_NORMAL_DIS
#define DROPOUT	ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK

static inline void para(aclrtRandomParaInfo *p, uint64_t v, uint8_t size)
{
	memset(p, 0, sizeof(*p));
	memcpy(p->valueOrAddr, &v, 8);
	p->size = size;
}

static inline void para_addr(aclrtRandomParaInfo *p, const void *addr)
{
	para(p, (uintptr_t)addr, 8);
	p->isAddr = 1;
}

/* A task of @f over type @t: parameters @p0, @p1 of @size bytes, @num values into @out. */
static inline aclrtRandomNumTaskInfo task(aclDataType t, aclrtRandomNumFuncType f, uint64_t p0, uint64_t p1,
					  uint8_t size, uint64_t seed, uint64_t num, void *out, void *ctr)
{
	aclrtRandomNumTaskInfo ti;

	memset(&ti, 0, sizeof(ti));
	ti.dataType = t;
	ti.randomNumFuncParaInfo.funcType = f;
	para(&ti.randomNumFuncParaInfo.paramInfo.uniformDisInfo.min, p0, size);
	if (f != DROPOUT)
		para(&ti.randomNumFuncParaInfo.paramInfo.uniformDisInfo.max, p1, size);
	para(&ti.randomSeed, seed, 8);
	para(&ti.randomNum, num, 8);
	ti.randomResultAddr = out;
	ti.randomCounterAddr = ctr;
	return ti;
}

#endif /* LIB_RANDOM_H */
