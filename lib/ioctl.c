// SPDX-License-Identifier: MIT
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>

#include "error.h"
#include "ioctl.h"

int npu_ioctl_named(int fd, unsigned long req, void *arg, const char *name)
{
	int ret;

	do {
		ret = ioctl(fd, req, arg);
	} while (ret < 0 && (errno == EINTR || errno == EAGAIN));
	if (ret >= 0)
		return 0;
	ret = -errno;
	if (!strncmp(name, "NPU_IOCTL_", 10))
		name += 10;
	return acl_errf(ret, "driver refused %s: %s", name, strerrorname_np(-ret) ?: "unknown errno");
}
