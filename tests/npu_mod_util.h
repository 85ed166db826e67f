/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npu.ko in the guest, for the tests that reload it (as root): load by
 * path, unload, wait for the nodes, and put the module back as the guest's
 * /init loaded it, with the nodes owned by the group npu as
 * udev/60-npu.rules would make them.
 */
#ifndef NPU_TEST_MOD_UTIL_H
#define NPU_TEST_MOD_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "npu_util.h"

#define NPU_MOD_NAME	"npu"
#define NPU_MOD_SYSFS	"/sys/module/npu"
#define NPU_MOD_NODES	8

/* The parameters a reload must give back. */
struct npu_mod_params {
	char num_devices[32];
	char mem_size[256];
	char carrier[8];
	char soc_name[64];
	char cube_cores[16];
	char vector_cores[16];
	bool valid;
};

/* $NPU_KO, else where the guest image puts the module. */
static inline const char *npu_ko_path(void)
{
	const char *p = getenv("NPU_KO");

	return p && *p ? p : "/lib/npu/npu.ko";
}

/* The first line of @path, without its newline: 0 or -errno. */
static inline int npu_read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	if (!f)
		return -errno;
	if (!fgets(buf, len, f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

/* A parameter of the loaded module: 0 or -errno. */
static inline int npu_mod_param(const char *name, char *buf, size_t len)
{
	char path[128];

	snprintf(path, sizeof(path), NPU_MOD_SYSFS "/parameters/%s", name);
	return npu_read_line(path, buf, len);
}

static inline int npu_mod_read_params(struct npu_mod_params *p)
{
	memset(p, 0, sizeof(*p));
	if (npu_mod_param("num_devices", p->num_devices, sizeof(p->num_devices)) ||
	    npu_mod_param("mem_size", p->mem_size, sizeof(p->mem_size)) ||
	    npu_mod_param("carrier", p->carrier, sizeof(p->carrier)) ||
	    npu_mod_param("soc_name", p->soc_name, sizeof(p->soc_name)) ||
	    npu_mod_param("cube_cores", p->cube_cores, sizeof(p->cube_cores)) ||
	    npu_mod_param("vector_cores", p->vector_cores, sizeof(p->vector_cores)))
		return -1;
	p->valid = true;
	return 0;
}

/* @p as a finit_module(2) parameter string. */
static inline void npu_mod_params_string(const struct npu_mod_params *p, char *buf, size_t len)
{
	snprintf(buf, len,
		 "num_devices=%s mem_size=%s carrier=%s soc_name=%s cube_cores=%s vector_cores=%s",
		 p->num_devices, p->mem_size, p->carrier, p->soc_name,
		 p->cube_cores, p->vector_cores);
}

static inline bool npu_mod_loaded(void)
{
	return access(NPU_MOD_SYSFS "/parameters", F_OK) == 0;
}

/* finit_module(2) of npu_ko_path(): 0 or -errno. */
static inline int npu_mod_load(const char *params)
{
	int fd = open(npu_ko_path(), O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, params, 0) ? -errno : 0;
	close(fd);
	return ret;
}

/* delete_module(2), never waiting: 0 or -errno. */
static inline int npu_mod_unload_once(void)
{
	return syscall(SYS_delete_module, NPU_MOD_NAME, O_NONBLOCK) ? -errno : 0;
}

/* Unload, waiting up to 5 s for the files of finished processes to close. */
static inline int npu_mod_unload(void)
{
	int ret = -EWOULDBLOCK;

	for (int i = 0; i < 100 && ret == -EWOULDBLOCK; i++) {
		ret = npu_mod_unload_once();
		if (ret == -EWOULDBLOCK)
			usleep(50 * 1000);
	}
	return ret;
}

/* Wait up to 5 s for /dev/npuN to exist (@present) or to be gone. */
static inline bool npu_wait_node(int n, bool present)
{
	char path[32];

	snprintf(path, sizeof(path), "/dev/npu%d", n);
	for (int i = 0; i < 500; i++) {
		if ((access(path, F_OK) == 0) == present)
			return true;
		usleep(10 * 1000);
	}
	return false;
}

/* Wait for npu0..npu(@n - 1) and give every node to the group npu (udev's rule). */
static inline int npu_mod_nodes_ready(int n)
{
	for (int d = 0; d < n; d++)
		if (!npu_wait_node(d, true))
			return -ENODEV;
	for (int d = 0; d < NPU_MOD_NODES; d++) {
		char path[32];

		snprintf(path, sizeof(path), "/dev/npu%d", d);
		if (chown(path, 0, NPU_GID) && errno != ENOENT)
			return -errno;
	}
	return 0;
}

/*
 * The module loaded with @saved and its nodes ready, whoever loaded it
 * last: 0, or a negative errno of the step that failed.
 */
static inline int npu_mod_restore(const struct npu_mod_params *saved)
{
	struct npu_mod_params cur;
	char params[512];
	int ret;

	if (!saved->valid)
		return -EINVAL;
	if (npu_mod_loaded()) {
		if (!npu_mod_read_params(&cur) &&
		    !strcmp(cur.num_devices, saved->num_devices) &&
		    !strcmp(cur.mem_size, saved->mem_size) &&
		    !strcmp(cur.carrier, saved->carrier) &&
		    !strcmp(cur.soc_name, saved->soc_name) &&
		    !strcmp(cur.cube_cores, saved->cube_cores) &&
		    !strcmp(cur.vector_cores, saved->vector_cores))
			return npu_mod_nodes_ready(1);
		/* loaded with other parameters: a file may still be closing */
		ret = npu_mod_unload();
		if (ret && ret != -ENOENT)
			return ret;
	}
	npu_mod_params_string(saved, params, sizeof(params));
	ret = npu_mod_load(params);
	if (ret && ret != -EEXIST)
		return ret;
	return npu_mod_nodes_ready(1);
}

#endif /* NPU_TEST_MOD_UTIL_H */
