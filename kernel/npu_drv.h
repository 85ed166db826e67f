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
#include <linux/maple_tree.h>
#include <linux/miscdevice.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/sched.h>
#include <linux/xarray.h>

#include "npu_compat.h"
#include "npu_mmu.h"

#define NPU_MAX_DEVICES		8
#define NPU_VA_START		SZ_2M
#define NPU_VA_END		BIT_ULL(47)

/**
 * struct npu_device - one simulated NPU
 * @index: N of /dev/npuN
 * @misc: the character device
 * @dma_dev: device that host memory is DMA-mapped for: a PCI carrier
 *	function (translated by its IOMMU domain) or a platform device
 * @carrier: the PCI function carrying this NPU, or NULL
 * @pdev: the platform device used when there is no carrier
 * @domain: IOMMU paging domain of @dma_dev, or NULL for direct DMA
 * @mem: device memory (allocator and backing pages)
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
};

/**
 * struct npu_context - state of one open file: one process on one device
 * @ref: the open file holds one; so does each peer COPY naming it, which
 *	keeps the struct (not its contents) alive after close
 * @dead: set under @vm_lock at close, before anything is torn down: a
 *	peer COPY that gets the lock afterwards faults instead
 * @npu: the device
 * @mm: the process the context serves (pinning charges it)
 * @tgid: the process, for fault reports
 * @comm: its name, for fault reports
 * @memcg: the opener's memory cgroup, charged for the device pages that
 *	this context's mappings are the first to write (a reference)
 * @handles: physical handles by id (internally locked)
 * @streams: streams by id (internally locked)
 * @vm_lock: protects @reservations, @mappings, @host_regs, @pt and every
 *	mapping's state; DMA takes it shared for each chunk it moves, so
 *	unmap and unregister never race with an access in progress
 * @reservations: device VA reservations, keyed by range
 * @mappings: device mappings, keyed by range
 * @host_regs: host registrations, keyed by user address range
 * @pt: device page tables
 * @peers: devices whose memory this context's DMA engine may reach
 *	(PEER_ENABLE; atomic bitops)
 */
struct npu_context {
	struct kref ref;
	bool dead;
	struct npu_device *npu;
	struct mm_struct *mm;
	pid_t tgid;
	char comm[TASK_COMM_LEN];
	struct mem_cgroup *memcg;
	struct xarray handles;
	struct xarray streams;
	struct rw_semaphore vm_lock;
	struct maple_tree reservations;
	struct maple_tree mappings;
	struct maple_tree host_regs;
	struct npu_pt pt;
	unsigned long peers;
};

unsigned int npu_device_count(void);
struct npu_context *npu_context_get_fd(int fd);
void npu_context_put(struct npu_context *ctx);

#endif /* __NPU_DRV_H__ */
