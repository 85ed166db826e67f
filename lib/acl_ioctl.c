// SPDX-License-Identifier: MIT
/* The ioctl wrapper: restarts, -errno, and the default reason of a refusal. */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/ioctl.h>

#include "acl_ioctl.h"
#include "error.h"

static int acl_ioctl_do(int fd, unsigned long req, void *arg, const char *name,
			bool restart)
{
	int ret;

	do {
		ret = ioctl(fd, req, arg);
	} while (ret < 0 && ((restart && errno == EINTR) || errno == EAGAIN));
	if (ret >= 0)
		return 0;
	ret = -errno;
	if (ret == -EINTR)
		return ret;
	if (!strncmp(name, "NPU_IOCTL_", 10))
		name += 10;
	/* the driver's answer for a context a device reset took down, and only that */
	if (ret == -ESTALE)
		return acl_errf(ret, "the device was reset (npu-smi set -t reset) and the process's context on it is lost (driver: %s answered ESTALE): aclrtResetDevice and aclrtSetDevice again, or aclFinalize and aclInit, to use it",
				name);
	return acl_errf(ret, "driver refused %s: %s", name, strerrorname_np(-ret) ?: "unknown errno");
}

int acl_ioctl_named(int fd, unsigned long req, void *arg, const char *name)
{
	return acl_ioctl_do(fd, req, arg, name, true);
}

int acl_ioctl_once_named(int fd, unsigned long req, void *arg, const char *name)
{
	return acl_ioctl_do(fd, req, arg, name, false);
}
