/* SPDX-License-Identifier: GPL-2.0 */
/* The engine's reduce arithmetic (npu_reduce.c). */
#ifndef NPU_REDUCE_H
#define NPU_REDUCE_H

#include <linux/types.h>
#include <uapi/npu.h>

u32 npu_reduce_elem(u32 flags);
void npu_reduce_fn(void *dst, const void *src, size_t n, void *arg);

#endif /* NPU_REDUCE_H */
