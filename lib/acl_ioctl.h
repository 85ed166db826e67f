/* SPDX-License-Identifier: MIT */
/*
 * The library's one way into the driver: every request to /dev/npuN goes
 * through acl_ioctl() (and the memory requests through mm.c).
 */
#ifndef LIBACL_ACL_IOCTL_H
#define LIBACL_ACL_IOCTL_H

#include <uapi/npu.h>

/*
 * Issue an npu ioctl, restarting on EINTR/EAGAIN.  Returns 0 or -errno
 * and records "driver refused <REQUEST>: <errno>" as the reason, which
 * callers with a better explanation overwrite.
 */
int acl_ioctl_named(int fd, unsigned long req, void *arg, const char *name);

/* The same, but -EINTR comes back (quietly) for a caller with a deadline. */
int acl_ioctl_once_named(int fd, unsigned long req, void *arg, const char *name);

#define acl_ioctl(fd, req, arg) acl_ioctl_named(fd, req, arg, #req)
#define acl_ioctl_once(fd, req, arg) acl_ioctl_once_named(fd, req, arg, #req)

#endif /* LIBACL_ACL_IOCTL_H */
