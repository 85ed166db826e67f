/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npu: physical handles and IPC memory ranges shared between processes by
 * a random name.
 */
#ifndef __NPU_SHARE_H__
#define __NPU_SHARE_H__

#include <uapi/npu.h>

struct npu_context;
struct npu_handle;
struct npu_mapping;
struct npu_share;
struct npu_ipc_import;

/**
 * struct npu_share_export_args - SHARE_EXPORT or IPC_EXPORT as the ioctl
 *	table holds it
 * @uapi: the user's struct for SHARE_EXPORT, copied in and out...
 * @ipc: ...or for IPC_EXPORT
 * @share: the name reserved: npu_ioctl() calls npu_share_export_finish()
 *	once the struct is copied out, which publishes it
 */
struct npu_share_export_args {
	union {
		struct npu_share_export uapi;
		struct npu_ipc_export ipc;
	};
	struct npu_share *share;
};

bool npu_ipc_revoked(const struct npu_handle *slice);
void npu_ipc_import_release(struct npu_ipc_import *import);
void npu_share_revoke(struct npu_context *ctx, struct npu_handle *handle);
void npu_ipc_revoke_mapping(struct npu_context *ctx,
			    const struct npu_mapping *map);
void npu_share_release(struct npu_context *ctx);

int npu_share_export_ioctl(struct npu_context *ctx, void *arg);
void npu_share_export_finish(struct npu_context *ctx, void *arg, int ret);
int npu_share_set_pids_ioctl(struct npu_context *ctx, void *arg);
int npu_share_import_ioctl(struct npu_context *ctx, void *arg);
int npu_ipc_export_ioctl(struct npu_context *ctx, void *arg);
int npu_ipc_set_pids_ioctl(struct npu_context *ctx, void *arg);
int npu_ipc_import_ioctl(struct npu_context *ctx, void *arg);
int npu_ipc_destroy_ioctl(struct npu_context *ctx, void *arg);

#endif /* __NPU_SHARE_H__ */
