/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npu: simulated accelerator memory driver - devices and contexts.
 */
#ifndef __NPU_DRV_H__
#define __NPU_DRV_H__

#include <linux/bits.h>
#include <linux/device.h>
#include <linux/iommu.h>
#include <linux/kref.h>
#include <linux/ktime.h>
#include <linux/miscdevice.h>
#include <linux/mmu_notifier.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/srcu.h>
#include <linux/uuid.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "npu_compat.h"
#include "npu_engine.h"
#include "npu_kernel.h"
#include "npu_obj.h"
#include "npu_vm.h"

struct npu_engine_user;

/**
 * struct npu_device - one simulated NPU
 * @index: N of /dev/npuN
 * @misc: the character device
 * @dma_dev: device that host memory is DMA-mapped for: a PCI carrier
 *	function (translated by its IOMMU domain) or a platform device
 * @carrier: the PCI function carrying this NPU (a reference), or NULL
 * @pdev: the platform device used when there is no carrier
 * @domain: IOMMU paging domain of @dma_dev, or NULL for direct DMA
 * @mem: device memory (allocator and backing pages)
 * @ctx_lock: protects @contexts, @unplugged, the reset's state and each
 *	listed context's @lost
 * @contexts: the open contexts, for unplug
 * @unplugged: the carrier went away: every ioctl answers -ENODEV; read
 *	locklessly inside the @unplug_srcu read side
 * @unplug_srcu: the device's unplug barrier: every ioctl, and every
 *	mirror fault the engine makes, runs inside its read side
 *	(npu_device_enter()); removal waits for them after setting
 *	@unplugged. One per device, so that a wait on one device never holds
 *	up the removal of another.
 * @created_ns: ktime_get_ns() when the device was created: the device
 *	clock (NPU_OP_TIMESTAMP, GET_INFO) counts from there
 * @uuid: random, made once when the device is created (GET_INFO)
 * @iommu: the DMA device's IOMMU domain type at creation, for the
 *	management plane ("none", "identity", "dma", ...)
 * @faults: DMA faults of the device's contexts since load or a counters
 *	reset (npu_netlink.c)
 * @busy: how long the engine worked for the device since it was created
 * @resetting: a device reset is under way (npu_device_reset()): opens
 *	wait for its end; written under @ctx_lock, read locklessly
 * @resets: device resets completed since load (under @ctx_lock)
 * @reset_lost: contexts the reset under way took down (under @ctx_lock)
 * @reset_wq: opens waiting for the reset under way to end
 * @reset_work: the reset's second half, off the caller: waits for the
 *	ioctls in flight, releases the lost contexts' host memory, wipes
 *	device memory, then lets opens in again
 */
struct npu_device {
	unsigned int index;
	char name[16];
	struct miscdevice misc;
	struct device *dma_dev;
	struct pci_dev *carrier;
	struct platform_device *pdev;
	struct iommu_domain *domain;
	struct npu_devmem *mem;
	struct mutex ctx_lock;		/* see above */
	struct list_head contexts;
	bool unplugged;
	struct srcu_struct unplug_srcu;
	u64 created_ns;
	uuid_t uuid;
	const char *iommu;
	atomic64_t faults;
	struct npu_busy_clock busy;
	bool resetting;
	u32 resets;
	u32 reset_lost;
	wait_queue_head_t reset_wq;
	struct work_struct reset_work;
};

/**
 * struct npu_context - state of one open file: one process on one device
 * @ref: the open file holds one; so does each peer COPY naming it, which
 *	keeps the struct (not its contents) alive after close
 * @npu: the device
 * @node: in the device's context list (under its ctx_lock)
 * @mm: the process the context serves (a grab held as long as the struct,
 *	so whoever holds @ref may look at it; its pinned_vm shows pins)
 * @mn: tells when @mm goes away (exit, exec): DMA stops and pins go then
 * @shutdown_lock: serialises npu_context_shutdown() and protects @shut
 * @shut: DMA stopped and host memory released, for good
 * @import_lock: protects @imports; held while an import's attachment is
 *	torn down (npu_dmabuf_import.c)
 * @imports: the imported dma-bufs still attached to the device (struct
 *	npu_import), for the shutdown
 * @tgid: the process, for fault reports
 * @comm: its name, for fault reports
 * @id: unique until unload, increasing in open order: the netlink process
 *	dump resumes after the last id it sent; fdinfo's npu-client-id and
 *	the tracepoints' client
 * @pid: the opening process (thread group; a reference), whose number the
 *	netlink dump and fdinfo report in the reader's pid namespace
 * @uid: the opener's real uid: who may see the context without
 *	CAP_SYS_ADMIN, and whose turn on the engine its streams take
 * @engine_user: the engine's record of @uid (npu_engine_user_get())
 * @memcg: the opener's memory cgroup, charged for the device pages that
 *	this context's mappings are the first to write (a reference)
 * @objs: the handles and streams it names by id, and their caps
 * @nr_exported: handles with a shareable name (SHARE_EXPORT) and IPC keys
 * @nr_ipc_keys: IPC keys (IPC_EXPORT), within max_ipc_keys
 * @nr_dmabufs: dma-bufs exported from this context (DMABUF_EXPORT) that
 *	are not yet released, within max_dmabufs; each holds a reference
 *	to the context
 * @nr_apertures: aperture files not yet released; each holds a
 *	reference to the context
 * @host_pinned: bytes of host memory pinned by the registrations
 * @host_memlock: of them, bytes charged to the user's locked_vm
 * @faults: DMA faults of the context's streams since open or a reset
 * @submits: SUBMIT ioctls of the context since open, failed ones included
 * @mem_charged: bytes of device memory this context allocated and that
 *	still exist, within ctx_mem_limit
 * @rss_lock: protects @rss_closed, and orders it with the frees that
 *	take from @mem_charged
 * @rss_closed: the file is closed: @mem_charged no longer counts in
 *	@mm's RSS (npu_devmem.c)
 * @queued: commands submitted and not yet freed, within max_queued
 * @user_pinned: bytes of pageable memory that queued commands pin
 *	(NPU_CMD_DST_USER, NPU_CMD_SRC_USER), within max_user_pin
 * @queue_wq: woken when @queued or @user_pinned goes down or a stream is
 *	aborted
 * @vm: the device VA space: reservations, mappings, host registrations
 *	and page tables, and the lock that protects them
 * @host_wq: woken when a command lets go of a registration
 * @pt: device page tables
 * @peers: devices whose memory this context's DMA engine may reach
 *	(PEER_ENABLE, PEER_DISABLE; atomic bitops; the engine reads it for
 *	every peer access)
 * @lost: the device was reset while the context was open: its streams
 *	were aborted and every ioctl answers -ESTALE from then on; set once,
 *	under the device's ctx_lock, read locklessly inside the device's
 *	unplug barrier
 */
struct npu_context {
	struct kref ref;
	struct npu_device *npu;
	struct list_head node;
	struct mm_struct *mm;
	struct mmu_notifier mn;
	struct mutex shutdown_lock;	/* see above */
	bool shut;
	struct mutex import_lock;	/* see above */
	struct list_head imports;
	pid_t tgid;
	char comm[TASK_COMM_LEN];
	u64 id;
	struct pid *pid;
	kuid_t uid;
	struct npu_engine_user *engine_user;
	struct mem_cgroup *memcg;
	struct npu_objs objs;
	atomic_long_t nr_exported;
	atomic_long_t nr_ipc_keys;
	atomic_long_t nr_dmabufs;
	atomic_long_t nr_apertures;
	atomic64_t host_pinned;
	atomic64_t host_memlock;
	atomic64_t faults;
	atomic64_t submits;
	atomic_long_t mem_charged;
	spinlock_t rss_lock;		/* see above */
	bool rss_closed;
	atomic_long_t queued;
	atomic64_t user_pinned;
	wait_queue_head_t queue_wq;
	struct npu_vm vm;
	wait_queue_head_t host_wq;
	unsigned long peers;
	bool lost;
	struct npu_kernels kernels;
};

unsigned int npu_device_count(void);
struct npu_device *npu_device_lookup(unsigned int index);
const char *npu_soc_name(void);

/* The device clock: nanoseconds since @npu was created. */
static inline u64 npu_device_clock(const struct npu_device *npu)
{
	return ktime_get_ns() - npu->created_ns;
}

/**
 * npu_device_enter() - enter @npu's unplug barrier
 * @npu: the device
 * @idx: out, for npu_device_exit()
 *
 * Return: true, inside the barrier (npu_device_exit() ends it); false,
 * outside it, if the device is unplugged.
 */
static inline bool npu_device_enter(struct npu_device *npu, int *idx)
{
	*idx = srcu_read_lock(&npu->unplug_srcu);
	if (!READ_ONCE(npu->unplugged))
		return true;
	srcu_read_unlock(&npu->unplug_srcu, *idx);
	return false;
}

static inline void npu_device_exit(struct npu_device *npu, int idx)
{
	srcu_read_unlock(&npu->unplug_srcu, idx);
}

/*
 * The device was reset or unplugged since @ctx opened: its streams were
 * aborted, and no command runs in it any more.
 */
static inline bool npu_context_lost(const struct npu_context *ctx)
{
	return READ_ONCE(ctx->lost) || READ_ONCE(ctx->npu->unplugged);
}

int npu_device_reset(struct npu_device *npu);

struct npu_context *npu_context_get_fd(int fd);
void npu_context_put(struct npu_context *ctx);

static inline void npu_context_get(struct npu_context *ctx)
{
	kref_get(&ctx->ref);
}

/*
 * Take @n more of a per-context resource counted in @count if that stays
 * within @cap: every object a user can make the kernel hold is capped.
 */
static inline bool npu_charge(atomic_long_t *count, long n, long cap)
{
	long cur = atomic_long_read(count);

	do {
		if (cur + n > cap)
			return false;
	} while (!atomic_long_try_cmpxchg(count, &cur, cur + n));
	return true;
}

/* npu_charge() of a 64-bit count, such as bytes. */
static inline bool npu_charge64(atomic64_t *count, u64 n, u64 cap)
{
	s64 cur = atomic64_read(count);

	do {
		if ((u64)cur + n > cap)
			return false;
	} while (!atomic64_try_cmpxchg(count, &cur, cur + n));
	return true;
}

#endif /* __NPU_DRV_H__ */
