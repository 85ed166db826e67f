/* SPDX-License-Identifier: MIT */
#ifndef LIBACL_IOCTL_H
#define LIBACL_IOCTL_H

#include <uapi/npu.h>

/*
 * Issue an npu ioctl, restarting on EINTR/EAGAIN.  Returns 0 or -errno
 * and records "<REQUEST> failed: <errno>" as the reason, which callers
 * with a better explanation overwrite.
 */
int npu_ioctl_named(int fd, unsigned long req, void *arg, const char *name);

/* The same, but -EINTR comes back (quietly) for a caller with a deadline. */
int npu_ioctl_once_named(int fd, unsigned long req, void *arg, const char *name);

#define npu_ioctl(fd, req, arg) npu_ioctl_named(fd, req, arg, #req)
#define npu_ioctl_once(fd, req, arg) npu_ioctl_once_named(fd, req, arg, #req)

#endif /* LIBACL_IOCTL_H */
