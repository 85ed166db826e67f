// SPDX-License-Identifier: MIT
/*
 * Device binaries: the ELF shared objects npu-cc makes
 * (include/ascendc/npu_fatbin.h), sent by libacl as an fd (a memfd), opened
 * with dlopen() through /proc/self/fd: the fd stays open while the binary
 * is loaded. Their code and data land in the arena, never at a device VA;
 * their references to npu_block_current bind to the executor's (-rdynamic).
 * Only the main thread loads and unloads, between kernels.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "aicore.h"

static struct aicore_binary {
	void *dl;
	int fd;
} aicore_binaries[ACL_AICORE_BINARIES];

int aicore_binary_load(uint32_t id, int fd)
{
	char path[64];
	void *dl;

	if (id >= ACL_AICORE_BINARIES)
		return -EINVAL;
	if (aicore_binaries[id].dl)
		return -EEXIST;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!dl) {
		fprintf(stderr, "npu-aicore: binary %u: %s\n", id, dlerror());
		return -ENOEXEC;
	}
	aicore_binaries[id].dl = dl;
	aicore_binaries[id].fd = fd;
	return 0;
}

int aicore_binary_unload(uint32_t id)
{
	if (id >= ACL_AICORE_BINARIES)
		return -EINVAL;
	if (!aicore_binaries[id].dl)
		return -ENOENT;
	dlclose(aicore_binaries[id].dl);
	close(aicore_binaries[id].fd);
	aicore_binaries[id].dl = NULL;
	return 0;
}

void *aicore_binary_entry(uint32_t id, const char *entry)
{
	if (id >= ACL_AICORE_BINARIES || !aicore_binaries[id].dl)
		return NULL;
	return dlsym(aicore_binaries[id].dl, entry);
}
