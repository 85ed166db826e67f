/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npu: dma-bufs imported as physical handles (DMABUF_IMPORT).
 */
#ifndef __NPU_DMABUF_IMPORT_H__
#define __NPU_DMABUF_IMPORT_H__

#include <linux/dma-direction.h>
#include <linux/list.h>
#include <linux/types.h>

struct dma_buf;
struct dma_buf_attachment;
struct npu_context;
struct npu_handle;
struct sg_table;

/**
 * struct npu_import - another driver's dma-buf as a handle of a context
 * @dmabuf: the buffer (a reference, held until the import is freed)
 * @attach: the NPU's dynamic attachment to it; detached when the import
 *	is killed (@node unlinked)
 * @sgt: the buffer's DMA mapping for the NPU, or NULL while there is none
 *	(after a move, until an access or a MAP maps it again); under the
 *	dma-buf's reservation lock
 * @dir: the direction it is mapped in
 * @ctx: the importing context (a reference to the struct)
 * @node: in @ctx->imports while the attachment exists (under
 *	@ctx->import_lock, which is held while the import is killed)
 * @dead: killed: never mapped again (set under the reservation lock,
 *	read without it by the VA space's translation)
 * @valid: the VA space's: the entries of every mapping of the handle name
 *	@sgt's addresses, so translations through them are good (set under
 *	the VA space's lock, cleared under its mirror lock)
 * @mappings: the VA space's: the handle's mappings (npu_mapping.import_node,
 *	under the VA space's lock)
 * @moves: how often the exporter moved the buffer (tests, tracing)
 */
struct npu_import {
	struct dma_buf *dmabuf;
	struct dma_buf_attachment *attach;
	struct sg_table *sgt;
	enum dma_data_direction dir;
	struct npu_context *ctx;
	struct list_head node;
	bool dead;
	bool valid;
	struct list_head mappings;
	unsigned long moves;
};

int npu_dmabuf_import_ioctl(struct npu_context *ctx, void *arg);
int npu_import_map_begin(struct npu_import *imp);
void npu_import_map_end(struct npu_import *imp);
int npu_import_fault(struct npu_handle *handle, const char **why);
void npu_import_free(struct npu_import *imp);
void npu_imports_release(struct npu_context *ctx);

#endif /* __NPU_DMABUF_IMPORT_H__ */
