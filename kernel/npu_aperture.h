/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npu: the aperture - a context's device VA space seen by CPUs.
 */
#ifndef __NPU_APERTURE_H__
#define __NPU_APERTURE_H__

#include <uapi/npu.h>

struct file;
struct inode;
struct npu_context;

/**
 * struct npu_aperture_open_args - APERTURE_OPEN as the ioctl table holds it
 * @uapi: the user's struct, copied in and (on success) out
 * @file: the new file, not yet in the fd table: npu_ioctl() calls
 *	npu_aperture_open_finish() once @uapi is copied out
 */
struct npu_aperture_open_args {
	struct npu_aperture_open uapi;
	struct file *file;
};

int npu_aperture_open_ioctl(struct npu_context *ctx, void *arg);
void npu_aperture_open_finish(struct npu_context *ctx, void *arg, int ret);
void npu_aperture_free(struct npu_context *ctx);
void npu_aperture_zap_sync(struct inode *inode, u64 start, u64 len);
int npu_aperture_init(void);
void npu_aperture_exit(void);

#endif /* __NPU_APERTURE_H__ */
