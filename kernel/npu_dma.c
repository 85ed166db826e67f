// SPDX-License-Identifier: GPL-2.0
/*
 * npu: the DMA engine's data path.
 *
 * Like a real DMA engine, the simulated one reaches device memory only
 * through the context's device page tables (walked on every access,
 * permissions enforced) and host memory only through DMA addresses,
 * translated by the IOMMU domain of the NPU's PCI carrier when it has one.
 * An unmapped address, a missing permission or an IOMMU miss is a DMA
 * fault: the command fails, the next STREAM_SYNC returns -EIO and the log
 * gets one rate-limited line.
 *
 * A command moves its bytes a piece at a time; each piece lies in one row
 * and in one translation of every operand (a device leaf, up to 2 MiB; a
 * run of host pages the IOMMU maps contiguously). The VA spaces are held
 * for a chunk of NPU_DMA_CHUNK bytes, so an unmap waits at most that long;
 * a turn moves at most its budget and leaves the rest, with the place to
 * go on from, in the job.
 */
#include <linux/dma-direct.h>
#include <linux/highmem.h>
#include <linux/indirect_call_wrapper.h>
#include <linux/iommu.h>
#include <linux/sched.h>

#include "npu_cmd.h"
#include "npu_copy.h"
#include "npu_devmem.h"
#include "npu_dma.h"
#include "npu_drv.h"
#include "npu_host.h"
#include "npu_netlink.h"
#include "npu_stream.h"
#include "npu_trace.h"
#include "npu_vm.h"

/* Bytes moved under one hold of the VA space: bounds how long unmap waits. */
#define NPU_DMA_CHUNK		SZ_1M

/*
 * What one row costs a chunk and a turn's budget at least, in bytes:
 * bounds the rows moved under one hold of the VA space when they are short.
 */
#define NPU_DMA_ROW_COST	256

/**
 * struct npu_dma_side - an operand as the engine walks it
 * @op: the operand (its registration changes with a row list's rows)
 * @cur: DMA segment lookup cursor for @op.reg
 * @run_pos: operand offset where the current translation starts
 * @run_len: bytes it covers (0: none)
 * @run_addr: device-physical or DMA address of @run_pos
 * @run_system: @run_addr is a host DMA address
 * @run_huge: device memory mapped by a 2 MiB or larger leaf: its handle
 *	owns whole 2 MiB backing pages
 * @run_mirror: the current translation is a mirror's entry: good only
 *	while the VA space's mirror sequence is still @run_seq
 * @run_seq: the mirror sequence the translation was made under
 * @win: CPU address of operand byte @win_pos, kept where all memory is
 *	mapped (no HIGHMEM) so that the next piece in the same backing page
 *	needs no lookup
 * @win_pos: operand offset of @win
 * @win_len: bytes valid from @win (0: none)
 */
struct npu_dma_side {
	struct npu_dma_operand op;
	struct npu_host_cursor cur;
	u64 run_pos;
	u64 run_len;
	u64 run_addr;
	bool run_system;
	bool run_huge;
	bool run_mirror;
	u64 run_seq;
	void *win;
	u64 win_pos;
	u64 win_len;
};

/* Forget translations: mappings may change while the VA space is not held. */
static void npu_dma_side_reset(struct npu_dma_side *side)
{
	side->run_len = 0;
	side->win_len = 0;
}

/*
 * A fault of @stream at @addr, @flags NPU_FAULT_* bits: the log, the
 * tracepoint, the counters, the netlink event, and the stream's record
 * for STREAM_SYNC.
 */
static void npu_dma_report(struct npu_stream *stream, u64 addr, u32 flags,
			   const char *why)
{
	struct npu_context *ctx = stream->ctx;
	bool host = flags & NPU_FAULT_HOST, write = flags & NPU_FAULT_WRITE;

	trace_npu_dma_fault(stream, addr, host, write, why);
	dev_err_ratelimited(ctx->npu->misc.this_device,
			    "npu: DMA fault: pid %d (%s) stream %u %s %s %#llx: %s\n",
			    ctx->tgid, ctx->comm, stream->id,
			    write ? "write" : "read", host ? "host" : "va",
			    addr, why);
	atomic64_inc(&ctx->faults);
	atomic64_inc(&ctx->npu->faults);
	npu_netlink_fault(ctx, stream->id, addr, write, host, why);
	/* for STREAM_SYNC, with the command's error */
	npu_stream_note_fault(stream, addr, flags);
}

/**
 * npu_dma_fault() - report a DMA fault of @stream
 * @stream: the stream whose command faulted
 * @addr: the address accessed: a device VA, or a user address (@host)
 * @host: @addr is host memory
 * @write: the access wrote
 * @why: what the MMU or IOMMU said
 *
 * Return: -EIO, the command's error.
 */
int npu_dma_fault(struct npu_stream *stream, u64 addr, bool host, bool write,
		  const char *why)
{
	npu_dma_report(stream, addr, (write ? NPU_FAULT_WRITE : 0) |
		       (host ? NPU_FAULT_HOST : 0), why);
	return -EIO;
}

static int npu_dma_side_fault(struct npu_stream *stream,
			      struct npu_dma_side *side, u64 pos,
			      const char *why)
{
	return npu_dma_fault(stream, side->op.addr + pos, side->op.reg,
			     side->op.write, why);
}

/*
 * An access to a device page with an uncorrectable error: a fault of its
 * own kind, which STREAM_SYNC reports as -EHWPOISON with NPU_FAULT_UCE
 * and the device VA accessed (never a host operand's: host memory has
 * no such pages here).
 */
static int npu_dma_side_uce(struct npu_stream *stream,
			    struct npu_dma_side *side, u64 pos)
{
	npu_dma_report(stream, side->op.addr + pos, NPU_FAULT_UCE |
		       (side->op.write ? NPU_FAULT_WRITE : 0),
		       "uncorrectable memory error");
	return -EHWPOISON;
}

/*
 * Find what the operand's byte @pos translates to, as the MMU would: 0,
 * NPU_RUN_FAULT_IN with the stream's fault request made for the page and
 * some of the @len bytes the access goes on for (a mirror's page is not
 * there yet, or an imported dma-buf moved), or a fault.
 */
static int npu_dma_translate(struct npu_stream *stream,
			     struct npu_dma_side *side, u64 pos, u64 len)
{
	const struct npu_dma_operand *op = &side->op;
	struct npu_vm_xlate xl;
	const char *why;
	u64 left;

	if (pos >= side->run_pos && pos < side->run_pos + side->run_len)
		return 0;
	side->win_len = 0;
	if (op->reg) {
		if (npu_host_dma_addr(op->reg, &side->cur,
				      op->addr - op->reg->addr + pos,
				      &side->run_addr, &left))
			return npu_dma_side_fault(stream, side, pos,
						  "beyond the registration");
		side->run_system = true;
		side->run_mirror = false;
	} else {
		why = npu_vm_translate_locked(&op->ctx->vm, op->addr + pos,
					      stream->ctx->npu->index,
					      READ_ONCE(stream->ctx->peers),
					      op->write, &xl);
		if (why && (xl.fault || xl.refault)) {
			npu_stream_want_fault(stream, xl.fault, xl.refault,
					      op->addr + pos, len, op->write);
			return NPU_RUN_FAULT_IN;
		}
		if (why)
			return npu_dma_side_fault(stream, side, pos, why);
		left = xl.left;
		/* The run stops short of a bad page; at one, the access faults. */
		if (!xl.system) {
			left = npu_devmem_clean_len(op->ctx->npu->mem, xl.addr,
						    left);
			if (!left)
				return npu_dma_side_uce(stream, side, pos);
		}
		side->run_mirror = xl.mirrored;
		side->run_seq = xl.seq;
		side->run_addr = xl.addr;
		side->run_system = xl.system;
		side->run_huge = xl.huge;
	}
	side->run_pos = pos;
	side->run_len = left;
	return 0;
}

/* The host physical address behind DMA address @addr, as the IOMMU sees it. */
phys_addr_t npu_dma_host_phys(struct npu_device *npu, u64 addr)
{
	phys_addr_t phys = npu->domain ? iommu_iova_to_phys(npu->domain, addr) :
					 dma_to_phys(npu->dma_dev, addr);

	return phys && pfn_valid(PHYS_PFN(phys)) ? phys : 0;
}

/*
 * Map the operand's byte @pos, translated already, for the CPU doing the
 * engine's work, and cut *@n down to the bytes from there that are
 * contiguous in the same translation: a page, or where no kmap is needed
 * up to 2 MiB of device memory, or host pages the IOMMU maps contiguously
 * (each still translated). NULL with *@why on a fault, which the caller
 * reports once it holds nothing. Undo with npu_dma_kunmap().
 */
static void *npu_dma_kmap(struct npu_dma_side *side, u64 pos, u64 *n,
			  const char **why)
{
	struct npu_device *npu = side->op.ctx->npu;
	u64 addr, off, left, span = PAGE_SIZE;
	struct page *page;
	phys_addr_t phys;

	if (pos >= side->win_pos && pos - side->win_pos < side->win_len) {
		*n = min(*n, side->win_len - (pos - side->win_pos));
		return side->win + (pos - side->win_pos);
	}
	addr = side->run_addr + (pos - side->run_pos);
	left = side->run_len - (pos - side->run_pos);
	if (side->run_system) {
		phys = npu_dma_host_phys(npu, addr);
		if (!phys) {
			*why = "no IOMMU translation";
			return NULL;
		}
		page = pfn_to_page(PHYS_PFN(phys));
		off = offset_in_page(phys);
		span = PAGE_SIZE - off;
		/* Host pages the IOMMU maps contiguously: one longer piece. */
		while (!IS_ENABLED(CONFIG_HIGHMEM) && span < min(left, *n) &&
		       npu_dma_host_phys(npu, addr + span) == phys + span)
			span += PAGE_SIZE;
	} else {
		page = npu_devmem_page(npu->mem, addr, side->op.write,
				       side->run_huge, &span);
		if (IS_ERR(page)) {
			*why = "no memory to back device page";
			return NULL;
		}
		off = offset_in_page(addr);
		/* kmap_local_page() maps one page where memory is high. */
		if (IS_ENABLED(CONFIG_HIGHMEM))
			span = PAGE_SIZE - off;
	}
	*n = min3(*n, span, left);
	if (IS_ENABLED(CONFIG_HIGHMEM))
		return kmap_local_page(page) + off;
	side->win = page_address(page) + off;
	side->win_pos = pos;
	side->win_len = min(span, left);
	return side->win;
}

static void npu_dma_kunmap(void *addr)
{
	if (IS_ENABLED(CONFIG_HIGHMEM))
		kunmap_local(addr);
}

/*
 * An access through a mirror's entries holds its VA space's mirror
 * entries still (an invalidation waits for it) and needs them unchanged
 * since the translations were made: the VA space held, NULL if no operand
 * is mirrored, or ERR_PTR(-EAGAIN) when a translation is stale (nothing
 * held): translate again. Held before the IOMMU is asked, so an
 * invalidation never makes a page the process can reach look unmapped.
 * A mirror is reached only by its own device, so both operands' mirrors
 * are in the stream's own VA space (an imported dma-buf's entries are held
 * alike, and only its own device reaches them too).
 */
static struct npu_vm *npu_dma_mirror_hold(struct npu_dma_side *dst,
					  struct npu_dma_side *src)
{
	struct npu_dma_side *m = dst->run_mirror ? dst :
				 src && src->run_mirror ? src : NULL;
	struct npu_vm *vm;

	if (!m)
		return NULL;
	vm = &m->op.ctx->vm;
	if (!npu_vm_mirror_hold(vm, m->run_seq))
		return ERR_PTR(-EAGAIN);
	if (m == dst && src && src->run_mirror && src->run_seq != m->run_seq) {
		npu_vm_mirror_unhold(vm);
		return ERR_PTR(-EAGAIN);
	}
	return vm;
}

/*
 * Map the piece at @pos of each of the @nr @sides for the CPU (into @ptr,
 * cutting *@n to what all of them cover), the VA space's mirror entries
 * held if one is mirrored: the device memory first, since that may
 * allocate its backing and an invalidation, which reclaim may start,
 * waits for the hold; then the hold; then the mirrors' pages, asked of
 * the IOMMU under it (npu_dma_mirror_hold()). Return: the VA space held
 * or NULL, with @order[0..*@mapped) the sides mapped, which the caller
 * unmaps in reverse before letting go; ERR_PTR(-EAGAIN) if a translation
 * went stale; or *@bad the side that faulted, *@why why.
 */
static struct npu_vm *npu_dma_map_piece(struct npu_dma_side **sides,
					const u64 *pos, unsigned int nr,
					void **ptr, u64 *n, u8 *order,
					unsigned int *mapped, int *bad,
					const char **why)
{
	struct npu_vm *mvm = NULL;
	unsigned int i, pass;

	for (pass = 0; pass < 2; pass++) {
		if (pass) {
			mvm = npu_dma_mirror_hold(sides[0],
						  nr > 1 ? sides[1] : NULL);
			if (IS_ERR(mvm))
				return mvm;
		}
		for (i = 0; i < nr; i++) {
			if (sides[i]->run_mirror != !!pass)
				continue;
			ptr[i] = npu_dma_kmap(sides[i], pos[i], n, why);
			if (!ptr[i]) {
				*bad = i;
				return mvm;
			}
			order[(*mapped)++] = i;
		}
	}
	return mvm;
}

/* @side goes on in registration @reg: its translations are another's. */
static void npu_dma_side_use(struct npu_dma_side *side,
			     struct npu_host_reg *reg)
{
	if (side->op.reg == reg)
		return;
	side->op.reg = reg;
	side->cur = (struct npu_host_cursor){};
	npu_dma_side_reset(side);
}

/*
 * Row @row of @shape: where it starts in each of the @nr operands (@pos),
 * and its width; a row list's row also says the registrations.
 */
static u64 npu_dma_row(const struct npu_dma_shape *shape, u64 row,
		       struct npu_dma_side **sides, unsigned int nr, u64 *pos)
{
	const struct npu_dma_row *r;

	if (!shape->rows) {
		pos[0] = row * shape->dst_pitch;
		pos[1] = row * shape->src_pitch;
		return shape->width;
	}
	r = &shape->rows[row];
	pos[0] = r->dst;
	pos[1] = r->src;
	npu_dma_side_use(sides[0], r->dst_reg);
	if (nr > 1)
		npu_dma_side_use(sides[1], r->src_reg);
	return r->len;
}

/*
 * Move one chunk of @shape from the job's place on, with the VA spaces
 * held: 0 at the end of the chunk, the shape or the budget, or the first
 * error (a fault, or NPU_RUN_FAULT_IN).
 */
static int npu_dma_chunk(struct npu_stream *stream, struct npu_job *job,
			 struct npu_dma_side *dst, struct npu_dma_side *src,
			 const struct npu_dma_shape *shape, npu_dma_fn fn,
			 void *arg, u64 *budget)
{
	struct npu_dma_side *sides[2] = { dst, src };
	unsigned int i, nr = src ? 2 : 1;
	u64 chunk = min_t(u64, *budget, NPU_DMA_CHUNK);
	int ret = 0;

	/* whole elements: npu_dma_move() yields when fewer are left */
	if (shape->elem > 1)
		chunk = round_down(chunk, shape->elem);
	for (i = 0; i < nr; i++)
		npu_dma_side_reset(sides[i]);
	while (chunk && job->row < shape->height) {
		u64 pos[2], width = npu_dma_row(shape, job->row, sides, nr, pos);
		u64 n = min(width - job->col, chunk);
		void *ptr[2] = { NULL, NULL };
		unsigned int mapped = 0;
		const char *why = NULL;
		struct npu_vm *mvm;
		int bad = -1;
		u8 order[2];

		/* Checked at submit: no span wraps. */
		pos[0] += job->col;
		pos[1] += job->col;
		for (i = 0; i < nr && !ret; i++)
			ret = npu_dma_translate(stream, sides[i], pos[i],
						width - job->col);
		if (ret)
			break;
		mvm = npu_dma_map_piece(sides, pos, nr, ptr, &n, order,
					&mapped, &bad, &why);
		/*
		 * Pieces end at page boundaries: whole elements of aligned
		 * operands. Less than one is an element torn across pieces.
		 */
		if (shape->elem > 1 && n % shape->elem) {
			n = round_down(n, shape->elem);
			if (!n && bad < 0) {
				bad = 0;
				why = "an element across pieces";
			}
		}
		if (!IS_ERR(mvm) && bad < 0)
			INDIRECT_CALL_1(fn, npu_dma_copy, ptr[0], ptr[1], n,
					arg);
		while (mapped)
			npu_dma_kunmap(ptr[order[--mapped]]);
		if (IS_ERR(mvm)) {
			/* invalidated meanwhile: translate again */
			for (i = 0; i < nr; i++)
				npu_dma_side_reset(sides[i]);
			continue;
		}
		if (mvm)
			npu_vm_mirror_unhold(mvm);
		if (bad >= 0) {
			ret = npu_dma_side_fault(stream, sides[bad], pos[bad],
						 why);
			break;
		}
		job->col += n;
		chunk -= n;
		*budget -= n;
		if (job->col == width) {
			u64 row_cost = NPU_DMA_ROW_COST -
				       min_t(u64, width, NPU_DMA_ROW_COST);

			job->col = 0;
			job->row++;
			chunk -= min(chunk, row_cost);
			*budget -= min(*budget, row_cost);
		}
	}
	return ret;
}

/**
 * npu_dma_copy() - npu_dma_move()'s @fn of a copy: the bytes moved
 * @dst: destination piece
 * @src: source piece
 * @n: bytes
 * @arg: unused
 */
void npu_dma_copy(void *dst, const void *src, size_t n, void *arg)
{
	npu_copy(dst, src, n);
}

/**
 * npu_dma_move() - apply @fn to the bytes @shape gives of one or two
 *	operands, from where the job's last turn left off
 * @stream: the stream running the job
 * @job: the command; @job->row and @job->col say where to go on
 * @dst: the operand written (or, for a one-operand read, read)
 * @src: the operand read, or NULL
 * @shape: the rows
 * @fn: what to do with each piece
 * @arg: for @fn
 * @budget: bytes this turn may still move; what it moves is taken off
 *
 * An abort ends the command between chunks. A mirror's page that is not
 * there ends the turn with the stream's fault request made; the job goes
 * on from there once the page is in.
 *
 * Return: 0 when every byte is done, NPU_RUN_YIELD when the budget ran out
 * first, NPU_RUN_FAULT_IN, -ECANCELED aborted, -EIO a fault or -EHWPOISON
 * an uncorrectable memory error (both reported).
 */
int npu_dma_move(struct npu_stream *stream, struct npu_job *job,
		 const struct npu_dma_operand *dst,
		 const struct npu_dma_operand *src,
		 const struct npu_dma_shape *shape, npu_dma_fn fn, void *arg,
		 u64 *budget)
{
	struct npu_context *ctx = stream->ctx, *peer = NULL;
	struct npu_dma_side d = { .op = *dst }, s = {};
	int ret = 0;

	if (src)
		s.op = *src;
	if (dst->ctx != ctx)
		peer = dst->ctx;
	else if (src && src->ctx != ctx)
		peer = src->ctx;
	while (job->row < shape->height && !ret) {
		if (*budget < max_t(u64, shape->elem, 1))
			return NPU_RUN_YIELD;
		if (READ_ONCE(stream->aborted))
			return -ECANCELED;
		npu_vm_read_lock(&ctx->vm, peer ? &peer->vm : NULL);
		ret = npu_dma_chunk(stream, job, &d, src ? &s : NULL, shape, fn,
				    arg, budget);
		npu_vm_read_unlock(&ctx->vm, peer ? &peer->vm : NULL);
		cond_resched();
	}
	return ret;
}
