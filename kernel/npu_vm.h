/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npu: the device VA space of a context - reservations and mappings.
 */
#ifndef __NPU_VM_H__
#define __NPU_VM_H__

#include <linux/types.h>

#include "npu_drv.h"

struct npu_context;
struct npu_handle;
struct npu_host_reg;

/**
 * struct npu_reservation - a reserved device VA range
 * @start: first byte
 * @size: bytes
 * @owner: the MAPPED host registration whose device VA this is, or NULL
 *	for a VA_RESERVE reservation
 * @mappings: mappings inside it
 */
struct npu_reservation {
	u64 start;
	u64 size;
	struct npu_host_reg *owner;
	unsigned int mappings;
};

/**
 * struct npu_mapping - device VA range backed by device or host memory
 * @start: first byte
 * @size: bytes
 * @access: NPU_ACCESS_* of this device (mirrored in the PTEs)
 * @peer_access: NPU_ACCESS_* of each other device's DMA engine
 * @resv: the reservation it lies in
 * @handle: the device memory mapped (holds a reference), or NULL
 * @host: the host registration mapped, or NULL
 */
struct npu_mapping {
	u64 start;
	u64 size;
	u32 access;
	u8 peer_access[NPU_MAX_DEVICES];
	struct npu_reservation *resv;
	struct npu_handle *handle;
	struct npu_host_reg *host;
};

int npu_vm_init(struct npu_context *ctx);
void npu_vm_release(struct npu_context *ctx);

int npu_vm_map_host_locked(struct npu_context *ctx, struct npu_host_reg *reg);
void npu_vm_unmap_host_locked(struct npu_context *ctx, struct npu_host_reg *reg);

bool npu_vm_peer_allows_locked(struct npu_context *peer, u64 va,
			       unsigned int device, bool write);

int npu_va_reserve_ioctl(struct npu_context *ctx, void *arg);
int npu_va_release_ioctl(struct npu_context *ctx, void *arg);
int npu_map_ioctl(struct npu_context *ctx, void *arg);
int npu_unmap_ioctl(struct npu_context *ctx, void *arg);
int npu_set_access_ioctl(struct npu_context *ctx, void *arg);
int npu_get_access_ioctl(struct npu_context *ctx, void *arg);
int npu_addr_query_ioctl(struct npu_context *ctx, void *arg);

#endif /* __NPU_VM_H__ */
