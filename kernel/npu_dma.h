/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npu: the DMA engine's data path - operands reached through the device
 * MMU and the IOMMU, a piece at a time.
 */
#ifndef __NPU_DMA_H__
#define __NPU_DMA_H__

#include <linux/types.h>

struct npu_context;
struct npu_device;
struct npu_host_reg;
struct npu_job;
struct npu_stream;

/**
 * struct npu_dma_operand - one operand of a command
 * @addr: device VA, or user address inside @reg
 * @ctx: the context whose VA space @addr is in: the stream's, or a peer's
 *	on another device
 * @reg: host registration (or a pageable operand's pins), or NULL for a
 *	device VA
 * @write: the engine writes through it
 */
struct npu_dma_operand {
	u64 addr;
	struct npu_context *ctx;
	struct npu_host_reg *reg;
	bool write;
};

/**
 * struct npu_dma_row - one row of a row list: a descriptor of a list the
 *	engine walks (COPY_BATCH)
 * @dst: destination operand offset (with the operand at 0: the address)
 * @src: the same for the source
 * @len: bytes
 * @dst_reg: the registration @dst lies in, if it is host memory
 * @src_reg: the same for @src
 */
struct npu_dma_row {
	u64 dst;
	u64 src;
	u64 len;
	struct npu_host_reg *dst_reg;
	struct npu_host_reg *src_reg;
};

/**
 * struct npu_dma_shape - the bytes a command moves, as rows
 * @width: bytes of each row
 * @height: rows, at least 1
 * @dst_pitch: operand offset from one destination row to the next
 * @src_pitch: the same for the source
 * @rows: or, with operands at 0, @height rows each of its own place,
 *	length and registrations (@width and the pitches unused)
 * @elem: 0, or the size of the elements @fn works on (a power of two up
 *	to 4, dividing @width, the operands aligned to it): no piece
 *	splits one
 *
 * A plain command is one row; COPY_2D's rows have their own pitches. Row i
 * of an operand starts at its offset i * pitch.
 */
struct npu_dma_shape {
	u64 width;
	u64 height;
	u64 dst_pitch;
	u64 src_pitch;
	const struct npu_dma_row *rows;
	u32 elem;
};

/* Applied to each piece: @n bytes at @dst (and @src, for two operands). */
typedef void (*npu_dma_fn)(void *dst, const void *src, size_t n, void *arg);

void npu_dma_copy(void *dst, const void *src, size_t n, void *arg);

int npu_dma_move(struct npu_stream *stream, struct npu_job *job,
		 const struct npu_dma_operand *dst,
		 const struct npu_dma_operand *src,
		 const struct npu_dma_shape *shape, npu_dma_fn fn, void *arg,
		 u64 *budget);
phys_addr_t npu_dma_host_phys(struct npu_device *npu, u64 addr);
int npu_dma_fault(struct npu_stream *stream, u64 addr, bool host, bool write,
		  const char *why);

#endif /* __NPU_DMA_H__ */
