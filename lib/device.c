// SPDX-License-Identifier: MIT
/*
 * aclInit/aclFinalize and the device table: opening a device for its first
 * context and closing it after its last.
 *
 * Locking: acl_global_lock serialises init, finalize and the opening and
 * closing of devices; each device's own lock protects its lists.  API
 * calls on an open device take no global lock.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <acl/acl.h>

#include "callback.h"
#include "context.h"
#include "copy.h"
#include "device.h"
#include "handle.h"
#include "error.h"
#include "ioctl.h"
#include "managed.h"
#include "notify.h"
#include "slots.h"
#include "region.h"
#include "stream.h"
#include "vmm.h"

enum { ACL_STATE_NEVER, ACL_STATE_INIT, ACL_STATE_FINALIZED };

pthread_mutex_t acl_global_lock = PTHREAD_MUTEX_INITIALIZER;
static int acl_state;		/* ACL_STATE_*; written under acl_global_lock */
static pthread_once_t acl_atfork_once = PTHREAD_ONCE_INIT;

static struct acl_device acl_devices[ACL_MAX_DEVICES] = {
	[0 ... ACL_MAX_DEVICES - 1] = {
		.lock = PTHREAD_MUTEX_INITIALIZER,
		.fd = -1,
	},
};

int acl_check_init(void)
{
	if (__atomic_load_n(&acl_state, __ATOMIC_ACQUIRE) != ACL_STATE_INIT)
		return acl_errf(ACLI_EUNINIT, "aclInit has not been called (or aclFinalize has)");
	return 0;
}

int acl_enter_dev(struct acl_device **devp)
{
	return acl_enter_args(devp, "", 0, NULL);
}

int acl_enter_args(struct acl_device **devp, const char *names, size_t n,
		   const void *const *ptrs)
{
	int ret = acl_check_init();
	size_t i, len;

	for (i = 0; !ret && i < n; i++, names += len, names += strspn(names, ", ")) {
		len = strcspn(names, ",");
		if (!ptrs[i])
			return acl_errf(-EINVAL, "%.*s must not be NULL", (int)len, names);
	}
	return ret || !devp ? ret : acl_cur_dev(devp);
}

struct acl_device *acl_dev_get(int id)
{
	if (id < 0 || id >= ACL_MAX_DEVICES)
		return NULL;
	if (__atomic_load_n(&acl_devices[id].fd, __ATOMIC_ACQUIRE) < 0)
		return NULL;
	return &acl_devices[id];
}

struct acl_device *acl_dev_iter(int *pos)
{
	while (*pos < ACL_MAX_DEVICES) {
		struct acl_device *dev = acl_dev_get((*pos)++);

		if (dev)
			return dev;
	}
	return NULL;
}

bool acl_dev_holds(size_t list_off, size_t node_off, const void *p)
{
	struct acl_device *dev;
	int pos = 0;

	while ((dev = acl_dev_iter(&pos))) {
		struct list_head *head = (struct list_head *)((char *)dev + list_off);
		struct list_head *n;
		bool found = false;

		pthread_mutex_lock(&dev->lock);
		for (n = head->next; n != head && !found; n = n->next)
			found = (const char *)n - node_off == (const char *)p;
		pthread_mutex_unlock(&dev->lock);
		if (found)
			return true;
	}
	return false;
}

/* N of a "npuN" directory entry, or -1. */
static int acl_npu_index(const char *name)
{
	const char *p;

	if (strncmp(name, "npu", 3) || !name[3])
		return -1;
	for (p = name + 3; *p; p++)
		if (!isdigit((unsigned char)*p))
			return -1;
	if (name[3] == '0' && name[4])
		return -1;
	return atoi(name + 3);
}

unsigned int acl_dev_count(void)
{
	unsigned int n = 0;
	struct dirent *de;
	DIR *d;

	d = opendir("/dev");
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		int i = acl_npu_index(de->d_name);

		if (i >= 0 && i < ACL_MAX_DEVICES)
			n++;
	}
	closedir(d);
	return n;
}

int acl_dev_check_range(long long id, const char *what)
{
	if (id < 0 || id >= ACL_MAX_DEVICES)
		return acl_errf(-ENODEV, "%s %lld is not a device id (0..%d)", what, id,
				ACL_MAX_DEVICES - 1);
	return 0;
}

int acl_dev_check_id(long long id, const char *what)
{
	char path[32];
	int ret = acl_dev_check_range(id, what);

	if (ret)
		return ret;
	snprintf(path, sizeof(path), "/dev/npu%lld", id);
	if (access(path, F_OK))
		return acl_errf(-ENODEV, "%s %lld: no such device (%s missing)", what, id, path);
	return 0;
}

/*
 * Release the library's view of a driver context; its library contexts
 * are gone.  @in_child: after fork, the driver context is the parent's;
 * drop bookkeeping only and leave every mapping as the child inherited it.
 */
static void acl_dev_teardown_locked(struct acl_device *dev, bool in_child)
{
	acl_handles_teardown(dev);

	/* Closing the file releases every kernel object of the context. */
	close(dev->fd);
	acl_copy_close(dev, in_child);
	acl_slots_destroy(&dev->slots, in_child);
	acl_slots_destroy(&dev->notifies, in_child);
	__atomic_store_n(&dev->fd, -1, __ATOMIC_RELEASE);
	__atomic_add_fetch(&dev->gen, 1, __ATOMIC_RELEASE);
	dev->refs = 0;
	dev->users = 0;
	dev->primary = NULL;

	acl_regions_teardown(dev, !in_child);
}

static int acl_dev_open_locked(struct acl_device *dev)
{
	struct npu_get_info info = { .size = sizeof(info) };
	char path[32];
	int fd, ret;

	snprintf(path, sizeof(path), "/dev/npu%d", dev->id);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		if (ret == -ENOENT)
			return acl_errf(-ENODEV, "deviceId %d: no such device (%s missing)", dev->id, path);
		return acl_errf(ACLI_EDRV, "cannot open %s: %s", path, strerror(-ret));
	}
	ret = npu_ioctl(fd, NPU_IOCTL_GET_INFO, &info);
	if (ret)
		goto err_close;
	/* same major; a minor older than the library's lacks what it uses */
	if ((info.driver_version >> 16) != (NPU_DRIVER_VERSION >> 16) ||
	    (info.driver_version >> 8) < (NPU_DRIVER_VERSION >> 8)) {
		ret = acl_errf(ACLI_EDRV, "%s: driver version %#x, library built for %#x", path,
			       info.driver_version, NPU_DRIVER_VERSION);
		goto err_close;
	}
	dev->va_start = info.va_start;
	dev->va_end = info.va_end;
	dev->page_sizes = info.page_sizes;
	__atomic_store_n(&dev->peers, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&dev->faults, 0, __ATOMIC_RELAXED);
	dev->fd = fd;

	ret = acl_copy_open(dev);
	/* managed memory is mirrored on every open device */
	if (!ret)
		ret = acl_managed_dev_opened(dev);
	if (ret) {
		/* closes fd */
		acl_dev_teardown_locked(dev, false);
		return ret;
	}
	dev->refs = 0;
	dev->users = 0;
	__atomic_add_fetch(&dev->gen, 1, __ATOMIC_RELEASE);
	return 0;

err_close:
	close(fd);
	return ret;
}

static void acl_dev_init_lists(struct acl_device *dev, int id)
{
	unsigned int i;

	dev->id = id;
	list_init(&dev->contexts);
	list_init(&dev->handles);
	for (i = 0; i < ACL_REGION_BUCKETS; i++)
		list_init(&dev->regions[i]);
}

/* After fork the child holds none of the parent's contexts. */
static void acl_atfork_prepare(void)
{
	pthread_mutex_lock(&acl_global_lock);
}

static void acl_atfork_parent(void)
{
	pthread_mutex_unlock(&acl_global_lock);
}

static void acl_atfork_child(void)
{
	int i;

	pthread_mutex_unlock(&acl_global_lock);
	acl_objs_forget();
	acl_managed_forget();
	acl_notifies_forget();
	acl_reporters_forget();
	for (i = 0; i < ACL_MAX_DEVICES; i++) {
		struct acl_device *dev = &acl_devices[i];

		/* another thread may have held it at fork time */
		pthread_mutex_init(&dev->lock, NULL);
		acl_ctxs_forget(dev);
		if (dev->fd >= 0)
			acl_dev_teardown_locked(dev, true);
	}
}

static void acl_atfork_register(void)
{
	int i;

	for (i = 0; i < ACL_MAX_DEVICES; i++)
		acl_dev_init_lists(&acl_devices[i], i);
	pthread_atfork(acl_atfork_prepare, acl_atfork_parent, acl_atfork_child);
}

int acl_dev_acquire_locked(int id, struct acl_device **devp)
{
	struct acl_device *dev;
	int ret = 0;

	ret = acl_dev_check_range(id, "deviceId");
	if (ret)
		return ret;
	dev = &acl_devices[id];
	pthread_mutex_lock(&dev->lock);
	if (dev->fd < 0)
		ret = acl_dev_open_locked(dev);
	pthread_mutex_unlock(&dev->lock);
	if (ret)
		return ret;
	dev->users++;
	*devp = dev;
	return 0;
}

void acl_dev_release_locked(struct acl_device *dev)
{
	if (!--dev->users) {
		pthread_mutex_lock(&dev->lock);
		acl_dev_teardown_locked(dev, false);
		pthread_mutex_unlock(&dev->lock);
	}
}

void acl_dev_release(struct acl_device *dev)
{
	pthread_mutex_lock(&acl_global_lock);
	acl_dev_release_locked(dev);
	pthread_mutex_unlock(&acl_global_lock);
}

struct acl_device *acl_dev_slot(int id)
{
	return &acl_devices[id];
}

/*
 * The second option of aclInit's JSON this runtime applies, its own:
 * {"pageableCopy":{"mode":"staged"}} ("auto", "staged" or "direct": see
 * copy.h). Returns the ACL_PAGEABLE_* mode, ACL_PAGEABLE_AUTO if the file
 * does not set it, or -EINVAL.
 */
static int acl_config_pageable_copy(const char *path, const char *buf)
{
	char val[16];
	const char *p;
	size_t n;
	int mode;

	p = strstr(buf, "\"pageableCopy\"");
	if (!p)
		return ACL_PAGEABLE_AUTO;
	p = strstr(p, "\"mode\"");
	if (p) {
		p += strlen("\"mode\"");
		p += strspn(p, " \t\r\n");
	}
	if (!p || *p++ != ':')
		return acl_errf(-EINVAL, "configPath \"%s\": pageableCopy needs a \"mode\"", path);
	p += strspn(p, " \t\r\n");
	if (*p == '"')
		p++;
	n = strcspn(p, "\" \t\r\n,}");
	mode = n < sizeof(val) ? 0 : -EINVAL;
	if (!mode) {
		memcpy(val, p, n);
		val[n] = '\0';
		mode = acl_copy_mode_parse(val);
	}
	if (mode < 0)
		return acl_errf(-EINVAL, "configPath \"%s\": pageableCopy mode must be \"auto\", \"staged\" or \"direct\"",
				path);
	return mode;
}

/*
 * The options of aclInit's JSON this runtime applies:
 * {"defaultDevice":{"default_device":"<id>"}} (a number or a string) and
 * pageableCopy (above). Returns the default device's id, -1 if the file
 * does not set it, or -EINVAL; *@copy_mode the pageable copy mode.
 */
static int acl_config_read(const char *path, int *copy_mode)
{
	char buf[8192], *p, *end;
	size_t n;
	long id;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return acl_errf(-EINVAL, "configPath \"%s\" must name a readable file: %s", path,
				strerror(errno));
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	*copy_mode = acl_config_pageable_copy(path, buf);
	if (*copy_mode < 0)
		return *copy_mode;
	p = strstr(buf, "\"default_device\"");
	if (!p || !strstr(buf, "\"defaultDevice\""))
		return -1;
	p += strlen("\"default_device\"");
	p += strspn(p, " \t\r\n");
	if (*p++ != ':')
		return acl_errf(-EINVAL, "configPath \"%s\": default_device needs a value", path);
	p += strspn(p, " \t\r\n\"");
	id = strtol(p, &end, 10);
	if (end == p || id < 0 || id >= ACL_MAX_DEVICES)
		return acl_errf(-EINVAL, "configPath \"%s\": default_device must be a device id (0..%d)",
				path, ACL_MAX_DEVICES - 1);
	return (int)id;
}

ACL_EXPORT aclError aclInit(const char *configPath)
{
	int ret = 0, def = -1, copy_mode = ACL_PAGEABLE_AUTO;

	pthread_once(&acl_atfork_once, acl_atfork_register);
	pthread_mutex_lock(&acl_global_lock);
	if (acl_state == ACL_STATE_INIT) {
		ret = acl_errf(ACLI_EREPEAT_INIT, "aclInit was already called; call aclFinalize first");
		goto out;
	}
	if (configPath && configPath[0]) {
		def = acl_config_read(configPath, &copy_mode);
		if (def < -1) {
			ret = def;
			goto out;
		}
	}
	acl_ctx_set_default_device(def);
	acl_copy_config(copy_mode);
	__atomic_store_n(&acl_state, ACL_STATE_INIT, __ATOMIC_RELEASE);
out:
	pthread_mutex_unlock(&acl_global_lock);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclFinalize(void)
{
	int ret = 0, i;

	pthread_mutex_lock(&acl_global_lock);
	if (acl_state == ACL_STATE_FINALIZED) {
		ret = acl_errf(ACLI_EREPEAT_FINALIZE, "aclFinalize was already called");
		goto unlock;
	}
	if (acl_state != ACL_STATE_INIT) {
		ret = acl_errf(ACLI_EUNINIT, "aclInit has not been called");
		goto unlock;
	}
	__atomic_store_n(&acl_state, ACL_STATE_FINALIZED, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&acl_global_lock);
	/* Every context goes, and with the last of a device the device. */
	for (i = 0; i < ACL_MAX_DEVICES; i++)
		acl_ctxs_destroy(&acl_devices[i]);
	return acl_ret(__func__, 0);
unlock:
	pthread_mutex_unlock(&acl_global_lock);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtGetDeviceCount(uint32_t *count)
{
	int ret = acl_check_init();

	if (ret)
		goto out;
	if (!count) {
		ret = acl_errf(-EINVAL, "count must not be NULL");
		goto out;
	}
	*count = acl_dev_count();
	/* like cudaGetDeviceCount: a count of 0 comes with an error */
	if (!*count)
		ret = acl_errf(ACLI_ENODEVS, "no /dev/npuN device: is the npu module loaded?");
out:
	return acl_ret(__func__, ret);
}

int acl_dev_sync(struct acl_device *dev)
{
	struct acl_context *ctx;
	struct acl_context **ctxs = NULL;
	size_t n = 0, i;
	int ret = 0, err;

	/* Every context of the device; waiting must not hold the device lock. */
	pthread_mutex_lock(&dev->lock);
	list_for_each_entry(ctx, &dev->contexts, node)
		n++;
	ctxs = calloc(n ? n : 1, sizeof(*ctxs));
	if (!ctxs) {
		pthread_mutex_unlock(&dev->lock);
		return acl_errf(-ENOMEM, "out of host memory");
	}
	n = 0;
	list_for_each_entry(ctx, &dev->contexts, node) {
		acl_obj_hold(&ctx->obj);
		ctxs[n++] = ctx;
	}
	pthread_mutex_unlock(&dev->lock);
	for (i = 0; i < n; i++) {
		err = acl_ctx_sync_streams(ctxs[i]);
		if (err && !ret)
			ret = err;
		acl_ctx_put(ctxs[i]);
	}
	free(ctxs);
	return ret;
}

ACL_EXPORT aclError aclrtSynchronizeDevice(void)
{
	struct acl_device *dev;
	int ret;

	ret = acl_enter_dev(&dev);
	if (!ret)
		ret = acl_dev_sync(dev);
	return acl_ret(__func__, ret);
}
