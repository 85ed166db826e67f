// SPDX-License-Identifier: MIT
/*
 * IPC memory: aclrtMalloc memory shared with other processes by a key.
 *
 * A key is the driver's random 64-bit name for a range of a mapping
 * (IPC_EXPORT) together with the device the memory is on, spelled
 * "npu<N>-ipc-<16 hex digits>". An import gets a handle to that range
 * (IPC_IMPORT), mapped on the memory's device as aclrtMalloc memory is
 * by the memory layer (acl_mm_map_import()) - a device the process has
 * no context on is opened for it (acl_dev_hold(): CANN imports on
 * the current device) -, and recorded as an
 * ACL_REGION_IPC region with its key and import order: aclrtIpcMemClose unmaps the process's oldest
 * import of a key, or, in a process that holds none, destroys the key
 * (IPC_DESTROY). The driver keeps the pages while any import maps them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <acl/acl.h>

#include "acl_ioctl.h"
#include "context.h"
#include "device.h"
#include "error.h"
#include "ipc.h"
#include "mm.h"
#include "peer.h"
#include "query.h"

#define ACL_IPC_KEY_FMT		"npu%d-%s-%016" PRIx64
#define ACL_IPC_TAG_FMT		"npu%d-%s%" PRIu32 "-%016" PRIx64

static int acl_ipc_bad_key(const char *key, const char *kind)
{
	bool mem = !strcmp(kind, ACL_IPC_KIND_MEM);

	return acl_errf(ACLI_ERTPARAM, "key \"%.64s\" is not an IPC %skey (aclrt%sGetExportKey makes them)",
			key, mem ? "" : "notify ", mem ? "IpcMem" : "Notify");
}

/* @key in its one spelling: a tag after the kind when @tag is wanted. */
static int acl_ipc_key_print(char *key, size_t len, int dev, const char *kind, const uint32_t *tag,
			     uint64_t name)
{
	if (tag)
		return snprintf(key, len, ACL_IPC_TAG_FMT, dev, kind, *tag, name);
	return snprintf(key, len, ACL_IPC_KEY_FMT, dev, kind, name);
}

/* The device, tag (if @tag) and driver name in @key, a key of @kind. */
static int acl_ipc_key_parse(const char *key, const char *kind, int *dev, uint32_t *tag, uint64_t *name)
{
	size_t len = strnlen(key, ACL_IPC_KEY_MAX + 1), klen = strlen(kind);
	const char *p = key + 3;
	char want[ACL_IPC_KEY_MAX + 1];
	unsigned long long hex;
	unsigned long t = 0;
	int id = 0, digits = 0;
	char *end;

	if (len > ACL_IPC_KEY_MAX)
		return acl_errf(ACLI_ERTPARAM, "key is longer than %d characters", ACL_IPC_KEY_MAX);
	if (strncmp(key, "npu", 3))
		return acl_ipc_bad_key(key, kind);
	for (; *p >= '0' && *p <= '9' && digits < 3; p++, digits++)
		id = id * 10 + (*p - '0');
	if (!digits || id >= ACL_MAX_DEVICES || *p != '-' || strncmp(p + 1, kind, klen))
		return acl_ipc_bad_key(key, kind);
	p += 1 + klen;
	if (tag) {
		t = strtoul(p, &end, 10);
		if (end == p || t > UINT32_MAX)
			return acl_ipc_bad_key(key, kind);
		p = end;
		*tag = (uint32_t)t;
	}
	if (sscanf(p, "-%16llx", &hex) != 1)
		return acl_ipc_bad_key(key, kind);
	/* exactly the spelling we make: no sign, no case, no short or extra digits */
	acl_ipc_key_print(want, sizeof(want), id, kind, tag, (uint64_t)hex);
	if (strcmp(want, key))
		return acl_ipc_bad_key(key, kind);
	*dev = id;
	*name = hex;
	return 0;
}

int acl_ipc_key_dev(const char *key, const char *kind, uint32_t *tag, struct acl_device **devp, __u64 *name)
{
	uint64_t parsed = 0;
	int id = 0, ret;

	ret = acl_ipc_key_parse(key, kind, &id, tag, &parsed);
	if (ret)
		return ret;
	*name = parsed;
	*devp = acl_dev_get(id);
	if (!*devp)
		return acl_errf(ACLI_ENOCTX, "key \"%s\" names %s of device %d, which this process has not opened (aclrtSetDevice, or an import)",
				key, !strcmp(kind, ACL_IPC_KIND_MEM) ? "memory" :
				!strcmp(kind, ACL_IPC_KIND_NOTIFY) ? "a notify" : "an event", id);
	return 0;
}

int acl_ipc_key_dev_import(const char *key, const char *kind, uint32_t *tag, struct acl_device **devp,
			   __u64 *name)
{
	int ret = acl_ipc_key_dev(key, kind, tag, devp, name);

	if (ret != ACLI_ENOCTX)
		return ret;
	acl_err_clear();
	ret = acl_dev_hold((int)strtol(key + 3, NULL, 10), devp);
	if (ret == -ENODEV)
		return acl_errf(ACLI_ENOPERM, "key \"%s\": no such key (it names a device that does not exist)", key);
	/* one hold a device for imports, which aclFinalize drops (lifecycle.c) */
	if (!ret && __atomic_exchange_n(&(*devp)->import_hold, true, __ATOMIC_ACQ_REL))
		acl_dev_unhold(*devp);
	return ret;
}

int acl_ipc_key_make(char *key, size_t len, const char *kind, const uint32_t *tag, struct acl_device *dev,
		     uint64_t name)
{
	uint32_t most = UINT32_MAX;
	int need = acl_ipc_key_print(NULL, 0, dev->id, kind, tag ? &most : NULL, UINT64_MAX) + 1;

	if (len < (size_t)need)
		return acl_errf(ACLI_ERTPARAM, "len %zu: the key needs %d bytes (a 65-byte buffer always fits)", len,
				need);
	if (key)
		acl_ipc_key_print(key, len, dev->id, kind, tag, name);
	return 0;
}

/* [@addr, @addr + @size) must lie in one aclrtMalloc allocation of @dev, page-aligned. */
static int acl_ipc_check_range(struct acl_device *dev, uint64_t addr, size_t size)
{
	struct acl_mem_info q;
	uint64_t base = 0, len = 0;
	int ret;

	ret = acl_mm_query(dev, addr, &q);
	if (ret)
		return ret;
	if (q.kind == NPU_ADDR_DEVICE && q.rkind == ACL_REGION_MALLOC) {
		base = q.rbase;
		len = q.rlen;
	}
	if (!len)
		return acl_errf(ACLI_ERTPARAM, "devPtr %#" PRIx64 " is not aclrtMalloc memory of device %d",
				addr, dev->id);
	if (size > base + len - addr)
		return acl_errf(ACLI_ERTPARAM, "devPtr %#" PRIx64 " + size %zu runs past its allocation (%#" PRIx64 ", %" PRIu64 " bytes)",
				addr, size, base, len);
	if ((addr | size) & (q.page_size - 1))
		return acl_errf(ACLI_ERTPARAM, "devPtr %#" PRIx64 " and size %zu must be multiples of the allocation's page size %" PRIu64,
				addr, size, (uint64_t)q.page_size);
	return 0;
}

ACL_EXPORT aclError aclrtIpcMemGetExportKey(void *devPtr, size_t size, char *key, size_t len, uint64_t flags)
{
	struct npu_ipc_export exp = { .size = sizeof(exp), .addr = (uintptr_t)devPtr, .length = size };
	struct acl_device *dev;
	int ret;

	ret = acl_enter(NULL, devPtr, key);
	if (ret)
		goto out;
	if (!size || !len || flags > ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION) {
		ret = acl_errf(ACLI_ERTPARAM, "size %zu and len %zu must be non-zero and flags %#" PRIx64 " DEFAULT or DISABLE_PID_VALIDATION",
			       size, len, flags);
		goto out;
	}
	ret = acl_cur_dev(&dev);
	if (ret)
		goto out;
	ret = acl_ipc_key_make(NULL, len, ACL_IPC_KIND_MEM, NULL, dev, 0);
	if (ret)
		goto out;
	ret = acl_ipc_check_range(dev, exp.addr, size);
	if (ret)
		goto out;
	if (flags == ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION)
		exp.flags = NPU_SHARE_ANY_PID;
	ret = acl_ioctl(dev->fd, NPU_IOCTL_IPC_EXPORT, &exp);
	if (ret == -ENOENT || ret == -EINVAL)
		ret = acl_errf(ACLI_ERTPARAM, "devPtr %p + size %zu is not memory this process allocated", devPtr,
			       size);
	if (ret)
		goto out;
	acl_ipc_key_make(key, len, ACL_IPC_KIND_MEM, NULL, dev, exp.key);
out:
	return acl_ret(__func__, ret);
}

int acl_ipc_set_pids_on(struct acl_device *dev, uint64_t name, const char *what, int32_t *pid, size_t num)
{
	struct npu_share_pids arg = { .size = sizeof(arg), .shareable = name, .pids = (uintptr_t)pid,
				      .count = (uint32_t)num };
	int ret;

	ret = acl_ioctl(dev->fd, NPU_IOCTL_IPC_SET_PIDS, &arg);
	if (ret == -ENOENT)
		ret = acl_errf(ACLI_ERTPARAM, "%s was not exported by this process (or was closed, or its memory freed)",
			       what);
	else if (ret == -ESRCH)
		ret = acl_errf(ACLI_ERTPARAM, "one of the %zu pids names no process in this pid namespace: none was added",
			       num);
	else if (ret == -ENOSPC)
		ret = acl_errf(ACLI_ERTPARAM, "%s would list more than %d pids", what, NPU_SHARE_MAX_PIDS);
	return ret;
}

/* Add @num processes to the list of @key, which this process exported (IPC_SET_PIDS). */
static int acl_ipc_set_pids(const char *key, int32_t *pid, size_t num)
{
	struct acl_device *dev;
	char what[ACL_IPC_KEY_MAX + 8];
	__u64 name;
	int ret;

	ret = acl_cur_dev(&dev);
	if (!ret)
		ret = acl_ipc_key_dev(key, ACL_IPC_KIND_MEM, NULL, &dev, &name);
	if (ret)
		return ret;
	snprintf(what, sizeof(what), "key \"%s\"", key);
	return acl_ipc_set_pids_on(dev, name, what, pid, num);
}

ACL_EXPORT aclError aclrtIpcMemSetImportPid(const char *key, int32_t *pid, size_t num)
{
	int ret;

	ret = acl_enter(NULL, key, pid);
	if (!ret)
		ret = acl_pid_list_check(pid, num, "num", ACLI_ERTPARAM, false);
	if (!ret)
		ret = acl_ipc_set_pids(key, pid, num);
	return acl_ret(__func__, ret);
}

/* What an import's refusals say for each kind of key. */
static const struct acl_ipc_kind_text {
	const char *kind;
	const char *gone;	/* how a key dies */
	const char *allow;	/* why a process may not import it */
	const char *again;	/* what ends this process's import */
} acl_ipc_kind_texts[] = {
	{ ACL_IPC_KIND_MEM, "closed by its exporter", "aclrtIpcMemSetImportPid",
	  "aclrtIpcMemClose it" },
	{ ACL_IPC_KIND_NOTIFY, "its notify destroyed", "aclrtNotifySetImportPid",
	  "destroy that notify" },
	{ ACL_IPC_KIND_EVENT, "its event destroyed", "it runs as another user than the exporter",
	  "destroy that event" },
};

static const struct acl_ipc_kind_text *acl_ipc_kind_text(const char *kind)
{
	size_t i;

	for (i = 1; i < sizeof(acl_ipc_kind_texts) / sizeof(acl_ipc_kind_texts[0]); i++)
		if (!strcmp(kind, acl_ipc_kind_texts[i].kind))
			return &acl_ipc_kind_texts[i];
	return &acl_ipc_kind_texts[0];
}

int acl_ipc_import(struct acl_device *cur, struct acl_device *dev, const char *key, uint64_t name,
		   const char *kind, bool peer, uint64_t *va)
{
	struct npu_share_import imp = { .size = sizeof(imp), .shareable = name };
	const struct acl_ipc_kind_text *t = acl_ipc_kind_text(kind);
	int ret;

	ret = acl_ioctl(dev->fd, NPU_IOCTL_IPC_IMPORT, &imp);
	if (ret == -ENOENT)
		ret = acl_errf(ACLI_ENOPERM, "key \"%s\": no such key, %s, or this process is not allowed to import it (%s)",
			       key, t->gone, t->allow);
	else if (ret == -EINVAL && acl_mm_ipc_oldest(dev, name))
		ret = acl_errf(ACLI_ERTPARAM, "key \"%s\" is imported by this process already: %s first", key,
			       t->again);
	else if (ret == -EINVAL)
		ret = acl_errf(ACLI_ERTPARAM, "key \"%s\" was exported by this process: import it in another one", key);
	if (ret)
		return ret;
	ret = acl_mm_map_import(dev, imp.handle, imp.length, imp.page_size, name, va);
	if (ret || !peer || dev == cur)
		return ret;
	ret = acl_peer_enable_pair(cur, dev);
	if (ret)
		acl_mm_free(dev, *va, ACL_REGION_IPC);
	return ret;
}

int acl_ipc_page_export(struct acl_device *dev, uint64_t len, bool any, int full, uint64_t *va, uint64_t *name)
{
	struct npu_ipc_export exp = { .size = sizeof(exp), .length = len, .flags = any ? NPU_SHARE_ANY_PID : 0 };
	uint64_t addr;
	int ret;

	ret = acl_mm_alloc(dev, len, len, &addr);
	if (ret)
		return ret;
	exp.addr = addr;
	ret = acl_ioctl(dev->fd, NPU_IOCTL_IPC_EXPORT, &exp);
	if (ret) {
		acl_mm_free(dev, addr, ACL_REGION_MALLOC);
		if (ret == -ENOSPC)
			ret = acl_errf(full, "this process holds as many IPC keys as the driver allows (max_ipc_keys)");
		return ret;
	}
	*va = addr;
	*name = exp.key;
	return 0;
}

ACL_EXPORT aclError aclrtIpcMemImportByKey(void **devPtr, const char *key, uint64_t flags)
{
	struct acl_device *cur, *dev;
	uint64_t va;
	__u64 name;
	int ret;

	ret = acl_enter(NULL, devPtr, key);
	if (ret)
		goto out;
	if (flags > ACL_RT_IPC_MEM_IMPORT_FLAG_ENABLE_PEER_ACCESS) {
		ret = acl_errf(ACLI_ERTPARAM, "flags %#" PRIx64 " must be DEFAULT or ENABLE_PEER_ACCESS", flags);
		goto out;
	}
	ret = acl_cur_dev(&cur);
	if (!ret)
		ret = acl_ipc_key_dev_import(key, ACL_IPC_KIND_MEM, NULL, &dev, &name);
	if (!ret)
		ret = acl_ipc_import(cur, dev, key, name, ACL_IPC_KIND_MEM,
				     flags == ACL_RT_IPC_MEM_IMPORT_FLAG_ENABLE_PEER_ACCESS, &va);
	if (!ret)
		*devPtr = (void *)(uintptr_t)va;
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtIpcMemClose(const char *key)
{
	struct npu_ipc_destroy destroy = { .size = sizeof(destroy) };
	struct acl_device *dev;
	uint64_t addr;
	int ret;

	ret = acl_enter(&dev, key);
	if (!ret)
		ret = acl_ipc_key_dev(key, ACL_IPC_KIND_MEM, NULL, &dev, &destroy.key);
	if (ret)
		goto out;
	/* two threads closing the same import: one unmaps, the other looks again */
	while ((addr = acl_mm_ipc_oldest(dev, destroy.key))) {
		ret = acl_mm_free(dev, addr, ACL_REGION_IPC);
		if (ret != -ENOENT)
			goto out;
	}
	ret = acl_ioctl(dev->fd, NPU_IOCTL_IPC_DESTROY, &destroy);
	if (ret == -ENOENT)
		ret = acl_errf(ACLI_ERTPARAM, "key \"%s\" is neither imported nor exported by this process (or was closed already)",
			       key);
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtIpcMemSetAttr(const char *key, aclrtIpcMemAttrType type, uint64_t attr)
{
	struct acl_device *dev;
	int ret;

	ret = acl_check_init();
	if (ret)
		goto out;
	/* CANN checks these in its runtime layer: 107000, not 100000 */
	if (!key) {
		ret = acl_errf(ACLI_ERTPARAM, "key must not be NULL");
		goto out;
	}
	if (type != ACL_RT_IPC_MEM_ATTR_ACCESS_LINK || attr > ACL_RT_IPC_MEM_ATTR_ACCESS_LINK_UB_MULTI_PORT_PATH) {
		ret = acl_errf(ACLI_ERTPARAM, "type %d must be ACCESS_LINK and attr %" PRIu64 " one of its links (0..3)",
			       (int)type, attr);
		goto out;
	}
	ret = acl_cur_dev(&dev);
	if (!ret)
		ret = acl_errf(ACLI_ERTNOTSUPP, "the simulated chip shares one address space per device over one link: there is no link to choose");
out:
	return acl_ret(__func__, ret);
}

/* The pids a SET_PID ioctl of CANN's driver takes: its process table less the exporter. */
#define ACL_POD_PIDS_MAX	31

/*
 * Whitelisting importers on the servers of a super pod (sdid: a device of
 * a server, CANN's SDID: its bits 31..22 the server id, 21..18 the chip,
 * 17..16 the die, 15..0 the device). CANN checks each entry in its
 * runtime and driver (107000, recorded), then hands it to its driver,
 * entry by entry: an entry of the caller's own server lists the pids
 * there as SET_PID does, one of another server goes to that server
 * (s2s), and a server that does not answer fails the entry (the driver's
 * -EFAULT: ACL_ERROR_RT_INVALID_HANDLE). Entries before a failing one
 * stay listed. Only the A3 super-pod parts' driver has the command
 * (SET_PID_POD); elsewhere it is not supported (207000, not recorded).
 *
 * The simulated super pod (the 910_93 chip profiles) is one server, id 0
 * (aclrtGetDeviceInfo's SUPER_POD_SERVER_ID and SUPER_POD_DEVICE_ID):
 * an entry whose sdid names server 0 lists its pids for this machine,
 * as aclrtIpcMemSetImportPid does; any other server is not there.
 */
int acl_ipc_pod_pids(const aclrtServerPid *serverPids, size_t num, int32_t most, const char *bad,
		     const char *local, int (*set)(void *arg, int32_t *pid, size_t n), void *arg)
{
	size_t i;
	int ret = 0;

	for (i = 0; i < num && !ret; i++) {
		const aclrtServerPid *e = &serverPids[i];
		int32_t n = (int32_t)(e->num & INT32_MAX);

		if (!e->pid || n <= 0 || n > most || bad) {
			ret = acl_errf(ACLI_ERTPARAM, "serverPids[%zu]: %s", i,
				       !e->pid ? "pid must not be NULL" :
				       n <= 0 || n > most ? (most == 1 ? "num must be 1" : "num must be 1..31") :
				       bad);
			break;
		}
		if (!(acl_chip_features() & ACL_SOC_POD_IPC)) {
			ret = acl_errf(ACLI_ERTNOTSUPP, "no super pod: the chip's driver has no SET_PID_POD (CANN: the A3 super-pod parts; use %s for this server's processes)",
				       local);
			break;
		}
		if (ACL_SDID_SERVER(e->sdid) != ACL_POD_SERVER_ID)
			ret = acl_errf(ACLI_EHANDLE, "serverPids[%zu]: sdid %#x names server %u: the simulated super pod is this one server (%u)",
				       i, e->sdid, ACL_SDID_SERVER(e->sdid), ACL_POD_SERVER_ID);
		else
			ret = acl_pid_list_check(e->pid, (size_t)n, "num", ACLI_ERTPARAM, false);
		if (!ret)
			ret = set(arg, e->pid, (size_t)n);
	}
	return ret;
}

static int acl_ipc_mem_pod_set(void *key, int32_t *pid, size_t n)
{
	return acl_ipc_set_pids(key, pid, n);
}

ACL_EXPORT aclError aclrtIpcMemImportPidInterServer(const char *key, aclrtServerPid *serverPids, size_t num)
{
	size_t len;
	int ret;

	ret = acl_check_init();
	if (ret)
		goto out;
	if (!key || !serverPids || !num) {
		ret = acl_errf(ACLI_ERTPARAM, "%s", !key ? "key must not be NULL" :
			       !serverPids ? "serverPids must not be NULL" : "num must be non-zero");
		goto out;
	}
	len = strnlen(key, ACL_IPC_KEY_MAX + 1);
	ret = acl_ipc_pod_pids(serverPids, num, ACL_POD_PIDS_MAX,
			       !len || len > ACL_IPC_KEY_MAX ? "key must be 1..64 characters" : NULL,
			       "aclrtIpcMemSetImportPid", acl_ipc_mem_pod_set, (void *)key);
out:
	return acl_ret(__func__, ret);
}
