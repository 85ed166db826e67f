/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npu: the data mover of the simulated DMA engine.
 */
#ifndef __NPU_COPY_H__
#define __NPU_COPY_H__

#include <linux/types.h>

void npu_copy(void *dst, const void *src, size_t n);

#endif /* __NPU_COPY_H__ */
