// SPDX-License-Identifier: MIT
/*
 * Device binaries: the ELF shared objects npu-cc makes
 * (include/ascendc/npu_fatbin.h), sent by libacl as an fd (a memfd) with
 * the entry symbols of their kernels, opened with dlopen() through
 * /proc/self/fd: the fd stays open while the binary is loaded. Their code
 * and data land in the arena, never at a device VA; their references to
 * npu_block_current bind to the executor's (-rdynamic).
 *
 * Locking: aicore_binaries_lock protects the table; a kernel looked up
 * holds its binary (users) so that an UNLOAD waits for it.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "aicore.h"

static struct aicore_binary {
	void *dl;
	int fd;
	uint32_t nentries;
	aicore_entry_fn *entries;
	unsigned int users;		/* kernels running from it */
} aicore_binaries[ACL_AICORE_BINARIES];

static pthread_mutex_t aicore_binaries_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t aicore_binaries_idle = PTHREAD_COND_INITIALIZER;

int aicore_binary_load(const struct acl_aicore_load *req, int fd)
{
	struct aicore_binary *bin;
	aicore_entry_fn *entries;
	char path[64];
	uint32_t i;
	void *dl;
	int ret = 0;

	if (req->id >= ACL_AICORE_BINARIES || !req->nentries || req->nentries > ACL_AICORE_ENTRIES)
		return -EINVAL;
	for (i = 0; i < req->nentries; i++)
		if (!memchr(req->entries[i], 0, ACL_AICORE_ENTRY_MAX))
			return -EINVAL;
	pthread_mutex_lock(&aicore_binaries_lock);
	bin = &aicore_binaries[req->id];
	if (bin->dl) {
		pthread_mutex_unlock(&aicore_binaries_lock);
		return -EEXIST;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	entries = calloc(req->nentries, sizeof(*entries));
	if (!dl) {
		fprintf(stderr, "npu-aicore: binary %u: %s\n", req->id, dlerror());
		ret = -ENOEXEC;
	} else if (!entries) {
		ret = -ENOMEM;
	}
	for (i = 0; !ret && i < req->nentries; i++) {
		entries[i] = (aicore_entry_fn)dlsym(dl, req->entries[i]);
		if (!entries[i])
			ret = -ENOENT;
	}
	if (ret) {
		if (dl)
			dlclose(dl);
		free(entries);
	} else {
		bin->dl = dl;
		bin->fd = fd;
		bin->nentries = req->nentries;
		bin->entries = entries;
	}
	pthread_mutex_unlock(&aicore_binaries_lock);
	return ret;
}

int aicore_binary_unload(uint32_t id)
{
	struct aicore_binary *bin;

	if (id >= ACL_AICORE_BINARIES)
		return -EINVAL;
	pthread_mutex_lock(&aicore_binaries_lock);
	bin = &aicore_binaries[id];
	if (!bin->dl) {
		pthread_mutex_unlock(&aicore_binaries_lock);
		return -ENOENT;
	}
	while (bin->users)
		pthread_cond_wait(&aicore_binaries_idle, &aicore_binaries_lock);
	dlclose(bin->dl);
	close(bin->fd);
	free(bin->entries);
	memset(bin, 0, sizeof(*bin));
	pthread_mutex_unlock(&aicore_binaries_lock);
	return 0;
}

aicore_entry_fn aicore_binary_get(uint64_t func)
{
	uint64_t id = func >> 32, idx = func & 0xffffffffu;
	aicore_entry_fn fn = NULL;

	if (id >= ACL_AICORE_BINARIES)
		return NULL;
	pthread_mutex_lock(&aicore_binaries_lock);
	if (aicore_binaries[id].dl && idx < aicore_binaries[id].nentries) {
		fn = aicore_binaries[id].entries[idx];
		aicore_binaries[id].users++;
	}
	pthread_mutex_unlock(&aicore_binaries_lock);
	return fn;
}

void aicore_binary_put(uint64_t func)
{
	pthread_mutex_lock(&aicore_binaries_lock);
	if (!--aicore_binaries[func >> 32].users)
		pthread_cond_broadcast(&aicore_binaries_idle);
	pthread_mutex_unlock(&aicore_binaries_lock);
}
