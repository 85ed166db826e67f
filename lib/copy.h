/* SPDX-License-Identifier: MIT */
#ifndef LIBACL_COPY_H
#define LIBACL_COPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <acl/acl_rt.h>

struct acl_device;
struct acl_stream;
struct npu_cmd;

/*
 * Staging buffer: two halves, one filled by the CPU while the other's DMA
 * runs. A half is ACL_STAGE_HALF_MAX unless RLIMIT_MEMLOCK is tight.
 */
#define ACL_STAGE_HALF_MAX	(4ULL << 20)
#define ACL_STAGE_HALF_MIN	(64ULL << 10)

/*
 * Synchronous copies between pageable host memory and device memory of at
 * least ACL_DIRECT_MIN bytes are direct (NPU_CMD_*_USER: the driver pins
 * the pages for the copy), ACL_DIRECT_PIECE per command; smaller ones are
 * staged (measured: Documentation/benchmarks.rst, bench_copy i).
 */
#define ACL_DIRECT_MIN		(256ULL << 10)
#define ACL_DIRECT_PIECE	(32ULL << 20)

/* ACL_NPU_PAGEABLE_COPY, aclInit's {"pageableCopy":{"mode":...}} */
enum {
	ACL_PAGEABLE_AUTO,	/* direct from ACL_DIRECT_MIN, staged below */
	ACL_PAGEABLE_STAGED,	/* always through the staging buffer */
	ACL_PAGEABLE_DIRECT,	/* always direct (where the driver pins) */
};

/* "auto", "staged", "direct" -> ACL_PAGEABLE_*, else -EINVAL. */
int acl_copy_mode_parse(const char *s);
/* The mode aclInit's config set (ACL_PAGEABLE_AUTO if none). */
void acl_copy_config(int mode);

/* The device's internal copy streams; the staging buffer comes on first use. */
int acl_copy_open(struct acl_device *dev);
/* Free them; @in_child: after fork, leave the inherited buffer mapped. */
void acl_copy_close(struct acl_device *dev, bool in_child);

/* Where one side of a copy is, as the copying device sees it (acl_classify()). */
enum acl_side_kind {
	ACL_SIDE_DEVICE,	/* device VA of the copying device */
	ACL_SIDE_PEER,		/* device VA of another open device: NPU_CMD_*_PEER */
	ACL_SIDE_PINNED,	/* inside one registration: DMA with NPU_CMD_*_HOST */
	ACL_SIDE_PAGEABLE,	/* host memory the device cannot reach */
};

struct acl_side {
	enum acl_side_kind kind;
	bool dev_alias;		/* registered host mapped at its own address (VA_FLAG) */
	bool managed;		/* managed memory: host memory the device mirrors at its address */
	struct acl_device *owner;	/* device whose memory it is: the copying device or the peer; NULL for host */
	uint64_t base, end;	/* the registration or allocation it lies in: all of it classifies alike; 0, 0 for pageable */
};

static inline bool acl_side_is_dev(const struct acl_side *s)
{
	return s->kind == ACL_SIDE_DEVICE || s->kind == ACL_SIDE_PEER || s->dev_alias;
}

static inline bool acl_side_is_host(const struct acl_side *s)
{
	return s->kind == ACL_SIDE_PINNED || s->kind == ACL_SIDE_PAGEABLE || s->managed;
}

/* Where is [@p, +@len) for @dev?  @dst: the device will write it; @name for messages. */
int acl_classify(struct acl_device *dev, const void *p, size_t len, bool dst, const char *name,
		 struct acl_side *side);
/* acl_classify(), or *@prev again when [@p, +@len) lies in the same registration or allocation. */
int acl_classify_near(struct acl_device *dev, const void *p, size_t len, bool dst, const char *name,
		      const struct acl_side *prev, struct acl_side *side);
/* Does @kind agree with what the addresses are (seen from the copying device @e)? -EINVAL if not. */
int acl_kind_check(aclrtMemcpyKind kind, struct acl_device *e, const struct acl_side *d,
		   const struct acl_side *s);
/* The NPU_CMD_* address-space flags of a copy between @d and @s (neither pageable). */
uint32_t acl_side_flags(const struct acl_side *d, const struct acl_side *s);

/* @n commands in ONE submission on @dev's internal copy stream, waited for. */
int acl_cmds_sync(struct acl_device *dev, struct npu_cmd *cmds, uint32_t n);

/* A copy's rows: @height rows of @width bytes, each side's rows @pitch apart. */
struct acl_shape {
	size_t dpitch, spitch, width, height;
};

/* A staged transfer: rows between device memory and pageable host memory. */
struct acl_xfer {
	uint64_t dev;		/* device VA of the first row */
	size_t dev_pitch;
	char *host;		/* the first row in the user's host memory */
	size_t host_pitch;
	size_t width, height;
};

/* Directions, for what a DEFAULT kind may resolve to. */
#define ACL_DIR_H2D	(1U << 0)
#define ACL_DIR_D2H	(1U << 1)
#define ACL_DIR_D2D	(1U << 2)
#define ACL_DIR_H2H	(1U << 3)
#define ACL_DIR_ALL	(ACL_DIR_H2D | ACL_DIR_D2H | ACL_DIR_D2D | ACL_DIR_H2H)

/*
 * Copy @sh's rows from @src to @dst as aclrtMemcpy does one row: @stream
 * NULL synchronously on @cur's choice of device, else queued on @stream.
 * Memory both sides of which the device reaches is ONE command (COPY, or
 * COPY_2D for several rows); pageable host memory is staged and the call
 * returns when it is done. A DEFAULT @kind must resolve to one of
 * @default_dirs (ACL_DIR_*), else ACLI_ERTPARAM.
 */
int acl_copy_shape(struct acl_device *cur, struct acl_stream *stream, void *dst, const void *src,
		   const struct acl_shape *sh, aclrtMemcpyKind kind, unsigned int default_dirs);

/*
 * Commands whose operands the engine reads from device memory when it runs
 * them (a copy descriptor, a pointer): the driver has no such command, so
 * the library reads them when the stream gets there.
 *
 * acl_stream_deferred(): @run(@dev, @s, @arg) reads the operands
 * (acl_read_at()) and queues the work (acl_copy_va_at(), acl_touch_at())
 * on @s, called once @s's earlier work is done (a task error stays for the
 * next synchronize). On a stream that records a model, at each run of the
 * model instead, as a host step of it (callback.c): @run gets NULL for
 * @s and does the work on @dev's internal copy stream before the run goes
 * on; @arg (@size bytes) is copied into the recording. A failure there
 * is a task error of the stream running the model (its next synchronize
 * answers it; acl_stream_keep_fault()).
 */
int acl_stream_deferred(struct acl_stream *s, int (*run)(struct acl_device *dev, struct acl_stream *s, const void *arg),
			const void *arg, size_t size);
/*
 * Read @len bytes at @addr into @buf as @dev's engine reads them. An
 * address the device cannot translate is what the engine's read would
 * fault on: a PREFETCH of it (acl_touch_at()) instead, and 1 (nothing read).
 */
int acl_read_at(struct acl_device *dev, struct acl_stream *s, const void *addr, void *buf, size_t len);
/*
 * A copy of @len bytes between device addresses, translated by @dev when
 * it runs (an address it cannot translate faults then); another device's
 * memory with peer access is the peer operand.
 */
int acl_copy_va_at(struct acl_device *dev, struct acl_stream *s, uint64_t dst, uint64_t src, uint64_t len);
/*
 * A PREFETCH of [@p, +@len): translated (or faulting) by @dev. The *_at
 * calls queue on @s (recorded, on a recording stream), or, with @s NULL,
 * run on @dev's internal copy stream and return its result.
 */
int acl_touch_at(struct acl_device *dev, struct acl_stream *s, const void *p, size_t len);
/* aclrtReduceAsync's command on @s: NPU_OP_REDUCE with @op_flags (NPU_REDUCE_*). */
int acl_stream_reduce(struct acl_stream *s, void *dst, const void *src, uint64_t len, uint32_t op_flags);
/* Queue a PREFETCH of [@p, +@len) on @s: translated (or faulting) in stream order (recorded, on a recording stream). */
int acl_stream_touch(struct acl_stream *s, const void *p, size_t len);

#endif /* LIBACL_COPY_H */
