/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npu: device memory exported as dma-buf.
 */
#ifndef __NPU_DMABUF_H__
#define __NPU_DMABUF_H__

#include <uapi/npu.h>

struct dma_buf;
struct npu_context;
struct npu_devmem;
struct npu_handle;

/**
 * struct npu_dmabuf_export_args - DMABUF_EXPORT as the ioctl table holds it
 * @uapi: the user's struct, copied in and (on success) out
 * @dmabuf: the new dma-buf, its file not yet in the fd table: npu_ioctl()
 *	calls npu_dmabuf_export_finish() once @uapi is copied out
 */
struct npu_dmabuf_export_args {
	struct npu_dmabuf_export uapi;
	struct dma_buf *dmabuf;
};

int npu_dmabuf_export_ioctl(struct npu_context *ctx, void *arg);
void npu_dmabuf_export_finish(struct npu_context *ctx, void *arg, int ret);
struct npu_handle *npu_dmabuf_slice(struct dma_buf *dmabuf,
				    struct npu_devmem *mem);

#endif /* __NPU_DMABUF_H__ */
