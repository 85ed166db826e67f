/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npu: SUBMIT - commands onto a stream.
 */
#ifndef __NPU_SUBMIT_H__
#define __NPU_SUBMIT_H__

struct npu_context;

int npu_submit_ioctl(struct npu_context *ctx, void *arg);

#endif /* __NPU_SUBMIT_H__ */
