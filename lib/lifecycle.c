// SPDX-License-Identifier: MIT
/*
 * The top of the library: aclInit/aclFinalize, fork, and the calls that
 * open a device for its first context and close it after its last
 * (aclrtSetDevice, aclrtResetDevice(Force), aclrtCreateContext,
 * aclrtDestroyContext). It calls down into every layer that keeps state
 * per device (the records of the memory layer, the copy machinery,
 * managed memory, the word pools, contexts); nothing calls back up into
 * it: the implicit selection of aclInit's default device gets
 * acl_set_device() handed down (acl_ctx_set_default_device()).
 *
 * Locking: acl_global_lock (device.h) serialises init, finalize and the
 * opening and closing of devices.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <acl/acl.h>

#include "acl_ioctl.h"
#include "callback.h"
#include "context.h"
#include "copy.h"
#include "device.h"
#include "error.h"
#include "handle.h"
#include "managed.h"
#include "mm.h"
#include "notify.h"
#include "slots.h"

static pthread_once_t acl_once = PTHREAD_ONCE_INIT;

/*
 * Release the library's view of a driver context; its library contexts
 * are gone.  @in_child: after fork, the driver context is the parent's;
 * drop bookkeeping only and leave every mapping as the child inherited it.
 */
static void acl_dev_teardown_locked(struct acl_device *dev, bool in_child)
{
	/* Closing the file releases every kernel object of the context. */
	close(dev->fd);
	acl_copy_close(dev, in_child);
	acl_slots_destroy(&dev->slots);
	acl_slots_destroy(&dev->notifies);
	acl_slots_destroy(&dev->overflow);
	__atomic_store_n(&dev->fd, -1, __ATOMIC_RELEASE);
	__atomic_add_fetch(&dev->gen, 1, __ATOMIC_RELEASE);
	dev->refs = 0;
	dev->users = 0;
	dev->primary = NULL;

	acl_mm_teardown(dev, in_child);
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
	ret = acl_ioctl(fd, NPU_IOCTL_GET_INFO, &info);
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
	memset(dev->peer_refs, 0, sizeof(dev->peer_refs));
	__atomic_store_n(&dev->faults, 0, __ATOMIC_RELAXED);
	acl_mm_open(dev);
	dev->fd = fd;

	ret = acl_copy_open(dev);
	/* managed memory is mirrored, aclrtMallocHost memory registered, on every open device */
	if (!ret)
		ret = acl_managed_dev_opened(dev);
	if (!ret)
		ret = acl_mm_host_dev_opened(dev);
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

/* A device for one more context: opened if it was not (acl_global_lock held). */
static int acl_dev_acquire_locked(int id, struct acl_device **devp)
{
	struct acl_device *dev;
	int ret = 0;

	ret = acl_dev_check_range(id, "deviceId");
	if (ret)
		return ret;
	dev = acl_dev_slot(id);
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

/* Its context is gone: closed with the last one (acl_global_lock held). */
static void acl_dev_release_locked(struct acl_device *dev)
{
	if (!--dev->users) {
		pthread_mutex_lock(&dev->lock);
		acl_dev_teardown_locked(dev, false);
		pthread_mutex_unlock(&dev->lock);
	}
}

static void acl_dev_release(struct acl_device *dev)
{
	pthread_mutex_lock(&acl_global_lock);
	acl_dev_release_locked(dev);
	pthread_mutex_unlock(&acl_global_lock);
}

/* Destroy @ctx and release its device, unless another thread is destroying it. */
static int acl_ctx_end(struct acl_context *ctx, bool force)
{
	struct acl_device *dev = ctx->dev;
	int ret = acl_ctx_destroy(ctx, force);

	if (ret != ACLI_ECTXRELEASE)
		acl_dev_release(dev);
	return ret;
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
	acl_mm_forget();
	acl_notifies_forget();
	acl_reporters_forget();
	for (i = 0; i < ACL_MAX_DEVICES; i++) {
		struct acl_device *dev = acl_dev_slot(i);

		/* another thread may have held it at fork time */
		pthread_mutex_init(&dev->lock, NULL);
		acl_ctxs_forget(dev);
		if (dev->fd >= 0)
			acl_dev_teardown_locked(dev, true);
	}
}

static void acl_once_init(void)
{
	acl_devs_init();
	pthread_atfork(acl_atfork_prepare, acl_atfork_parent, acl_atfork_child);
}

/* aclrtSetDevice: the primary context, referenced and made current. */
static int acl_set_device(int32_t id)
{
	struct acl_device *dev;
	int ret;

	pthread_mutex_lock(&acl_global_lock);
	ret = acl_dev_acquire_locked(id, &dev);
	if (ret)
		goto unlock;
	if (dev->primary) {
		/* the primary context holds one use for all its references */
		acl_dev_release_locked(dev);
	} else {
		ret = acl_ctx_new(dev, true, &dev->primary);
		if (ret) {
			acl_dev_release_locked(dev);
			goto unlock;
		}
	}
	dev->refs++;
	acl_ctx_make_current(dev->primary);
unlock:
	pthread_mutex_unlock(&acl_global_lock);
	return ret;
}

/* aclrtResetDevice(Force): drop references; the last destroys the primary. */
static int acl_reset_device(int32_t id, bool force)
{
	struct acl_device *dev;
	struct acl_context *victim = NULL;
	int ret;

	ret = acl_dev_check_range(id, "deviceId");
	if (ret)
		return ret;
	dev = acl_dev_slot(id);
	pthread_mutex_lock(&acl_global_lock);
	if (!dev->primary) {
		pthread_mutex_unlock(&acl_global_lock);
		/* a device held is reset even if its node went away since */
		ret = acl_dev_check_id(id, "deviceId");
		return ret ? ret : acl_errf(ACLI_ECTXRELEASE, "device %d is not set by this process: nothing to reset", id);
	}
	/* the calling thread's selection goes, whatever others hold */
	acl_ctx_drop_current(dev->primary);
	if (force || !--dev->refs) {
		victim = dev->primary;
		dev->primary = NULL;
		dev->refs = 0;
	}
	pthread_mutex_unlock(&acl_global_lock);
	/* its streams drain outside the global lock */
	return victim ? acl_ctx_end(victim, false) : 0;
}

/* aclFinalize: destroy every context of @dev, dropping queued work. */
static void acl_ctxs_destroy(struct acl_device *dev)
{
	struct acl_context *ctx;

	for (;;) {
		pthread_mutex_lock(&acl_global_lock);
		if (dev->primary) {
			ctx = dev->primary;
			acl_obj_hold(&ctx->obj);
			dev->primary = NULL;
			dev->refs = 0;
			pthread_mutex_unlock(&acl_global_lock);
		} else {
			pthread_mutex_unlock(&acl_global_lock);
			pthread_mutex_lock(&dev->lock);
			ctx = NULL;
			list_for_each_entry(ctx, &dev->contexts, node) {
				if (!__atomic_load_n(&ctx->dying, __ATOMIC_ACQUIRE))
					break;
			}
			if (&ctx->node == &dev->contexts)
				ctx = NULL;
			else
				acl_obj_hold(&ctx->obj);
			pthread_mutex_unlock(&dev->lock);
		}
		if (!ctx)
			break;
		acl_ctx_end(ctx, true);
		acl_ctx_put(ctx);
	}
	acl_err_clear();
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

	pthread_once(&acl_once, acl_once_init);
	pthread_mutex_lock(&acl_global_lock);
	if (acl_init_state() == ACL_STATE_INIT) {
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
	acl_ctx_set_default_device(def, acl_set_device);
	acl_copy_config(copy_mode);
	acl_init_state_set(ACL_STATE_INIT);
out:
	pthread_mutex_unlock(&acl_global_lock);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclFinalize(void)
{
	int ret = 0, i;

	pthread_mutex_lock(&acl_global_lock);
	if (acl_init_state() == ACL_STATE_FINALIZED) {
		ret = acl_errf(ACLI_EREPEAT_FINALIZE, "aclFinalize was already called");
		goto unlock;
	}
	if (acl_init_state() != ACL_STATE_INIT) {
		ret = acl_errf(ACLI_EUNINIT, "aclInit has not been called");
		goto unlock;
	}
	acl_init_state_set(ACL_STATE_FINALIZED);
	pthread_mutex_unlock(&acl_global_lock);
	/* Every context goes, and with the last of a device the device. */
	for (i = 0; i < ACL_MAX_DEVICES; i++)
		acl_ctxs_destroy(acl_dev_slot(i));
	return acl_ret(__func__, 0);
unlock:
	pthread_mutex_unlock(&acl_global_lock);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtSetDevice(int32_t deviceId)
{
	int ret = acl_check_init();

	if (!ret)
		ret = acl_set_device(deviceId);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtResetDevice(int32_t deviceId)
{
	int ret = acl_check_init();

	if (!ret)
		ret = acl_reset_device(deviceId, false);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtResetDeviceForce(int32_t deviceId)
{
	int ret = acl_check_init();

	if (!ret)
		ret = acl_reset_device(deviceId, true);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtCreateContext(aclrtContext *context, int32_t deviceId)
{
	struct acl_context *ctx;
	struct acl_device *dev;
	int ret;

	ret = acl_enter(NULL, context);
	if (!ret)
		ret = acl_dev_check_id(deviceId, "deviceId");
	if (ret)
		goto out;
	pthread_mutex_lock(&acl_global_lock);
	ret = acl_dev_acquire_locked(deviceId, &dev);
	if (!ret) {
		ret = acl_ctx_new(dev, false, &ctx);
		if (ret)
			acl_dev_release_locked(dev);
	}
	pthread_mutex_unlock(&acl_global_lock);
	if (ret)
		goto out;
	acl_ctx_make_current(ctx);
	*context = ctx;
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtDestroyContext(aclrtContext context)
{
	struct acl_context *ctx;
	int ret;

	ret = acl_enter(NULL, context);
	if (!ret)
		ret = acl_ctx_get_explicit(context, &ctx);
	if (ret)
		goto out;
	acl_ctx_drop_current(ctx);
	ret = acl_ctx_end(ctx, false);
	acl_ctx_put(ctx);
out:
	return acl_ret(__func__, ret);
}
