/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npu: per-file usage in /proc/PID/fdinfo (Documentation/observability.rst).
 */
#ifndef __NPU_FDINFO_H__
#define __NPU_FDINFO_H__

#include <linux/types.h>

struct file;
struct npu_context;
struct seq_file;

/**
 * struct npu_context_usage - what one context holds, from the driver's
 *	own accounting
 * @mem_device: bytes of device memory it allocated that still exist
 *	(npu_context.mem_charged)
 * @host_pinned: bytes of host memory its registrations pin
 * @host_locked: of them, bytes charged to a user's RLIMIT_MEMLOCK
 * @handles: physical handles in its table
 * @imports: of them, from SHARE_IMPORT, IPC_IMPORT or DMABUF_IMPORT
 * @exports: names it exported that still exist
 * @dmabufs: dma-bufs it exported that are not yet released
 * @streams: streams
 * @models: models (MODEL_CREATE)
 * @mappings: device VA mappings (of device memory and of MAPPED
 *	registrations)
 * @reservations: VA_RESERVE reservations
 * @host_regs: host registrations
 * @queued: commands submitted and not yet finished
 * @submits: SUBMIT ioctls since open (npu_context.submits)
 * @faults: DMA faults of its streams since open or a counters reset
 * @launches: kernel launches its streams queued since open
 * @aicore_busy_ns: AI core time its executor reported (KERNEL_DONE)
 * @shut: the context shut down (mm gone, carrier unplugged): it holds no
 *	host memory and runs no command any more
 */
struct npu_context_usage {
	u64 mem_device;
	u64 host_pinned;
	u64 host_locked;
	unsigned long handles;
	unsigned long imports;
	unsigned long exports;
	unsigned long dmabufs;
	unsigned long streams;
	unsigned long models;
	unsigned long mappings;
	unsigned long reservations;
	unsigned long host_regs;
	unsigned long queued;
	u64 submits;
	u64 faults;
	u64 launches;
	u64 aicore_busy_ns;
	bool shut;
};

void npu_context_usage(struct npu_context *ctx, struct npu_context_usage *u);
void npu_show_fdinfo(struct seq_file *m, struct file *file);

#endif /* __NPU_FDINFO_H__ */
