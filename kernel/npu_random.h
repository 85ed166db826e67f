/* SPDX-License-Identifier: GPL-2.0 */
/* The engine's random numbers (npu_random.c). */
#ifndef NPU_RANDOM_H
#define NPU_RANDOM_H

#include <linux/types.h>
#include <uapi/npu.h>

/**
 * struct npu_random_run - what a RANDOM generates, its values read
 * @func: NPU_RANDOM_*
 * @type: NPU_RANDOM_TYPE_*
 * @param: the distribution's parameters, bits of @type
 * @seed: the key
 * @count: elements
 * @ctr: the counter as the command started, low half first
 * @off: output bytes written so far (npu_random_fn())
 */
struct npu_random_run {
	u32 func;
	u32 type;
	u64 param[2];
	u64 seed;
	u64 count;
	u64 ctr[2];
	u64 off;
};

void npu_philox(const u32 ctr[4], const u32 key[2], u32 out[4]);
u32 npu_random_elem(u32 type);
void npu_random_fn(void *dst, const void *unused, size_t n, void *arg);

#endif /* NPU_RANDOM_H */
