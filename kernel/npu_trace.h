/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npu: tracepoints (system "npu", Documentation/observability.rst).
 *
 * Each event takes the driver's own objects and copies what it reports
 * in TP_fast_assign(), so a disabled event costs a static branch and
 * nothing else. npu_trace.c instantiates them (CREATE_TRACE_POINTS).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM npu

#if !defined(__NPU_TRACE_H__) || defined(TRACE_HEADER_MULTI_READ)
#define __NPU_TRACE_H__

#include <linux/scatterlist.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#include <uapi/npu.h>

#include "npu_cmd.h"
#include "npu_devmem.h"
#include "npu_drv.h"
#include "npu_host.h"
#include "npu_stream.h"
#include "npu_vm.h"

/* Enum values in print formats resolve for user-space parsers (perf, trace-cmd). */
TRACE_DEFINE_ENUM(NPU_ACCESS_NONE);
TRACE_DEFINE_ENUM(NPU_ACCESS_READ);
TRACE_DEFINE_ENUM(NPU_ACCESS_READWRITE);

#ifndef __NPU_TRACE_HELPERS__
#define __NPU_TRACE_HELPERS__
/* The context a VA space belongs to. */
static inline const struct npu_context *npu_trace_vm_ctx(const struct npu_vm *vm)
{
	return container_of(vm, struct npu_context, vm);
}

/* The granule a mapping maps in. */
static inline u64 npu_trace_map_page_size(const struct npu_mapping *map)
{
	return map->handle ? map->handle->page_size : PAGE_SIZE;
}

/* The DMA address of a registration's first segment, 0 if not mapped. */
static inline u64 npu_trace_reg_dma(const struct npu_host_reg *reg)
{
	return reg->pages.sgt.nents ? sg_dma_address(reg->pages.sgt.sgl) : 0;
}
#endif

/* Longest DMA fault reason (npu_vm_translate_locked(), npu_dma.c). */
#define NPU_TRACE_REASON_LEN	32
/* Longest operation name (npu_cmd_name()) with its NUL. */
#define NPU_TRACE_OP_LEN	16

DECLARE_EVENT_CLASS(npu_host_pin_class,
		    TP_PROTO(const struct npu_host_reg *reg),
		    TP_ARGS(reg),
		    TP_STRUCT__entry(__field(u32, device)
				     __field(pid_t, pid)
				     __field(u64, client)
				     __field(u64, addr)
				     __field(u64, length)
				     __field(u64, pages)
				     __field(bool, readonly)),
		    TP_fast_assign(__entry->device = reg->ctx->npu->index;
				   __entry->pid = reg->ctx->tgid;
				   __entry->client = reg->ctx->id;
				   __entry->addr = reg->addr;
				   __entry->length = reg->size;
				   __entry->pages = reg->size >> PAGE_SHIFT;
				   __entry->readonly = reg->flags & NPU_HOST_READONLY;),
		    TP_printk("npu%u pid=%d client=%llu addr=%#llx length=%llu pages=%llu readonly=%d",
			      __entry->device, __entry->pid, __entry->client,
			      __entry->addr, __entry->length, __entry->pages,
			      __entry->readonly)
);

/* HOST_REGISTER pinned the pages of a registration. */
DEFINE_EVENT(npu_host_pin_class, npu_host_pin,
	     TP_PROTO(const struct npu_host_reg *reg),
	     TP_ARGS(reg)
);

/* A registration's pages are unpinned (unregister, shutdown, error). */
DEFINE_EVENT(npu_host_pin_class, npu_host_unpin,
	     TP_PROTO(const struct npu_host_reg *reg),
	     TP_ARGS(reg)
);

DECLARE_EVENT_CLASS(npu_dma_map_class,
		    TP_PROTO(const struct npu_host_reg *reg),
		    TP_ARGS(reg),
		    TP_STRUCT__entry(__field(u32, device)
				     __field(pid_t, pid)
				     __field(u64, dma)
				     __field(u64, length)
				     __field(u32, nents)
				     __field(bool, iommu)),
		    TP_fast_assign(__entry->device = reg->ctx->npu->index;
				   __entry->pid = reg->ctx->tgid;
				   __entry->dma = npu_trace_reg_dma(reg);
				   __entry->length = reg->size;
				   __entry->nents = reg->pages.sgt.nents;
				   __entry->iommu = !!reg->ctx->npu->domain;),
		    TP_printk("npu%u pid=%d dma=%#llx length=%llu nents=%u iommu=%d",
			      __entry->device, __entry->pid, __entry->dma,
			      __entry->length, __entry->nents, __entry->iommu)
);

/* A registration's pages were DMA-mapped for the NPU's DMA device. */
DEFINE_EVENT(npu_dma_map_class, npu_dma_map,
	     TP_PROTO(const struct npu_host_reg *reg),
	     TP_ARGS(reg)
);

/* ... and are about to be DMA-unmapped. */
DEFINE_EVENT(npu_dma_map_class, npu_dma_unmap,
	     TP_PROTO(const struct npu_host_reg *reg),
	     TP_ARGS(reg)
);

DECLARE_EVENT_CLASS(npu_va_map_class,
		    TP_PROTO(const struct npu_vm *vm, const struct npu_mapping *map),
		    TP_ARGS(vm, map),
		    TP_STRUCT__entry(__field(u32, device)
				     __field(pid_t, pid)
				     __field(u64, client)
				     __field(u64, va)
				     __field(u64, length)
				     __field(u64, page_size)
				     __field(u32, access)
				     __field(bool, host)
				     __field(bool, peers)),
		    TP_fast_assign(__entry->device = vm->device;
				   __entry->pid = npu_trace_vm_ctx(vm)->tgid;
				   __entry->client = npu_trace_vm_ctx(vm)->id;
				   __entry->va = map->start;
				   __entry->length = map->size;
				   __entry->page_size = npu_trace_map_page_size(map);
				   __entry->access = map->access;
				   __entry->host = !!map->host;
				   __entry->peers = map->peers;),
		    TP_printk("npu%u pid=%d client=%llu va=%#llx length=%llu page_size=%llu access=%s host=%d peers=%d",
			      __entry->device, __entry->pid, __entry->client,
			      __entry->va, __entry->length, __entry->page_size,
			      __print_symbolic(__entry->access,
					       { NPU_ACCESS_NONE, "none" },
					       { NPU_ACCESS_READ, "r" },
					       { NPU_ACCESS_READWRITE, "rw" }),
			      __entry->host, __entry->peers)
);

/* A mapping entered the device page tables (MAP, a MAPPED registration). */
DEFINE_EVENT(npu_va_map_class, npu_va_map,
	     TP_PROTO(const struct npu_vm *vm, const struct npu_mapping *map),
	     TP_ARGS(vm, map)
);

/* A mapping left them (UNMAP, unregister, close). */
DEFINE_EVENT(npu_va_map_class, npu_va_unmap,
	     TP_PROTO(const struct npu_vm *vm, const struct npu_mapping *map),
	     TP_ARGS(vm, map)
);

/* SET_ACCESS changed the rights of device @peer on a range of mappings. */
TRACE_EVENT(npu_va_set_access,
	    TP_PROTO(const struct npu_vm *vm, u64 va, u64 length, u32 peer,
		     u32 access),
	    TP_ARGS(vm, va, length, peer, access),
	    TP_STRUCT__entry(__field(u32, device)
			     __field(pid_t, pid)
			     __field(u64, client)
			     __field(u64, va)
			     __field(u64, length)
			     __field(u32, access)
			     __field(u32, peer)),
	    TP_fast_assign(__entry->device = vm->device;
			   __entry->pid = npu_trace_vm_ctx(vm)->tgid;
			   __entry->client = npu_trace_vm_ctx(vm)->id;
			   __entry->va = va;
			   __entry->length = length;
			   __entry->access = access;
			   __entry->peer = peer;),
	    TP_printk("npu%u pid=%d client=%llu va=%#llx length=%llu access=%s peer=%u",
		      __entry->device, __entry->pid, __entry->client,
		      __entry->va, __entry->length,
		      __print_symbolic(__entry->access,
				       { NPU_ACCESS_NONE, "none" },
				       { NPU_ACCESS_READ, "r" },
				       { NPU_ACCESS_READWRITE, "rw" }),
		      __entry->peer)
);

/* SUBMIT queued a command on a stream. */
TRACE_EVENT(npu_cmd_submit,
	    TP_PROTO(const struct npu_stream *stream, const struct npu_job *job,
		     u64 seqno),
	    TP_ARGS(stream, job, seqno),
	    TP_STRUCT__entry(__field(u32, device)
			     __field(pid_t, pid)
			     __field(u32, stream)
			     __field(u64, seqno)
			     __array(char, op, NPU_TRACE_OP_LEN)
			     __field(u32, flags)
			     __field(u64, dst)
			     __field(u64, src)
			     __field(u64, bytes)),
	    TP_fast_assign(__entry->device = stream->ctx->npu->index;
			   __entry->pid = stream->ctx->tgid;
			   __entry->stream = stream->id;
			   __entry->seqno = seqno;
			   strscpy(__entry->op, npu_cmd_name(job->cmd.op),
				   NPU_TRACE_OP_LEN);
			   __entry->flags = job->cmd.flags;
			   __entry->dst = job->cmd.dst;
			   __entry->src = job->cmd.src;
			   __entry->bytes = npu_job_bytes(job);),
	    TP_printk("npu%u pid=%d stream=%u seqno=%llu op=%s flags=%#x dst=%#llx src=%#llx bytes=%llu",
		      __entry->device, __entry->pid, __entry->stream,
		      __entry->seqno,
		      __entry->op,
		      __entry->flags, __entry->dst, __entry->src,
		      __entry->bytes)
);

/*
 * A command finished: ran (result 0 or its error) or was dropped
 * (-ECANCELED). @start is the ktime_get_ns() it started at, 0 if it never
 * ran or the event was off then; reported on the device clock.
 */
TRACE_EVENT(npu_cmd_complete,
	    TP_PROTO(const struct npu_stream *stream, const struct npu_job *job,
		     u64 seqno, int result, u64 start),
	    TP_ARGS(stream, job, seqno, result, start),
	    TP_STRUCT__entry(__field(u32, device)
			     __field(pid_t, pid)
			     __field(u32, stream)
			     __field(u64, seqno)
			     __array(char, op, NPU_TRACE_OP_LEN)
			     __field(u64, bytes)
			     __field(int, result)
			     __field(u64, start_ns)
			     __field(u64, duration_ns)),
	    TP_fast_assign(__entry->device = stream->ctx->npu->index;
			   __entry->pid = stream->ctx->tgid;
			   __entry->stream = stream->id;
			   __entry->seqno = seqno;
			   strscpy(__entry->op, npu_cmd_name(job->cmd.op),
				   NPU_TRACE_OP_LEN);
			   __entry->bytes = npu_job_bytes(job);
			   __entry->result = result;
			   __entry->start_ns = start ?
				start - stream->ctx->npu->created_ns : 0;
			   __entry->duration_ns = start ?
				ktime_get_ns() - start : 0;),
	    TP_printk("npu%u pid=%d stream=%u seqno=%llu op=%s bytes=%llu result=%d start_ns=%llu duration_ns=%llu",
		      __entry->device, __entry->pid, __entry->stream,
		      __entry->seqno,
		      __entry->op,
		      __entry->bytes, __entry->result, __entry->start_ns,
		      __entry->duration_ns)
);

/* The DMA engine faulted on an operand: the command fails with -EIO. */
TRACE_EVENT(npu_dma_fault,
	    TP_PROTO(const struct npu_stream *stream, u64 addr, bool host,
		     bool write, const char *reason),
	    TP_ARGS(stream, addr, host, write, reason),
	    TP_STRUCT__entry(__field(u32, device)
			     __field(pid_t, pid)
			     __field(u32, stream)
			     __field(u64, addr)
			     __field(bool, host)
			     __field(bool, write)
			     __array(char, reason, NPU_TRACE_REASON_LEN)),
	    TP_fast_assign(__entry->device = stream->ctx->npu->index;
			   __entry->pid = stream->ctx->tgid;
			   __entry->stream = stream->id;
			   __entry->addr = addr;
			   __entry->host = host;
			   __entry->write = write;
			   strscpy(__entry->reason, reason,
				   NPU_TRACE_REASON_LEN);),
	    TP_printk("npu%u pid=%d stream=%u addr=%#llx host=%d access=%s reason=%s",
		      __entry->device, __entry->pid, __entry->stream,
		      __entry->addr, __entry->host,
		      __entry->write ? "write" : "read", __entry->reason)
);

/* A kernel launch is on the context's kernel queue: the executor may take it. */
TRACE_EVENT(npu_kernel_launch,
	    TP_PROTO(const struct npu_stream *stream, u64 job, u64 seqno,
		     u64 func, u32 block_dim),
	    TP_ARGS(stream, job, seqno, func, block_dim),
	    TP_STRUCT__entry(__field(u32, device)
			     __field(pid_t, pid)
			     __field(u32, stream)
			     __field(u64, seqno)
			     __field(u64, job)
			     __field(u64, func)
			     __field(u32, block_dim)),
	    TP_fast_assign(__entry->device = stream->ctx->npu->index;
			   __entry->pid = stream->ctx->tgid;
			   __entry->stream = stream->id;
			   __entry->seqno = seqno;
			   __entry->job = job;
			   __entry->func = func;
			   __entry->block_dim = block_dim;),
	    TP_printk("npu%u pid=%d stream=%u seqno=%llu job=%llu func=%#llx blocks=%u",
		      __entry->device, __entry->pid, __entry->stream,
		      __entry->seqno, __entry->job, __entry->func,
		      __entry->block_dim)
);

/*
 * A taken launch is over: its DONE came (result 0, -EIO, -EHWPOISON) or
 * the file that took it was released (-EIO, flags NPU_FAULT_AICORE).
 */
TRACE_EVENT(npu_kernel_done,
	    TP_PROTO(const struct npu_stream *stream, u64 job, u64 seqno,
		     int result, u64 addr, u32 flags, u64 busy_ns),
	    TP_ARGS(stream, job, seqno, result, addr, flags, busy_ns),
	    TP_STRUCT__entry(__field(u32, device)
			     __field(pid_t, pid)
			     __field(u32, stream)
			     __field(u64, seqno)
			     __field(u64, job)
			     __field(int, result)
			     __field(u64, addr)
			     __field(u32, flags)
			     __field(u64, busy_ns)),
	    TP_fast_assign(__entry->device = stream->ctx->npu->index;
			   __entry->pid = stream->ctx->tgid;
			   __entry->stream = stream->id;
			   __entry->seqno = seqno;
			   __entry->job = job;
			   __entry->result = result;
			   __entry->addr = addr;
			   __entry->flags = flags;
			   __entry->busy_ns = busy_ns;),
	    TP_printk("npu%u pid=%d stream=%u seqno=%llu job=%llu result=%d addr=%#llx flags=%#x busy_ns=%llu",
		      __entry->device, __entry->pid, __entry->stream,
		      __entry->seqno, __entry->job, __entry->result,
		      __entry->addr, __entry->flags, __entry->busy_ns)
);

#endif /* __NPU_TRACE_H__ */

/* Out of tree: Kbuild puts this directory on the include path. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE npu_trace
#include <trace/define_trace.h>
