/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npu: physical handles and IPC memory ranges shared between processes by
 * a random name.
 */
#ifndef __NPU_SHARE_H__
#define __NPU_SHARE_H__

struct npu_context;
struct npu_handle;
struct npu_mapping;

void npu_share_revoke(struct npu_context *ctx, struct npu_handle *handle);
void npu_ipc_revoke_mapping(struct npu_context *ctx,
			    const struct npu_mapping *map);
void npu_share_release(struct npu_context *ctx);

int npu_share_export_ioctl(struct npu_context *ctx, void *arg);
int npu_share_set_pids_ioctl(struct npu_context *ctx, void *arg);
int npu_share_import_ioctl(struct npu_context *ctx, void *arg);
int npu_ipc_export_ioctl(struct npu_context *ctx, void *arg);
int npu_ipc_set_pids_ioctl(struct npu_context *ctx, void *arg);
int npu_ipc_import_ioctl(struct npu_context *ctx, void *arg);
int npu_ipc_destroy_ioctl(struct npu_context *ctx, void *arg);

#endif /* __NPU_SHARE_H__ */
