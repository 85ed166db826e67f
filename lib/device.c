// SPDX-License-Identifier: MIT
/*
 * aclInit/aclFinalize, devices and the calling thread's current device.
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

#include "copy.h"
#include "device.h"
#include "error.h"
#include "ioctl.h"
#include "region.h"
#include "stream.h"
#include "vmm.h"

enum { ACL_STATE_NEVER, ACL_STATE_INIT, ACL_STATE_FINALIZED };

static pthread_mutex_t acl_global_lock = PTHREAD_MUTEX_INITIALIZER;
static int acl_state;		/* ACL_STATE_*; written under acl_global_lock */
static pthread_once_t acl_atfork_once = PTHREAD_ONCE_INIT;

static struct acl_device acl_devices[ACL_MAX_DEVICES] = {
	[0 ... ACL_MAX_DEVICES - 1] = {
		.lock = PTHREAD_MUTEX_INITIALIZER,
		.copy_lock = PTHREAD_MUTEX_INITIALIZER,
		.stage_lock = PTHREAD_MUTEX_INITIALIZER,
		.fd = -1,
	},
};

/* The calling thread's current device: id and the gen it was set under. */
static __thread int acl_cur_id = -1;
static __thread unsigned int acl_cur_gen;

int acl_check_init(void)
{
	if (__atomic_load_n(&acl_state, __ATOMIC_ACQUIRE) != ACL_STATE_INIT)
		return acl_errf(ACLI_EUNINIT, "aclInit has not been called (or aclFinalize has)");
	return 0;
}

int acl_cur_dev(struct acl_device **devp)
{
	struct acl_device *dev;

	if (acl_cur_id < 0)
		return acl_errf(ACLI_ENOCTX, "no current device: call aclrtSetDevice first");
	dev = &acl_devices[acl_cur_id];
	if (__atomic_load_n(&dev->fd, __ATOMIC_ACQUIRE) < 0 ||
	    __atomic_load_n(&dev->gen, __ATOMIC_ACQUIRE) != acl_cur_gen)
		return acl_errf(ACLI_ENOCTX, "current device %d was reset: call aclrtSetDevice again",
				acl_cur_id);
	*devp = dev;
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

int acl_dev_check_id(long long id, const char *what)
{
	char path[32];

	if (id < 0 || id >= ACL_MAX_DEVICES)
		return acl_errf(-ENODEV, "%s %lld is not a device id (0..%d)", what, id,
				ACL_MAX_DEVICES - 1);
	snprintf(path, sizeof(path), "/dev/npu%lld", id);
	if (access(path, F_OK))
		return acl_errf(-ENODEV, "%s %lld: no such device (%s missing)", what, id, path);
	return 0;
}

/*
 * Release the library's view of a context.  @in_child: after fork, the
 * context is the parent's; drop bookkeeping only and leave every mapping
 * as the child inherited it.
 */
static void acl_dev_teardown_locked(struct acl_device *dev, bool in_child)
{
	struct acl_stream *s, *sn;
	struct acl_event *e, *en;

	list_for_each_entry_safe(s, sn, &dev->streams, node) {
		list_del(&s->node);
		acl_stream_free(s);
	}
	list_for_each_entry_safe(e, en, &dev->events, node) {
		list_del(&e->node);
		pthread_mutex_destroy(&e->lock);
		free(e);
	}
	acl_handles_teardown(dev);
	acl_stream_free(dev->copy_stream);
	acl_stream_free(dev->stage_stream);
	dev->default_stream = dev->copy_stream = dev->stage_stream = NULL;

	/* Closing the file releases every kernel object of the context. */
	close(dev->fd);
	__atomic_store_n(&dev->fd, -1, __ATOMIC_RELEASE);
	__atomic_add_fetch(&dev->gen, 1, __ATOMIC_RELEASE);
	dev->refs = 0;

	acl_regions_teardown(dev, !in_child);
	acl_stage_teardown(dev, !in_child);
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
	dev->fd = fd;

	ret = acl_stream_new(dev, &dev->default_stream);
	if (ret)
		goto err_streams;
	dev->default_stream->is_default = true;
	list_add_tail(&dev->default_stream->node, &dev->streams);
	ret = acl_stream_new(dev, &dev->copy_stream);
	if (ret)
		goto err_streams;
	ret = acl_stream_new(dev, &dev->stage_stream);
	if (ret)
		goto err_streams;

	dev->refs = 0;
	__atomic_add_fetch(&dev->gen, 1, __ATOMIC_RELEASE);
	return 0;

err_streams:
	/* closes fd, frees what was created */
	acl_dev_teardown_locked(dev, false);
	return ret;
err_close:
	close(fd);
	return ret;
}

static void acl_dev_init_lists(struct acl_device *dev, int id)
{
	unsigned int i;

	dev->id = id;
	list_init(&dev->streams);
	list_init(&dev->events);
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
	acl_cur_id = -1;
	for (i = 0; i < ACL_MAX_DEVICES; i++) {
		struct acl_device *dev = &acl_devices[i];

		/* another thread may have held them at fork time */
		pthread_mutex_init(&dev->lock, NULL);
		pthread_mutex_init(&dev->copy_lock, NULL);
		pthread_mutex_init(&dev->stage_lock, NULL);
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

ACL_EXPORT aclError aclInit(const char *configPath)
{
	int ret = 0;

	pthread_once(&acl_atfork_once, acl_atfork_register);
	pthread_mutex_lock(&acl_global_lock);
	if (acl_state == ACL_STATE_INIT) {
		ret = acl_errf(ACLI_EREPEAT_INIT, "aclInit was already called; call aclFinalize first");
		goto out;
	}
	/* The file is only checked: no option of it applies to this runtime. */
	if (configPath && configPath[0] && access(configPath, R_OK)) {
		ret = acl_errf(-EINVAL, "configPath \"%s\" must name a readable file: %s", configPath,
			       strerror(errno));
		goto out;
	}
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
		goto out;
	}
	if (acl_state != ACL_STATE_INIT) {
		ret = acl_errf(ACLI_EUNINIT, "aclInit has not been called");
		goto out;
	}
	__atomic_store_n(&acl_state, ACL_STATE_FINALIZED, __ATOMIC_RELEASE);
	for (i = 0; i < ACL_MAX_DEVICES; i++) {
		struct acl_device *dev = &acl_devices[i];

		pthread_mutex_lock(&dev->lock);
		if (dev->fd >= 0)
			acl_dev_teardown_locked(dev, false);
		pthread_mutex_unlock(&dev->lock);
	}
out:
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

ACL_EXPORT aclError aclrtSetDevice(int32_t deviceId)
{
	struct acl_device *dev;
	int ret = acl_check_init();

	if (ret)
		goto out;
	if (deviceId < 0 || deviceId >= ACL_MAX_DEVICES) {
		ret = acl_errf(-ENODEV, "deviceId %d is not a device id (0..%d)", deviceId,
			       ACL_MAX_DEVICES - 1);
		goto out;
	}
	dev = &acl_devices[deviceId];
	pthread_mutex_lock(&acl_global_lock);
	pthread_mutex_lock(&dev->lock);
	if (dev->fd < 0)
		ret = acl_dev_open_locked(dev);
	if (!ret) {
		dev->refs++;
		acl_cur_id = deviceId;
		acl_cur_gen = dev->gen;
	}
	pthread_mutex_unlock(&dev->lock);
	pthread_mutex_unlock(&acl_global_lock);
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtGetDevice(int32_t *deviceId)
{
	struct acl_device *dev;
	int ret = acl_check_init();

	if (ret)
		goto out;
	if (!deviceId) {
		ret = acl_errf(-EINVAL, "deviceId must not be NULL");
		goto out;
	}
	ret = acl_cur_dev(&dev);
	if (!ret)
		*deviceId = dev->id;
out:
	return acl_ret(__func__, ret);
}

static int acl_reset(int32_t deviceId, bool force)
{
	struct acl_device *dev;
	int ret = acl_check_init();

	if (ret)
		return ret;
	if (deviceId < 0 || deviceId >= ACL_MAX_DEVICES)
		return acl_errf(-ENODEV, "deviceId %d is not a device id (0..%d)", deviceId,
				ACL_MAX_DEVICES - 1);
	dev = &acl_devices[deviceId];
	pthread_mutex_lock(&acl_global_lock);
	pthread_mutex_lock(&dev->lock);
	if (dev->fd < 0) {
		ret = acl_dev_check_id(deviceId, "deviceId");
		if (!ret)
			ret = acl_errf(ACLI_ENOCTX, "device %d is not set: nothing to reset", deviceId);
		goto out;
	}
	/* Force ignores the other aclrtSetDevice references. */
	if (!force && --dev->refs > 0)
		goto out;
	acl_dev_teardown_locked(dev, false);
out:
	pthread_mutex_unlock(&dev->lock);
	pthread_mutex_unlock(&acl_global_lock);
	return ret;
}

ACL_EXPORT aclError aclrtResetDevice(int32_t deviceId)
{
	return acl_ret(__func__, acl_reset(deviceId, false));
}

ACL_EXPORT aclError aclrtResetDeviceForce(int32_t deviceId)
{
	return acl_ret(__func__, acl_reset(deviceId, true));
}

ACL_EXPORT aclError aclrtSynchronizeDevice(void)
{
	struct acl_device *dev;
	struct acl_stream *s;
	uint32_t *ids = NULL;
	size_t n = 0, cap = 0, i;
	int ret, err;

	ret = acl_enter_dev(&dev);
	if (ret)
		goto out;
	/* Snapshot the stream ids: waiting must not hold the device lock. */
	pthread_mutex_lock(&dev->lock);
	list_for_each_entry(s, &dev->streams, node) {
		if (n == cap) {
			uint32_t *nids = realloc(ids, (cap ? cap * 2 : 16) * sizeof(*ids));

			if (!nids) {
				ret = acl_errf(-ENOMEM, "out of host memory");
				break;
			}
			ids = nids;
			cap = cap ? cap * 2 : 16;
		}
		ids[n++] = s->id;
	}
	pthread_mutex_unlock(&dev->lock);
	for (i = 0; i < n && !ret; i++) {
		err = acl_stream_wait(dev, ids[i], 0, -1);
		/* a stream destroyed meanwhile has nothing left to wait for */
		if (err && err != -ENOENT)
			ret = err;
	}
	free(ids);
out:
	return acl_ret(__func__, ret);
}
