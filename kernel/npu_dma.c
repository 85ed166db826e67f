// SPDX-License-Identifier: GPL-2.0
/*
 * npu: DMA engine of the simulated board.
 *
 * Each stream is an in-order queue run by a worker. Like a real DMA
 * engine, the worker reaches device memory only through the context's
 * device page tables (walked on every access, permissions enforced) and
 * host memory only through DMA addresses, translated by the IOMMU domain
 * of the NPU's PCI carrier when it has one. An unmapped address, a
 * missing permission or an IOMMU miss is a DMA fault: the command fails,
 * the next STREAM_SYNC returns -EIO and the log gets one rate-limited line.
 */
#include <linux/bitops.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/dma-direct.h>
#include <linux/highmem.h>
#include <linux/iommu.h>
#include <linux/moduleparam.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include <uapi/npu.h>

#include "npu_copy.h"
#include "npu_devmem.h"
#include "npu_dma.h"
#include "npu_drv.h"
#include "npu_host.h"
#include "npu_mirror.h"
#include "npu_netlink.h"
#include "npu_trace.h"
#include "npu_vm.h"

/* Bytes moved under one hold of the VA space: bounds how long unmap waits. */
#define NPU_DMA_CHUNK		SZ_1M
/*
 * How often a WAIT_VALUE at the head of a stream looks again. A wait does
 * not hold a worker: the stream's work re-arms itself and returns. A
 * WAIT_STREAM does not poll: the stream it waits for wakes it.
 */
#define NPU_WAIT_POLL		1

static struct workqueue_struct *npu_dma_wq;

/*
 * Like a real engine, the simulated one has a few channels: at most this
 * many streams move data at once on each CPU (the workqueue's max_active),
 * however many streams there are, so busy streams cannot multiply the
 * kernel's workers.
 */
static unsigned int dma_channels = 4;
module_param(dma_channels, uint, 0444);
MODULE_PARM_DESC(dma_channels, "Streams the DMA engine runs at once per CPU, 1-64 (default 4)");

/* The CPU the engine's next stream start goes to (npu_dma_cpu()). */
static atomic_t npu_dma_next_cpu = ATOMIC_INIT(-1);

/* Per-context caps on what a user can make the kernel hold. */
static unsigned int max_streams = 1024;
module_param(max_streams, uint, 0644);
MODULE_PARM_DESC(max_streams, "Streams per context (default 1024)");

static unsigned int max_queued = 65536;
module_param(max_queued, uint, 0644);
MODULE_PARM_DESC(max_queued,
		 "Commands queued and not yet completed per context, at least one full SUBMIT (default 65536)");

/*
 * Bytes of pageable user memory (NPU_CMD_DST_USER, NPU_CMD_SRC_USER) a
 * context's queued commands may hold pinned at once, counted in whole
 * pages. A SUBMIT waits for room as for max_queued; one that needs more
 * than the cap by itself fails with -ENOMEM.
 */
static unsigned long long max_user_pin = SZ_256M;
module_param(max_user_pin, ullong, 0644);
MODULE_PARM_DESC(max_user_pin,
		 "Bytes of pageable memory a context's commands hold pinned at once (default 256 MiB)");

/**
 * struct npu_job - a queued command
 * @link: in the stream's queue
 * @cmd: the command as submitted
 * @seqno: its sequence number in the stream
 * @dst_reg: host registration of a host destination (holds a user), or
 *	the pins of a pageable one (NPU_CMD_DST_USER)
 * @src_reg: the same for the source
 * @user_pin: bytes of pageable memory it pins (whole pages), charged to
 *	@queued's user_pinned once @queued is set
 * @dst_user: bytes of a pageable destination (NPU_CMD_DST_USER) from
 *	@cmd.dst, its rows and the gaps between them for COPY_2D
 * @src_user: the same for a pageable source
 * @wait: stream a WAIT_STREAM command waits for (holds a reference)
 * @peer: context of a COPY's peer operand (holds a reference), or NULL
 * @queued: the context whose queued count this job is in, once queued
 * @deadline: for a WAIT_STREAM with a limit, the jiffies it fails at, once
 *	@timed (set when it first reaches the head of its stream)
 * @timed: @deadline is set
 * @start: ktime_get_ns() when it first ran, if npu_cmd_complete traces
 */
struct npu_job {
	struct list_head link;
	struct npu_cmd cmd;
	u64 seqno;
	struct npu_host_reg *dst_reg;
	struct npu_host_reg *src_reg;
	struct npu_stream *wait;
	struct npu_context *peer;
	struct npu_context *queued;
	u64 user_pin;
	u64 dst_user;
	u64 src_user;
	unsigned long deadline;
	bool timed;
	u64 start;
};

/**
 * struct npu_dma_side - one operand of a command as the engine walks it
 * @addr: device VA, or user address inside @reg
 * @ctx: the context whose VA space @addr is in: the stream's, or a peer's
 *	on another device
 * @reg: host registration, or NULL for a device VA
 * @cur: DMA segment lookup cursor for @reg
 * @write: the engine writes through this operand
 * @run_pos: operand offset where the current translation starts
 * @run_len: bytes it covers (0: none)
 * @run_addr: device-physical or DMA address of @run_pos
 * @run_system: @run_addr is a host DMA address
 * @run_huge: device memory mapped by a 2 MiB or larger leaf: its handle
 *	owns whole 2 MiB backing pages
 * @win: CPU address of operand byte @win_pos, kept where all memory is
 *	mapped (no HIGHMEM) so that the next piece in the same backing page
 *	needs no lookup
 * @win_pos: operand offset of @win
 * @win_len: bytes valid from @win (0: none)
 * @run_mirror: the current translation is a mirror's entry: good only while
 *	the VA space's mirror_seq is still @run_seq
 * @run_seq: mirror_seq as read (acquire) before the translation
 * @fault: the mirror whose page the last translation found missing (a
 *	reference), for npu_dma_run_shape() to fault in with nothing held
 */
struct npu_dma_side {
	u64 addr;
	struct npu_context *ctx;
	struct npu_host_reg *reg;
	struct npu_host_cursor cur;
	bool write;
	u64 run_pos;
	u64 run_len;
	u64 run_addr;
	bool run_system;
	bool run_huge;
	void *win;
	u64 win_pos;
	u64 win_len;
	bool run_mirror;
	u64 run_seq;
	struct npu_mirror *fault;
};

/* npu_dma_translate(): a mirror's page must be faulted in first. */
#define NPU_DMA_FAULT_IN	1

/* Forget translations: mappings may change while the VA space is not held. */
static void npu_dma_side_reset(struct npu_dma_side *side)
{
	side->run_len = 0;
	side->win_len = 0;
}

static int npu_dma_fault(struct npu_stream *stream, struct npu_dma_side *side,
			 u64 pos, const char *why)
{
	struct npu_context *ctx = stream->ctx;

	trace_npu_dma_fault(stream, side->addr + pos, !!side->reg, side->write,
			    why);
	dev_err_ratelimited(ctx->npu->misc.this_device,
			    "npu: DMA fault: pid %d (%s) stream %u %s %s %#llx: %s\n",
			    ctx->tgid, ctx->comm, stream->id,
			    side->write ? "write" : "read",
			    side->reg ? "host" : "va", side->addr + pos, why);
	atomic64_inc(&ctx->faults);
	atomic64_inc(&ctx->npu->faults);
	npu_netlink_fault(ctx, stream->id, side->addr + pos, side->write,
			  side->reg, why);
	return -EIO;
}

/* Find what the operand's byte @pos translates to, as the MMU would. */
static int npu_dma_translate(struct npu_stream *stream,
			     struct npu_dma_side *side, u64 pos)
{
	struct npu_vm_xlate xl;
	const char *why;
	u64 left;

	if (pos >= side->run_pos && pos < side->run_pos + side->run_len)
		return 0;
	if (side->reg) {
		if (npu_host_dma_addr(side->reg, &side->cur,
				      side->addr - side->reg->addr + pos,
				      &side->run_addr, &left))
			return npu_dma_fault(stream, side, pos,
					     "beyond the registration");
		side->run_system = true;
		side->run_mirror = false;
	} else {
		/* Before the walk: an invalidation after it moves the value. */
		u64 seq = smp_load_acquire(&side->ctx->vm.mirror_seq);

		why = npu_vm_translate_locked(&side->ctx->vm, side->addr + pos,
					      stream->ctx->npu->index,
					      READ_ONCE(stream->ctx->peers),
					      side->write, &xl);
		if (why && xl.fault) {
			side->fault = xl.fault;
			return NPU_DMA_FAULT_IN;
		}
		if (why)
			return npu_dma_fault(stream, side, pos, why);
		side->run_mirror = xl.mirrored;
		side->run_seq = seq;
		side->run_addr = xl.addr;
		side->run_system = xl.system;
		side->run_huge = xl.huge;
		left = xl.left;
	}
	side->run_pos = pos;
	side->run_len = left;
	return 0;
}

/* The host physical address behind DMA address @addr, as the IOMMU sees it. */
static phys_addr_t npu_dma_host_phys(struct npu_device *npu, u64 addr)
{
	phys_addr_t phys = npu->domain ? iommu_iova_to_phys(npu->domain, addr) :
					 dma_to_phys(npu->dma_dev, addr);

	return phys && pfn_valid(PHYS_PFN(phys)) ? phys : 0;
}

/*
 * Map the operand's byte @pos for the CPU doing the engine's work; *@avail
 * is how many bytes from there are contiguous in the same translation, of
 * the @want the caller still needs: a page, or where no kmap is needed up
 * to 2 MiB of device memory, or host pages the IOMMU maps contiguously
 * (each still translated). Undo with npu_dma_kunmap().
 */
static void *npu_dma_kmap(struct npu_stream *stream, struct npu_dma_side *side,
			  u64 pos, u64 want, size_t *avail, int *err)
{
	struct npu_device *npu = side->ctx->npu;
	u64 addr, off, left, span = PAGE_SIZE;
	struct page *page;
	phys_addr_t phys;

	if (pos >= side->win_pos && pos - side->win_pos < side->win_len) {
		*avail = side->win_len - (pos - side->win_pos);
		return side->win + (pos - side->win_pos);
	}
	*err = npu_dma_translate(stream, side, pos);
	if (*err)
		return NULL;
	addr = side->run_addr + (pos - side->run_pos);
	left = side->run_len - (pos - side->run_pos);
	if (side->run_system) {
		phys = npu_dma_host_phys(npu, addr);
		if (!phys) {
			*err = npu_dma_fault(stream, side, pos,
					     "no IOMMU translation");
			return NULL;
		}
		page = pfn_to_page(PHYS_PFN(phys));
		off = offset_in_page(phys);
		span = PAGE_SIZE - off;
		/* Host pages the IOMMU maps contiguously: one longer piece. */
		while (!IS_ENABLED(CONFIG_HIGHMEM) && span < min(left, want) &&
		       npu_dma_host_phys(npu, addr + span) == phys + span)
			span += PAGE_SIZE;
	} else {
		page = npu_devmem_page(npu->mem, addr, side->write,
				       side->run_huge, &span);
		if (IS_ERR(page)) {
			*err = npu_dma_fault(stream, side, pos,
					     "no memory to back device page");
			return NULL;
		}
		off = offset_in_page(addr);
		/* kmap_local_page() maps one page where memory is high. */
		if (IS_ENABLED(CONFIG_HIGHMEM))
			span = PAGE_SIZE - off;
	}
	*avail = min(span, left);
	if (IS_ENABLED(CONFIG_HIGHMEM))
		return kmap_local_page(page) + off;
	side->win = page_address(page) + off;
	side->win_pos = pos;
	side->win_len = *avail;
	return side->win;
}

static void npu_dma_kunmap(void *addr)
{
	if (IS_ENABLED(CONFIG_HIGHMEM))
		kunmap_local(addr);
}

/**
 * struct npu_dma_shape - the bytes a command moves, as rows
 * @width: bytes of each row
 * @height: rows, at least 1
 * @dst_pitch: operand offset from one destination row to the next
 * @src_pitch: the same for the source
 *
 * A plain command is one row; COPY_2D's rows have their own pitches. Row i
 * of an operand starts at its offset i * pitch.
 */
struct npu_dma_shape {
	u64 width;
	u64 height;
	u64 dst_pitch;
	u64 src_pitch;
};

/*
 * Around an access through a mirror's entries: hold its VA space's
 * mirror_lock, so that an invalidation waits for the access, and check
 * that none came since the translations were made. Returns the VA space
 * held, NULL if no operand is mirrored, or ERR_PTR(-EAGAIN) when a
 * translation is stale (nothing held): translate again. A mirror is
 * reached only by its own device, so both operands' mirrors are in the
 * stream's own VA space.
 */
static struct npu_vm *npu_dma_mirror_hold(struct npu_dma_side *dst,
					  struct npu_dma_side *src)
{
	struct npu_dma_side *m = dst->run_mirror ? dst :
				 src && src->run_mirror ? src : NULL;
	struct npu_vm *vm;

	if (!m)
		return NULL;
	vm = &m->ctx->vm;
	down_read(&vm->mirror_lock);
	if ((dst->run_mirror && dst->run_seq != vm->mirror_seq) ||
	    (src && src->run_mirror && src->run_seq != vm->mirror_seq)) {
		up_read(&vm->mirror_lock);
		return ERR_PTR(-EAGAIN);
	}
	return vm;
}

/* Fault in the page @side's last translation found missing; nothing held. */
static int npu_dma_fault_in(struct npu_stream *stream,
			    struct npu_dma_side *side, u64 pos, u64 len)
{
	struct npu_mirror *mirror = side->fault;
	const char *why;
	u64 done;
	int ret;

	side->fault = NULL;
	ret = npu_mirror_fault(mirror, side->addr + pos, len, side->write,
			       &done, &why);
	npu_mirror_put(mirror);
	/* The process is exiting: its context goes down, no fault to report. */
	if (ret == -ESRCH)
		return -ECANCELED;
	return ret ? npu_dma_fault(stream, side, pos, why) : 0;
}

/*
 * What one row costs a chunk at least, in bytes: bounds the rows moved
 * under one hold of the VA space when they are short.
 */
#define NPU_DMA_ROW_COST	256

/*
 * Run @fn over the bytes @shape gives of one or two operands, a piece at
 * a time: each piece lies in one row and in one page of every operand.
 * The VA spaces are held for a chunk of NPU_DMA_CHUNK bytes (each row
 * counting at least NPU_DMA_ROW_COST); an abort ends the command between
 * chunks. A mirror's page that is not there is faulted in between chunks,
 * with nothing held, and the access goes on from there.
 */
typedef void (*npu_dma_fn)(void *dst, const void *src, size_t n, void *arg);

static int npu_dma_run_shape(struct npu_stream *stream,
			     struct npu_dma_side *dst, struct npu_dma_side *src,
			     const struct npu_dma_shape *shape, npu_dma_fn fn,
			     void *arg)
{
	struct npu_context *ctx = stream->ctx, *peer = NULL;
	u64 row = 0, col = 0, pos = 0;
	int ret = 0;

	if (dst->ctx != ctx)
		peer = dst->ctx;
	else if (src && src->ctx != ctx)
		peer = src->ctx;
	while (row < shape->height && !ret) {
		u64 budget = NPU_DMA_CHUNK;

		if (READ_ONCE(stream->aborted))
			return -ECANCELED;
		npu_vm_read_lock(&ctx->vm, peer ? &peer->vm : NULL);
		npu_dma_side_reset(dst);
		if (src)
			npu_dma_side_reset(src);
		while (budget && row < shape->height) {
			size_t n = min(shape->width - col, budget), avail;
			void *d, *s = NULL;
			struct npu_vm *mvm;

			/* Checked at submit: no span wraps. */
			pos = row * shape->dst_pitch + col;
			d = npu_dma_kmap(stream, dst, pos, n, &avail, &ret);
			if (!d)
				break;
			n = min(n, avail);
			if (src) {
				pos = row * shape->src_pitch + col;
				s = npu_dma_kmap(stream, src, pos, n, &avail, &ret);
				if (!s) {
					npu_dma_kunmap(d);
					break;
				}
				n = min(n, avail);
			}
			mvm = npu_dma_mirror_hold(dst, src);
			if (IS_ERR(mvm)) {
				/* invalidated meanwhile: translate again */
				if (s)
					npu_dma_kunmap(s);
				npu_dma_kunmap(d);
				npu_dma_side_reset(dst);
				if (src)
					npu_dma_side_reset(src);
				continue;
			}
			fn(d, s, n, arg);
			if (mvm)
				up_read(&mvm->mirror_lock);
			if (s)
				npu_dma_kunmap(s);
			npu_dma_kunmap(d);
			col += n;
			budget -= n;
			if (col == shape->width) {
				col = 0;
				row++;
				budget -= min_t(u64, budget, NPU_DMA_ROW_COST -
						min_t(u64, shape->width, NPU_DMA_ROW_COST));
			}
		}
		npu_vm_read_unlock(&ctx->vm, peer ? &peer->vm : NULL);
		/* @pos is the faulting operand's offset (its kmap failed) */
		if (ret == NPU_DMA_FAULT_IN)
			ret = npu_dma_fault_in(stream, dst->fault ? dst : src,
					       pos, shape->width - col);
		cond_resched();
	}
	return ret;
}

/* Run @fn over @len bytes of one or two operands: one row. */
static int npu_dma_run(struct npu_stream *stream, struct npu_dma_side *dst,
		       struct npu_dma_side *src, u64 len, npu_dma_fn fn,
		       void *arg)
{
	const struct npu_dma_shape shape = { .width = len, .height = 1 };

	return npu_dma_run_shape(stream, dst, src, &shape, fn, arg);
}

static void npu_dma_copy_fn(void *dst, const void *src, size_t n, void *arg)
{
	npu_copy(dst, src, n);
}

static void npu_dma_set_fn(void *dst, const void *src, size_t n, void *arg)
{
	memset(dst, *(u8 *)arg, n);
}

/* FILL32: @dst and @n are 4-byte aligned (pieces end at pages or the end). */
static void npu_dma_fill32_fn(void *dst, const void *src, size_t n, void *arg)
{
	memset32(dst, *(u32 *)arg, n / sizeof(u32));
}

static void npu_dma_write_fn(void *dst, const void *src, size_t n, void *arg)
{
	WRITE_ONCE(*(u64 *)dst, *(u64 *)arg);
}

/* PREFETCH only translates, faulting mirrored pages in. */
static void npu_dma_touch_fn(void *mem, const void *unused, size_t n,
			     void *arg)
{
}

/* WAIT_VALUE reads through its only operand into *arg. */
static void npu_dma_read_fn(void *mem, const void *unused, size_t n, void *arg)
{
	*(u64 *)arg = READ_ONCE(*(u64 *)mem);
}

static bool npu_wait_done(u64 cur, const struct npu_cmd *cmd)
{
	switch (cmd->flags & NPU_WAIT_COND_MASK) {
	case NPU_WAIT_GEQ:
		return cur >= cmd->value;
	case NPU_WAIT_EQ:
		return cur == cmd->value;
	case NPU_WAIT_AND:
		return cur & cmd->value;
	default:
		return ~(cur | cmd->value);
	}
}

/* A WAIT_VALUE: 0 once the value is there, -EAGAIN before, or a fault. */
static int npu_job_wait_value(struct npu_stream *stream, struct npu_job *job,
			      struct npu_dma_side *side)
{
	u64 cur;
	int ret;

	ret = npu_dma_run(stream, side, NULL, sizeof(u64), npu_dma_read_fn,
			  &cur);
	if (ret)
		return ret;
	return npu_wait_done(cur, &job->cmd) ? 0 : -EAGAIN;
}

/* Has @stream finished the command numbered @seqno? */
static bool npu_stream_done(struct npu_stream *stream, u64 seqno)
{
	return atomic64_read_acquire(&stream->completed) >= seqno;
}

/* A WAIT_STREAM's condition: a stream that went away counts as there. */
static bool npu_wait_stream_done(struct npu_stream *other, u64 seqno)
{
	return npu_stream_done(other, seqno) || READ_ONCE(other->aborted);
}

/*
 * The wake-up of a stream parked on @other's wq (npu_job_wait_stream()):
 * @other completed a command or was stopped. Called under @other->wq's
 * lock; the worker runs again at once, on this CPU, unless the parked
 * stream is being stopped (npu_stream_stop() runs it then).
 */
static int npu_stream_wake(struct wait_queue_entry *waiter, unsigned int mode,
			   int sync, void *key)
{
	struct npu_stream *stream = container_of(waiter, struct npu_stream,
						 waiter);

	if (!npu_wait_stream_done(stream->wait_on, stream->wait_seq))
		return 0;
	list_del_init(&waiter->entry);
	spin_lock(&stream->lock);
	if (!stream->aborted)
		mod_delayed_work(npu_dma_wq, &stream->work, 0);
	spin_unlock(&stream->lock);
	return 1;
}

/* Leave the wq the stream was parked on, if it was (woken or not). */
static void npu_stream_unwait(struct npu_stream *stream)
{
	if (!stream->wait_on)
		return;
	remove_wait_queue(&stream->wait_on->wq, &stream->waiter);
	stream->wait_on = NULL;
}

/*
 * A WAIT_STREAM: 0 once @other got there, or -EAGAIN with @stream parked
 * on @other's wq, whose next wake-up after it gets there runs the worker
 * again. The check after parking closes the race with a completion in
 * between: @other sets @completed (or @aborted) before it takes its wq's
 * lock to wake, and parking takes the same lock, so either that wake-up
 * finds @stream parked or the second check sees the new value.
 */
static int npu_job_wait_stream(struct npu_stream *stream, struct npu_job *job)
{
	struct npu_stream *other = job->wait;
	u64 seqno = job->cmd.value;

	if (npu_wait_stream_done(other, seqno))
		return 0;
	/*
	 * A wait with a limit (@length ms) fails with -ETIME once it has been
	 * at the head that long: the parked stream's work also runs then.
	 */
	if (job->cmd.length) {
		if (!job->timed) {
			job->deadline = jiffies + msecs_to_jiffies(job->cmd.length);
			job->timed = true;
		}
		if (time_after_eq(jiffies, job->deadline))
			return -ETIME;
	}
	stream->wait_on = other;
	stream->wait_seq = seqno;
	add_wait_queue(&other->wq, &stream->waiter);
	if (!npu_wait_stream_done(other, seqno)) {
		if (job->timed) {
			unsigned long now = jiffies;

			spin_lock(&stream->lock);
			if (!stream->aborted)
				mod_delayed_work(npu_dma_wq, &stream->work,
						 time_after(job->deadline, now) ?
						 job->deadline - now : 0);
			spin_unlock(&stream->lock);
		}
		return -EAGAIN;
	}
	npu_stream_unwait(stream);
	return 0;
}

static int npu_job_run(struct npu_stream *stream, struct npu_job *job)
{
	struct npu_cmd *cmd = &job->cmd;
	struct npu_context *ctx = stream->ctx;
	struct npu_dma_side dst = {
		.addr = cmd->dst, .reg = job->dst_reg, .write = true,
		.ctx = cmd->flags & NPU_CMD_DST_PEER ? job->peer : ctx,
	};
	struct npu_dma_side src = {
		.addr = cmd->src, .reg = job->src_reg,
		.ctx = cmd->flags & NPU_CMD_SRC_PEER ? job->peer : ctx,
	};
	const struct npu_dma_shape shape = {
		.width = cmd->length, .height = cmd->height,
		.dst_pitch = cmd->dst_pitch, .src_pitch = cmd->src_pitch,
	};
	struct mem_cgroup *old_memcg;
	u32 fill32 = cmd->value;
	u8 fill = cmd->value;
	u64 stamp;
	int ret;

	/*
	 * Device pages come into being on their first write: charge them to
	 * the memory cgroup of the context whose mapping is written, as if
	 * its process had touched them (the worker itself has none).
	 */
	old_memcg = set_active_memcg(dst.ctx->memcg);
	switch (cmd->op) {
	case NPU_OP_COPY:
		ret = npu_dma_run(stream, &dst, &src, cmd->length,
				  npu_dma_copy_fn, NULL);
		break;
	case NPU_OP_COPY_2D:
		ret = npu_dma_run_shape(stream, &dst, &src, &shape,
					npu_dma_copy_fn, NULL);
		break;
	case NPU_OP_MEMSET:
		ret = npu_dma_run(stream, &dst, NULL, cmd->length,
				  npu_dma_set_fn, &fill);
		break;
	case NPU_OP_FILL32:
		ret = npu_dma_run(stream, &dst, NULL, cmd->length,
				  npu_dma_fill32_fn, &fill32);
		break;
	case NPU_OP_WRITE_VALUE:
		ret = npu_dma_run(stream, &dst, NULL, sizeof(u64),
				  npu_dma_write_fn, &cmd->value);
		break;
	case NPU_OP_WAIT_VALUE:
		ret = npu_job_wait_value(stream, job, &src);
		break;
	case NPU_OP_WAIT_STREAM:
		ret = npu_job_wait_stream(stream, job);
		break;
	case NPU_OP_PREFETCH:
		dst.write = false;
		ret = npu_dma_run(stream, &dst, NULL, cmd->length,
				  npu_dma_touch_fn, NULL);
		break;
	default:
		/* NPU_OP_TIMESTAMP: the clock as the engine gets here */
		stamp = npu_device_clock(ctx->npu);
		ret = npu_dma_run(stream, &dst, NULL, sizeof(u64),
				  npu_dma_write_fn, &stamp);
		break;
	}
	set_active_memcg(old_memcg);
	return ret;
}

static void npu_stream_free(struct kref *ref)
{
	kfree(container_of(ref, struct npu_stream, ref));
}

static void npu_stream_put(struct npu_stream *stream)
{
	kref_put(&stream->ref, npu_stream_free);
}

static struct npu_stream *npu_stream_get(struct npu_context *ctx, u32 id)
{
	struct npu_stream *stream;

	xa_lock(&ctx->streams);
	stream = xa_load(&ctx->streams, id);
	if (stream)
		kref_get(&stream->ref);
	xa_unlock(&ctx->streams);
	return stream;
}

static void npu_job_free(struct npu_job *job)
{
	/* Pageable operands are unpinned here, before their room is given back. */
	if (job->dst_reg)
		npu_host_reg_put(job->dst_reg);
	if (job->src_reg)
		npu_host_reg_put(job->src_reg);
	if (job->wait)
		npu_stream_put(job->wait);
	if (job->peer)
		npu_context_put(job->peer);
	if (job->queued) {
		atomic_long_dec(&job->queued->queued);
		if (job->user_pin)
			atomic64_sub(job->user_pin, &job->queued->user_pinned);
		/* Every command ends here: wake only if a SUBMIT waits for room. */
		if (wq_has_sleeper(&job->queued->queue_wq))
			wake_up_all(&job->queued->queue_wq);
	}
	kfree(job);
}

/*
 * Run the queue head first: a WAIT_VALUE that is not yet satisfied stays
 * at the head and the work looks again after NPU_WAIT_POLL, a WAIT_STREAM
 * parks the stream until the stream it waits for wakes it, so waiting
 * streams hold no worker. Only this function takes jobs off the queue.
 */
static void npu_stream_work(struct work_struct *work)
{
	struct npu_stream *stream = container_of(to_delayed_work(work),
						 struct npu_stream, work);
	struct npu_job *job;
	bool rearmed;
	int ret;

	for (;;) {
		/* Woken, or run for another reason: parked no longer. */
		npu_stream_unwait(stream);
		spin_lock(&stream->lock);
		job = list_first_entry_or_null(&stream->queue, struct npu_job,
					       link);
		spin_unlock(&stream->lock);
		if (!job)
			return;

		/* Only this worker sets @halted. */
		if (READ_ONCE(stream->aborted) || stream->halted) {
			ret = -ECANCELED;
		} else {
			if (trace_npu_cmd_complete_enabled() && !job->start)
				job->start = ktime_get_ns();
			ret = npu_job_run(stream, job);
		}
		if (ret == -EAGAIN && stream->wait_on)
			return;
		spin_lock(&stream->lock);
		if (ret == -EAGAIN) {
			/* Not re-armed once npu_stream_stop() has run. */
			rearmed = !stream->aborted;
			if (rearmed)
				queue_delayed_work(npu_dma_wq, &stream->work,
						   NPU_WAIT_POLL);
			spin_unlock(&stream->lock);
			if (rearmed)
				return;
			continue;
		}
		list_del(&job->link);
		/* A dropped command did not run: that is its error too. */
		if (ret && !stream->error) {
			stream->error = ret;
			stream->error_seq = job->seqno;
		}
		if (ret && ret != -ECANCELED &&
		    (stream->mode & NPU_STREAM_STOP_ON_FAULT)) {
			stream->halted = true;
			stream->halt_seq = job->seqno;
		}
		spin_unlock(&stream->lock);
		trace_npu_cmd_complete(stream, &job->cmd, job->seqno, ret,
				       job->start);
		atomic64_set_release(&stream->completed, job->seqno);
		/* Wakes STREAM_SYNC and the streams parked on a WAIT_STREAM. */
		wake_up_all(&stream->wq);
		npu_job_free(job);
		/* A queue of many small commands is a long loop. */
		cond_resched();
	}
}

/*
 * The CPU for the next stream start: the online CPUs in turn, skipping
 * the submitter's, so that the engine runs beside the CPU that queued the
 * work (as hardware does, instead of preempting it) and the streams of
 * all users spread over the machine. The caller holds cpus_read_lock().
 */
static unsigned int npu_dma_cpu(void)
{
	unsigned int self = raw_smp_processor_id(), cpu;

	if (num_online_cpus() == 1)
		return self;
	cpu = (unsigned int)atomic_inc_return(&npu_dma_next_cpu) % nr_cpu_ids;
	cpu = cpumask_next(cpu - 1, cpu_online_mask);
	if (cpu >= nr_cpu_ids)
		cpu = cpumask_first(cpu_online_mask);
	return cpu == self ? cpumask_any_but(cpu_online_mask, self) : cpu;
}

/*
 * Start the stream's worker on @cpu at once. Called with stream->lock
 * held, so that npu_stream_stop() either sees the work queued or this
 * never runs.
 */
static void npu_stream_kick(struct npu_stream *stream, unsigned int cpu)
{
	lockdep_assert_held(&stream->lock);
	mod_delayed_work_on(cpu, npu_dma_wq, &stream->work, 0);
}

/* Whole pages of a pageable operand: what pinning it holds. */
static u64 npu_user_span(u64 addr, u64 len)
{
	return PAGE_ALIGN(addr + len) - ALIGN_DOWN(addr, PAGE_SIZE);
}

/*
 * A pageable operand of @len bytes at @addr: not longer than a
 * registration may be, inside the user address space (else -EFAULT, as
 * for an unmapped one). The caller checked that it does not wrap.
 */
static int npu_job_user(struct npu_job *job, u64 addr, u64 len)
{
	u64 end;

	if (len > NPU_HOST_MAX_LENGTH)
		return -EINVAL;
	if (check_add_overflow(addr, len, &end) || end > TASK_SIZE)
		return -EFAULT;
	job->user_pin += npu_user_span(addr, len);
	return 0;
}

/*
 * Check the operands' address ranges, @dst_len and @src_len bytes from
 * their starts; take the host registrations. A pageable operand is only
 * counted here (@user_pin, its span kept in @dst_user/@src_user);
 * npu_job_pin() pins it once the SUBMIT has room for it.
 */
static int npu_job_host_spans(struct npu_context *ctx, struct npu_job *job,
			      u64 dst_len, u64 src_len)
{
	struct npu_cmd *cmd = &job->cmd;
	int ret;

	if (cmd->flags & NPU_CMD_DST_USER) {
		ret = npu_job_user(job, cmd->dst, dst_len);
		if (ret)
			return ret;
		job->dst_user = dst_len;
	}
	if (cmd->flags & NPU_CMD_SRC_USER) {
		ret = npu_job_user(job, cmd->src, src_len);
		if (ret)
			return ret;
		job->src_user = src_len;
	}
	if (cmd->flags & NPU_CMD_DST_HOST) {
		job->dst_reg = npu_host_reg_get(ctx, cmd->dst, dst_len);
		if (!job->dst_reg)
			return -ENXIO;
		if (job->dst_reg->flags & NPU_HOST_READONLY)
			return -EACCES;
	}
	if (cmd->flags & NPU_CMD_SRC_HOST) {
		job->src_reg = npu_host_reg_get(ctx, cmd->src, src_len);
		if (!job->src_reg)
			return -ENXIO;
	}
	return 0;
}

/* The same for a command whose operands are @len bytes each. */
static int npu_job_host(struct npu_context *ctx, struct npu_job *job, u64 len)
{
	return npu_job_host_spans(ctx, job, len, len);
}

/* Pin a pageable operand (a destination for write), or return 0. */
static int npu_job_pin_one(struct npu_context *ctx, struct npu_host_reg **reg,
			   u64 addr, u64 len, bool write)
{
	struct npu_host_reg *pin = npu_host_pin_user(ctx, addr, len, write);

	if (IS_ERR(pin))
		return PTR_ERR(pin);
	*reg = pin;
	return 0;
}

/* Pin @job's pageable operands, which npu_job_host_spans() counted. */
static int npu_job_pin(struct npu_context *ctx, struct npu_job *job)
{
	struct npu_cmd *cmd = &job->cmd;
	int ret = 0;

	if (cmd->flags & NPU_CMD_DST_USER)
		ret = npu_job_pin_one(ctx, &job->dst_reg, cmd->dst,
				      job->dst_user, true);
	if (!ret && cmd->flags & NPU_CMD_SRC_USER)
		ret = npu_job_pin_one(ctx, &job->src_reg, cmd->src,
				      job->src_user, false);
	return ret;
}

#define NPU_CMD_USER	(NPU_CMD_DST_USER | NPU_CMD_SRC_USER)
#define NPU_COPY_FLAGS	(NPU_CMD_DST_HOST | NPU_CMD_SRC_HOST | \
			 NPU_CMD_DST_PEER | NPU_CMD_SRC_PEER | NPU_CMD_USER)
/* Another address space for the same operand: at most one of each. */
#define NPU_DST_SPACES	(NPU_CMD_DST_HOST | NPU_CMD_DST_PEER | NPU_CMD_DST_USER)
#define NPU_SRC_SPACES	(NPU_CMD_SRC_HOST | NPU_CMD_SRC_PEER | NPU_CMD_SRC_USER)

/* Are both bits of @pair set in @flags? */
static bool npu_both(u32 flags, u32 pair)
{
	return (flags & pair) == pair;
}

/* Resolve a COPY's peer fd to another device's context of this process. */
static int npu_job_peer(struct npu_context *ctx, struct npu_job *job)
{
	u64 fd = job->cmd.value;

	if (fd > INT_MAX)
		return -EBADF;
	job->peer = npu_context_get_fd(fd);
	if (!job->peer)
		return -EBADF;
	if (job->peer->npu == ctx->npu)
		return -EBADF;
	if (!test_bit(job->peer->npu->index, &ctx->peers))
		return -EPERM;
	return 0;
}

/*
 * The bytes from the first of @height rows of @width bytes, @pitch apart,
 * to the end of the last, at @addr: into *@span; false if it wraps or the
 * pitch is shorter than a row.
 */
static bool npu_span_2d(u64 addr, u64 width, u64 pitch, u64 height, u64 *span)
{
	u64 end;

	return pitch >= width &&
	       !check_mul_overflow(pitch, height - 1, span) &&
	       !check_add_overflow(*span, width, span) &&
	       !check_add_overflow(addr, *span, &end);
}

/* COPY and COPY_2D: operand spans of @dst_span and @src_span bytes. */
static int npu_job_check_copy(struct npu_context *ctx, struct npu_job *job,
			      u64 dst_span, u64 src_span)
{
	struct npu_cmd *cmd = &job->cmd;

	if (cmd->flags & ~NPU_COPY_FLAGS ||
	    hweight32(cmd->flags & NPU_DST_SPACES) > 1 ||
	    hweight32(cmd->flags & NPU_SRC_SPACES) > 1)
		return -EINVAL;
	if (cmd->flags & (NPU_CMD_DST_PEER | NPU_CMD_SRC_PEER)) {
		int ret = npu_job_peer(ctx, job);

		if (ret)
			return ret;
	} else if (cmd->value) {
		return -EINVAL;
	}
	return npu_job_host_spans(ctx, job, dst_span, src_span);
}

static int npu_job_check(struct npu_context *ctx, struct npu_stream *stream,
			 struct npu_job *job)
{
	struct npu_cmd *cmd = &job->cmd;
	u64 end, dst_span, src_span;

	/* Only COPY_2D has a shape. */
	if (cmd->op != NPU_OP_COPY_2D &&
	    (cmd->dst_pitch || cmd->src_pitch || cmd->height))
		return -EINVAL;
	switch (cmd->op) {
	case NPU_OP_COPY:
		if (!cmd->length ||
		    check_add_overflow(cmd->dst, cmd->length, &end) ||
		    check_add_overflow(cmd->src, cmd->length, &end))
			return -EINVAL;
		return npu_job_check_copy(ctx, job, cmd->length, cmd->length);
	case NPU_OP_COPY_2D:
		if (!cmd->length || !cmd->height ||
		    cmd->height > NPU_COPY_2D_MAX_HEIGHT ||
		    !npu_span_2d(cmd->dst, cmd->length, cmd->dst_pitch,
				 cmd->height, &dst_span) ||
		    !npu_span_2d(cmd->src, cmd->length, cmd->src_pitch,
				 cmd->height, &src_span))
			return -EINVAL;
		return npu_job_check_copy(ctx, job, dst_span, src_span);
	case NPU_OP_FILL32:
		if (cmd->flags & ~(NPU_CMD_DST_HOST | NPU_CMD_DST_USER) ||
		    npu_both(cmd->flags, NPU_CMD_DST_HOST | NPU_CMD_DST_USER) ||
		    cmd->src ||
		    cmd->value > U32_MAX || !cmd->length ||
		    !IS_ALIGNED(cmd->dst | cmd->length, sizeof(u32)) ||
		    check_add_overflow(cmd->dst, cmd->length, &end))
			return -EINVAL;
		return npu_job_host(ctx, job, cmd->length);
	case NPU_OP_MEMSET:
		if (cmd->flags & ~(NPU_CMD_DST_HOST | NPU_CMD_DST_USER) ||
		    npu_both(cmd->flags, NPU_CMD_DST_HOST | NPU_CMD_DST_USER) ||
		    cmd->src ||
		    cmd->value > U8_MAX || !cmd->length ||
		    check_add_overflow(cmd->dst, cmd->length, &end))
			return -EINVAL;
		return npu_job_host(ctx, job, cmd->length);
	case NPU_OP_WRITE_VALUE:
		if (cmd->flags & ~(NPU_CMD_DST_HOST | NPU_CMD_DST_USER) ||
		    npu_both(cmd->flags, NPU_CMD_DST_HOST | NPU_CMD_DST_USER) ||
		    cmd->src || cmd->length ||
		    !IS_ALIGNED(cmd->dst, sizeof(u64)))
			return -EINVAL;
		return npu_job_host(ctx, job, sizeof(u64));
	case NPU_OP_WAIT_VALUE:
		if (cmd->flags & ~(NPU_CMD_SRC_HOST | NPU_CMD_SRC_USER |
				   NPU_WAIT_COND_MASK) ||
		    npu_both(cmd->flags, NPU_CMD_SRC_HOST | NPU_CMD_SRC_USER) ||
		    cmd->dst || cmd->length || !IS_ALIGNED(cmd->src, sizeof(u64)))
			return -EINVAL;
		return npu_job_host(ctx, job, sizeof(u64));
	case NPU_OP_WAIT_STREAM:
		if (cmd->flags || cmd->dst || cmd->length > U32_MAX ||
		    cmd->src == stream->id || cmd->src > U32_MAX)
			return -EINVAL;
		job->wait = npu_stream_get(ctx, cmd->src);
		return job->wait ? 0 : -ENOENT;
	case NPU_OP_PREFETCH:
		if (cmd->flags || cmd->src || cmd->value || !cmd->length ||
		    check_add_overflow(cmd->dst, cmd->length, &end))
			return -EINVAL;
		return 0;
	case NPU_OP_TIMESTAMP:
		if (cmd->flags & ~(NPU_CMD_DST_HOST | NPU_CMD_DST_USER) ||
		    npu_both(cmd->flags, NPU_CMD_DST_HOST | NPU_CMD_DST_USER) ||
		    cmd->src || cmd->length ||
		    cmd->value || !IS_ALIGNED(cmd->dst, sizeof(u64)))
			return -EINVAL;
		return npu_job_host(ctx, job, sizeof(u64));
	default:
		return -EINVAL;
	}
}

/*
 * Make room for @count more queued commands in @ctx, as a full ring would:
 * wait until enough earlier ones completed. The stream's abort (destroy,
 * close, unplug) ends the wait.
 */
static bool npu_queue_room(struct npu_context *ctx, struct npu_stream *stream,
			   unsigned int count, long cap, bool *charged)
{
	if (READ_ONCE(stream->aborted))
		return true;
	*charged = npu_charge(&ctx->queued, count, cap);
	return *charged;
}

/*
 * Whether the room was taken is what the wait's last look found: an
 * abort after it is SUBMIT's to see, under the stream's lock.
 */
static int npu_queue_charge(struct npu_context *ctx, struct npu_stream *stream,
			    unsigned int count)
{
	long cap = max(READ_ONCE(max_queued), NPU_SUBMIT_MAX_CMDS);
	bool charged = false;
	int ret;

	ret = wait_event_interruptible(ctx->queue_wq,
				       npu_queue_room(ctx, stream, count, cap,
						      &charged));
	if (ret)
		return ret;
	return charged ? 0 : -ENOENT;
}

static bool npu_user_pin_room(struct npu_context *ctx,
			      struct npu_stream *stream, u64 bytes, u64 cap,
			      bool *charged)
{
	if (READ_ONCE(stream->aborted))
		return true;
	*charged = npu_charge64(&ctx->user_pinned, bytes, cap);
	return *charged;
}

/*
 * Make room for @bytes more of pinned pageable memory in @ctx: wait until
 * earlier commands let go of enough, as npu_queue_charge() waits. More
 * than the cap by itself never fits: -ENOMEM.
 */
static int npu_user_pin_charge(struct npu_context *ctx,
			       struct npu_stream *stream, u64 bytes)
{
	u64 cap = READ_ONCE(max_user_pin);
	bool charged = false;
	int ret;

	if (bytes > cap)
		return -ENOMEM;
	ret = wait_event_interruptible(ctx->queue_wq,
				       npu_user_pin_room(ctx, stream, bytes,
							 cap, &charged));
	if (ret)
		return ret;
	return charged ? 0 : -ENOENT;
}

/*
 * Read command @i of a SUBMIT whose elements are @cmd_size bytes, as
 * copy_struct_from_user() reads an argument struct: a shorter element gets
 * zeroes, a longer one must have a zero tail (-E2BIG).
 */
static int npu_cmd_read(struct npu_cmd *cmd, u64 cmds, u32 cmd_size,
			unsigned int i)
{
	void __user *ucmd = u64_to_user_ptr(cmds + (u64)i * cmd_size);

	return copy_struct_from_user(cmd, sizeof(*cmd), ucmd, cmd_size);
}

int npu_submit_ioctl(struct npu_context *ctx, void *arg)
{
	struct npu_submit *args = arg;
	u32 cmd_size = args->cmd_size ? args->cmd_size : NPU_CMD_SIZE_V1;
	struct npu_stream *stream;
	struct npu_job *job, *tmp;
	LIST_HEAD(jobs);
	u64 user_pin = 0;
	unsigned int i;
	int ret = 0;

	atomic64_inc(&ctx->submits);
	if (args->flags || args->__reserved || !args->count ||
	    args->count > NPU_SUBMIT_MAX_CMDS ||
	    cmd_size < NPU_CMD_SIZE_V1 || !IS_ALIGNED(cmd_size, sizeof(u64)))
		return -EINVAL;
	if (cmd_size > SZ_4K)	/* bounds the scan for a non-zero tail */
		return -E2BIG;
	stream = npu_stream_get(ctx, args->stream);
	if (!stream)
		return -ENOENT;
	for (i = 0; i < args->count; i++) {
		job = kzalloc(sizeof(*job), GFP_KERNEL_ACCOUNT);
		if (!job) {
			ret = -ENOMEM;
			goto free_jobs;
		}
		list_add_tail(&job->link, &jobs);
		ret = npu_cmd_read(&job->cmd, args->cmds, cmd_size, i);
		if (ret)
			goto free_jobs;
		ret = npu_job_check(ctx, stream, job);
		if (ret)
			goto free_jobs;
		user_pin += job->user_pin;
		/* A long batch is a long loop: it stays preemptible. */
		cond_resched();
	}
	ret = npu_queue_charge(ctx, stream, args->count);
	if (ret)
		goto free_jobs;
	if (user_pin) {
		ret = npu_user_pin_charge(ctx, stream, user_pin);
		if (ret) {
			/* Give the queue's room back; the pins were not charged. */
			list_for_each_entry(job, &jobs, link)
				job->user_pin = 0;
			atomic_long_sub(args->count, &ctx->queued);
			if (wq_has_sleeper(&ctx->queue_wq))
				wake_up_all(&ctx->queue_wq);
			goto free_jobs;
		}
	}
	list_for_each_entry(job, &jobs, link)
		job->queued = ctx;
	/* Pinned after the room is taken, so that a waiting SUBMIT pins nothing. */
	list_for_each_entry(job, &jobs, link) {
		if (!job->user_pin)
			continue;
		ret = npu_job_pin(ctx, job);
		if (ret)
			goto free_jobs;
	}

	/* The CPU chosen stays online until the work is queued on it. */
	cpus_read_lock();
	spin_lock(&stream->lock);
	if (stream->aborted) {
		ret = -ENOENT;
	} else {
		list_for_each_entry(job, &jobs, link) {
			job->seqno = ++stream->submitted;
			trace_npu_cmd_submit(stream, &job->cmd, job->seqno);
		}
		args->seqno = stream->submitted;
		list_splice_tail_init(&jobs, &stream->queue);
		npu_stream_kick(stream, npu_dma_cpu());
	}
	spin_unlock(&stream->lock);
	cpus_read_unlock();
free_jobs:
	list_for_each_entry_safe(job, tmp, &jobs, link)
		npu_job_free(job);
	npu_stream_put(stream);
	return ret;
}

int npu_stream_sync_ioctl(struct npu_context *ctx, void *arg)
{
	struct npu_stream_sync *args = arg;
	struct npu_stream *stream;
	long timeout;
	u64 target;
	int ret = 0;

	if (args->flags || args->timeout_ms < -1)
		return -EINVAL;
	stream = npu_stream_get(ctx, args->stream);
	if (!stream)
		return -ENOENT;

	spin_lock(&stream->lock);
	target = args->seqno ? args->seqno : stream->submitted;
	if (target > stream->submitted)
		ret = -EINVAL;
	spin_unlock(&stream->lock);
	if (ret)
		goto put;

	timeout = args->timeout_ms < 0 ? MAX_SCHEDULE_TIMEOUT :
					 msecs_to_jiffies(args->timeout_ms);
	timeout = wait_event_interruptible_timeout(stream->wq,
						   npu_stream_done(stream, target),
						   timeout);
	if (timeout < 0) {
		/*
		 * Not -ERESTARTSYS: a restart would wait the whole relative
		 * timeout again, so a periodic signal would make it endless.
		 * The caller waits on with what is left of its deadline.
		 */
		ret = -EINTR;
		goto put;
	}
	if (!timeout && !npu_stream_done(stream, target)) {
		ret = -ETIMEDOUT;
		goto put;
	}
	spin_lock(&stream->lock);
	if (stream->error && stream->error_seq <= target) {
		ret = stream->error;
		stream->error = 0;
	} else if (stream->halted && stream->halt_seq < target) {
		/* Dropped after the fault, which was reported before. */
		ret = -ECANCELED;
	}
	spin_unlock(&stream->lock);
put:
	npu_stream_put(stream);
	return ret;
}

int npu_stream_set_mode_ioctl(struct npu_context *ctx, void *arg)
{
	struct npu_stream_mode *args = arg;
	struct npu_stream *stream;
	int ret = 0;

	if (args->flags || args->__reserved ||
	    args->mode & ~NPU_STREAM_MODE_MASK)
		return -EINVAL;
	stream = npu_stream_get(ctx, args->stream);
	if (!stream)
		return -ENOENT;
	spin_lock(&stream->lock);
	/* A mode can be set, not cleared. */
	if (stream->mode & ~args->mode)
		ret = -EINVAL;
	else
		stream->mode = args->mode;
	spin_unlock(&stream->lock);
	npu_stream_put(stream);
	return ret;
}

int npu_stream_create_ioctl(struct npu_context *ctx, void *arg)
{
	struct npu_stream_create *args = arg;
	struct npu_stream *stream;
	int ret;

	if (args->flags || args->__reserved)
		return -EINVAL;
	if (!npu_charge(&ctx->nr_streams, 1, READ_ONCE(max_streams)))
		return -ENOSPC;
	stream = kzalloc(sizeof(*stream), GFP_KERNEL_ACCOUNT);
	if (!stream) {
		atomic_long_dec(&ctx->nr_streams);
		return -ENOMEM;
	}
	kref_init(&stream->ref);
	stream->ctx = ctx;
	spin_lock_init(&stream->lock);
	INIT_LIST_HEAD(&stream->queue);
	INIT_DELAYED_WORK(&stream->work, npu_stream_work);
	init_waitqueue_head(&stream->wq);
	init_waitqueue_func_entry(&stream->waiter, npu_stream_wake);

	/*
	 * The id is written before the entry is visible to lookups (under
	 * the xarray's lock); ids are not reused soon after a destroy, so a
	 * stale id names no one else's new stream.
	 */
	ret = xa_alloc_cyclic(&ctx->streams, &stream->id, stream, xa_limit_32b,
			      &ctx->next_stream, GFP_KERNEL_ACCOUNT);
	if (ret < 0) {
		kfree(stream);
		atomic_long_dec(&ctx->nr_streams);
		return ret == -EBUSY ? -ENOSPC : ret;
	}
	args->stream = stream->id;
	return 0;
}

/*
 * Stop @stream: drop what is queued, stop what runs, wait for the worker.
 * Once aborted is set under the lock nothing queues or re-arms the work
 * (a wake-up of a parked stream included); the work queued here runs the
 * queue once more, which drops every command, and the flush waits for
 * it, so no work outlives this. The wake-up of the wq ends the waits
 * for this stream: STREAM_SYNC, and other streams' WAIT_STREAMs.
 */
static void npu_stream_stop(struct npu_stream *stream)
{
	spin_lock(&stream->lock);
	WRITE_ONCE(stream->aborted, true);
	if (!list_empty(&stream->queue))
		mod_delayed_work(npu_dma_wq, &stream->work, 0);
	spin_unlock(&stream->lock);
	wake_up_all(&stream->wq);
	wake_up_all(&stream->ctx->queue_wq);
	flush_delayed_work(&stream->work);
	/* The worker left any wq it was parked on; this is for certain. */
	npu_stream_unwait(stream);
}

/* The stream has left its context's table: it no longer counts. */
static void npu_stream_remove(struct npu_stream *stream)
{
	atomic_long_dec(&stream->ctx->nr_streams);
	npu_stream_stop(stream);
	npu_stream_put(stream);
}

int npu_stream_destroy_ioctl(struct npu_context *ctx, void *arg)
{
	struct npu_stream_destroy *args = arg;
	struct npu_stream *stream;

	if (args->flags & ~NPU_STREAM_DESTROY_FORCE || args->__reserved)
		return -EINVAL;
	stream = xa_erase(&ctx->streams, args->stream);
	if (!stream)
		return -ENOENT;
	if (!(args->flags & NPU_STREAM_DESTROY_FORCE)) {
		u64 target;

		spin_lock(&stream->lock);
		target = stream->submitted;
		spin_unlock(&stream->lock);
		/* A fatal signal ends the wait; the stop below then aborts. */
		wait_event_killable(stream->wq, npu_stream_done(stream, target));
	}
	npu_stream_remove(stream);
	return 0;
}

/* At close: stop every stream first, so no DMA outlives the context. */
void npu_streams_release(struct npu_context *ctx)
{
	struct npu_stream *stream;
	unsigned long id;

	xa_for_each(&ctx->streams, id, stream) {
		if (xa_erase(&ctx->streams, id) == stream)
			npu_stream_remove(stream);
	}
}

/*
 * Unplug: stop every stream's DMA and end the waits for it; the streams
 * stay in the table (their ioctls answer -ENODEV) until shutdown.
 */
void npu_streams_abort(struct npu_context *ctx)
{
	struct npu_stream *stream;
	unsigned long id;

	xa_for_each(&ctx->streams, id, stream) {
		stream = npu_stream_get(ctx, id);
		if (!stream)
			continue;
		npu_stream_stop(stream);
		npu_stream_put(stream);
	}
}

int npu_dma_init(void)
{
	if (!dma_channels || dma_channels > 64) {
		pr_err("npu: dma_channels=%u: must be 1..64\n", dma_channels);
		return -EINVAL;
	}
	/*
	 * Per-CPU workers, so a stream runs where npu_stream_kick() puts it;
	 * CPU-intensive, so a long copy does not hold up other work there;
	 * dma_channels at a time on each CPU.
	 */
	npu_dma_wq = alloc_workqueue("npu_dma", WQ_CPU_INTENSIVE, dma_channels);
	return npu_dma_wq ? 0 : -ENOMEM;
}

void npu_dma_exit(void)
{
	destroy_workqueue(npu_dma_wq);
}
