/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npu: physical handles shared between processes by a random name.
 */
#ifndef __NPU_SHARE_H__
#define __NPU_SHARE_H__

struct npu_context;
struct npu_handle;

void npu_share_revoke(struct npu_context *ctx, struct npu_handle *handle);

int npu_share_export_ioctl(struct npu_context *ctx, void *arg);
int npu_share_set_pids_ioctl(struct npu_context *ctx, void *arg);
int npu_share_import_ioctl(struct npu_context *ctx, void *arg);

#endif /* __NPU_SHARE_H__ */
