// SPDX-License-Identifier: MIT
/*
 * Kernel printf. A device binary whose code may call AscendC::printf has
 * a section .npu_printf (kernel_operator.h puts it there, binelf.c finds
 * it). A launch of one of its kernels gets a printf area: the per-core
 * printf FIFO size (aclrtDeviceSetLimit's SIMD_PRINTF_FIFO_SIZE_PER_CORE,
 * 32 KiB unless set) per block, allocated in device memory like
 * aclrtMalloc's (CANN's stub: AllocAscendMemDevice). The AI-core executor
 * writes block i's records at va + i * size: a head of two u32 (bytes of
 * complete records after it, the block's NPU_BLOCK_* flags), then struct
 * npu_rec records (include/ascendc/npu_block.h).
 *
 * The launch call then waits for the kernel (CANN's
 * Adx::AdumpPrintWorkSpace synchronises the stream: dump_printf.cpp),
 * copies each block's records to the host and prints them in block
 * order: NPU_REC_PRINTF text to stdout as it is, NPU_REC_TRAP reasons to
 * stderr with the kernel's name, and a note on stderr for a block whose
 * records did not all fit. The area is freed before the call returns. A
 * task error of the kernel is not the launch's: the stream's next
 * synchronize reports it, as for any launch.
 *
 * A launch a model records (kernel.c) has an area the recording owns,
 * cleared before each run of the model, and a host step after it prints
 * the run's records, on the context's host-function thread (the vendor's
 * printf thread prints a graph's kernels at each of its runs).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ascendc/npu_block.h>

#include "binary.h"
#include "callback.h"
#include "copy.h"
#include "error.h"
#include "kprint.h"
#include "mm.h"
#include "stream.h"
#include "sysparam.h"

/* the head of a block's area, as the executor writes it */
struct acl_kprint_head {
	uint32_t used;
	uint32_t flags;
};

int acl_kprint_prepare(struct acl_kfunc *f, struct acl_stream *s, uint32_t blocks, struct acl_kprint *p)
{
	uint32_t size = acl_printf_fifo_size();

	memset(p, 0, sizeof(*p));
	if (!f->prints || acl_cb_in_callback())
		return 0;
	p->size = size;
	p->blocks = blocks;
	/* whole pages, as aclrtMalloc's */
	return acl_mm_alloc(s->dev, ((uint64_t)size * blocks + NPU_PAGE_4K - 1) & ~(uint64_t)(NPU_PAGE_4K - 1),
			    NPU_PAGE_4K, &p->va);
}

/* Print the records of block @b (@len bytes at @buf). */
static void acl_kprint_block(const struct acl_kfunc *f, uint32_t b, const char *buf, uint32_t len)
{
	uint32_t off = 0;

	while (len - off >= sizeof(struct npu_rec)) {
		struct npu_rec rec;

		memcpy(&rec, buf + off, sizeof(rec));
		off += (uint32_t)sizeof(rec);
		if (rec.len > len - off)
			break;
		if (rec.kind == NPU_REC_PRINTF)
			fwrite(buf + off, 1, rec.len, stdout);
		else if (rec.kind == NPU_REC_TRAP)
			fprintf(stderr, "kernel %s, block %u: trap: %.*s\n", f->name, b, (int)rec.len, buf + off);
		off += (rec.len + 7u) & ~7u;
		if (off > len)
			break;
	}
}

/* Read and print every block's records. */
static void acl_kprint_out(const struct acl_kfunc *f, struct acl_device *dev, const struct acl_kprint *p)
{
	const uint32_t max = p->size - (uint32_t)sizeof(struct acl_kprint_head);
	char *buf = malloc(max ? max : 1);
	uint32_t b;

	if (!buf)
		return;
	for (b = 0; b < p->blocks; b++) {
		uint64_t at = p->va + (uint64_t)b * p->size;
		struct acl_kprint_head h;

		if (acl_read_at(dev, NULL, (const void *)(uintptr_t)at, &h, sizeof(h)))
			break;
		if (h.used > max)
			h.used = max;
		if (h.used && acl_read_at(dev, NULL, (const void *)(uintptr_t)(at + sizeof(h)), buf, h.used))
			break;
		acl_kprint_block(f, b, buf, h.used);
		if (h.flags & NPU_BLOCK_DUMP_LOST)
			fprintf(stderr, "kernel %s, block %u: printf output lost: its %u-byte printf area is full (aclrtDeviceSetLimit ACL_RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE)\n",
				f->name, b, p->size);
	}
	fflush(stdout);
	free(buf);
}

int acl_kprint_finish(struct acl_kfunc *f, struct acl_stream *s, struct acl_kprint *p, int ret, uint32_t id,
		      uint64_t seq)
{
	int r;

	if (!p->va)
		return ret;
	if (!ret) {
		r = acl_stream_reach(s, id, seq, -1);
		if (!r || r == -ENOENT)
			acl_kprint_out(f, s->dev, p);
		acl_err_clear();
	}
	/* a failed free (the device went) leaves nothing to report on the launch */
	if (acl_mm_free(s->dev, p->va, ACL_REGION_MALLOC) && !ret)
		acl_err_clear();
	p->va = 0;
	return ret;
}

/* A recorded printf launch's host step: the kernel's area, read at each run. */
struct acl_kprint_step {
	struct acl_kfunc *f;		/* held */
	struct acl_device *dev;
	struct acl_kprint p;
};

static void acl_kprint_step_run(void *arg)
{
	struct acl_kprint_step *st = arg;

	acl_kprint_out(st->f, st->dev, &st->p);
	acl_err_clear();
}

static void acl_kprint_step_free(void *arg)
{
	struct acl_kprint_step *st = arg;

	acl_kfunc_put(st->f);
	free(st);
}

int acl_kprint_record(struct acl_kfunc *f, struct acl_stream *s, const struct acl_kprint *p)
{
	struct acl_kprint_step *st = malloc(sizeof(*st));

	if (!st)
		return acl_errf(-ENOMEM, "out of host memory for the recording of stream %p", s);
	acl_obj_hold(&f->obj);
	*st = (struct acl_kprint_step){ .f = f, .dev = s->dev, .p = *p };
	return acl_host_step_record(s, acl_kprint_step_run, st, acl_kprint_step_free);
}
