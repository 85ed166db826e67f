/* SPDX-License-Identifier: MIT */
/*
 * include/ascendc/npu_block.h - the block context: the C ABI between a
 * running kernel block and whatever runs it.
 *
 * A kernel built by npu-cc (tools/npu-cc) runs as one call of its entry
 * trampoline per block. Everything the block asks of "the hardware" - its
 * block index and count, its 192 KiB unified buffer (UB), where its printf
 * records go, the overflow bits and the saturation mode - it reads from one
 * struct npu_block_ctx, found through the thread-local pointer
 * npu_block_current. The runtime that runs the block (the executor of
 * Documentation/npu-cc.rst, or a host test in NPU_CPU_DEBUG mode) fills the
 * struct and points npu_block_current at it before the call, on the thread
 * that makes the call.
 *
 * Linkage: kernel_operator.h gives npu_block_current a *weak* definition, so
 * a device binary (a shared object) and a host test link without a runtime.
 * An executor defines it strongly and exports it (-rdynamic); the dynamic
 * linker then binds the device binary's references to the executor's
 * variable (the executable comes first in the lookup scope).
 *
 * Nothing here allocates or locks: a block may be abandoned at any point
 * (siglongjmp out of a fault or trap), so the records a block writes are
 * complete or not counted: a record is written first, then dump_used is
 * advanced past it.
 *
 * Records (dump area, each 8-byte aligned, struct npu_rec then payload):
 *   NPU_REC_PRINTF  the formatted text of one AscendC::printf (no NUL);
 *   NPU_REC_TRAP    the message of a trap the header raised (UB overflow,
 *                   misaligned DataCopy, DeQue of an empty queue, ...).
 * A record that does not fit is dropped and NPU_BLOCK_DUMP_LOST set in flags.
 * The trap message also goes to trap_msg (NUL-terminated, truncated), which
 * needs no dump area.
 */
#ifndef NPU_ASCENDC_NPU_BLOCK_H
#define NPU_ASCENDC_NPU_BLOCK_H

#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Version of this struct; a runtime sets size = sizeof(struct npu_block_ctx). */
#define NPU_BLOCK_CTX_VERSION	1u

/* Size of a block's unified buffer (the 910B class: 192 KiB per vector core). */
#define NPU_UB_SIZE		(192u * 1024u)

/* overflow: sticky bits a block's vector operations set */
#define NPU_OVF_FLOAT		(1u << 0)	/* a float/half result became inf or nan from finite inputs */

/* flags */
#define NPU_BLOCK_DUMP_LOST	(1u << 0)	/* a record did not fit in the dump area */

/* sat_mode */
#define NPU_SAT_OFF		0u	/* inf/nan results as IEEE gives them (overflow bit set) */
#define NPU_SAT_ON		1u	/* results saturate to the finite range, nan -> 0 */

enum npu_rec_kind {
	NPU_REC_PRINTF = 1,
	NPU_REC_TRAP = 2,
};

/* One record in the dump area; len bytes of payload follow, then padding to 8. */
struct npu_rec {
	uint32_t len;		/* payload bytes */
	uint16_t kind;		/* enum npu_rec_kind */
	uint16_t reserved;	/* 0 */
	uint32_t blk_idx;
	uint32_t reserved2;	/* 0 */
};

struct npu_block_ctx {
	uint32_t size;		/* sizeof(struct npu_block_ctx) as the runtime knows it */
	uint32_t version;	/* NPU_BLOCK_CTX_VERSION */
	uint32_t blk_idx;	/* GetBlockIdx(), block_idx */
	uint32_t blk_num;	/* GetBlockNum() */
	uint32_t core_id;	/* the simulated core running the block (informational) */
	uint32_t sat_mode;	/* NPU_SAT_* */
	void *ub;		/* the block's unified buffer, ub_size bytes, 32-byte aligned */
	uint32_t ub_size;	/* NPU_UB_SIZE normally */
	uint32_t overflow;	/* NPU_OVF_* bits, set by the block, read by the runtime */
	char *dump;		/* printf/trap records, or NULL (printf dropped; CPU debug: stdout) */
	uint32_t dump_size;
	uint32_t dump_used;	/* bytes of complete records */
	uint32_t flags;		/* NPU_BLOCK_* */
	uint32_t reserved;	/* 0 */
	char trap_msg[256];	/* why the header trapped, NUL-terminated; "" if it did not */
};

/*
 * The running block's context on this thread, or NULL: then GetBlockIdx() is 0,
 * GetBlockNum() 1, and only NPU_CPU_DEBUG builds have a unified buffer.
 */
extern __attribute__((visibility("default"))) __thread struct npu_block_ctx *npu_block_current;

/*
 * A runner's setup of block idx of num: ub (NPU_UB_SIZE bytes, 32-byte
 * aligned) and the dump area (dump may be NULL); everything else zero.
 */
static inline void npu_block_ctx_init(struct npu_block_ctx *ctx, uint32_t idx, uint32_t num, void *ub,
				      char *dump, uint32_t dump_size)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->size = (uint32_t)sizeof(*ctx);
	ctx->version = NPU_BLOCK_CTX_VERSION;
	ctx->blk_idx = idx;
	ctx->blk_num = num;
	ctx->ub = ub;
	ctx->ub_size = NPU_UB_SIZE;
	ctx->dump = dump;
	ctx->dump_size = dump ? dump_size : 0;
}

/* The dump area's records: first, next (NULL at the end of dump_used). */
static inline const struct npu_rec *npu_rec_first(const struct npu_block_ctx *ctx)
{
	if (!ctx->dump || ctx->dump_used < sizeof(struct npu_rec))
		return (const struct npu_rec *)0;
	return (const struct npu_rec *)(const void *)ctx->dump;
}

static inline const struct npu_rec *npu_rec_next(const struct npu_block_ctx *ctx,
						 const struct npu_rec *rec)
{
	uint32_t off = (uint32_t)((const char *)rec - ctx->dump);

	off += (uint32_t)sizeof(*rec) + ((rec->len + 7u) & ~7u);
	if (off + sizeof(struct npu_rec) > ctx->dump_used)
		return (const struct npu_rec *)0;
	return (const struct npu_rec *)(const void *)(ctx->dump + off);
}

static inline const char *npu_rec_payload(const struct npu_rec *rec)
{
	return (const char *)(rec + 1);
}

#ifdef __cplusplus
}
#endif

#endif /* NPU_ASCENDC_NPU_BLOCK_H */
