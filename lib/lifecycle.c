// SPDX-License-Identifier: MIT
/*
 * The top of the library: aclInit/aclFinalize, fork, and the calls that
 * open a device for its first context and close it after its last
 * (aclrtSetDevice, aclrtResetDevice(Force), aclrtCreateContext,
 * aclrtDestroyContext). It calls down into every layer that keeps state
 * per device (the records of the memory layer, the copy machinery,
 * managed memory, memory pools, the word pools, contexts); nothing calls back up into
 * it: the implicit selection of aclInit's default device gets
 * acl_set_device() handed down (acl_ctx_set_default_device()).
 *
 * Also the callbacks aclInit and aclFinalize call, and aclInit's
 * references (aclFinalizeReference), as CANN's InitCallbackManager
 * (src/acl/aclrt_impl/init_callback_manager.cpp) and acl.cpp.
 *
 * Locking: acl_init_lock serialises aclInit, aclFinalize and
 * aclFinalizeReference with the callbacks they call; it is taken before
 * acl_global_lock (device.h), which serialises the state change and the
 * opening and closing of devices and is never held across a callback
 * (they may call any API). acl_lcb_lock guards the registrations and the
 * configuration late init callbacks get; it is held across no call.
 *
 * The device state callbacks (devstate.c) are called here: SET_PRE
 * before a device opens, SET_POST after aclrtSetDevice, RESET_PRE and
 * RESET_POST around the destruction of a primary context by its last
 * reset, as CANN's runtime calls them (runtime.cc DeviceRetain,
 * ExecutePrimaryTearDown; api_impl.cc SetDevice). acl_open_lock[N], taken
 * before acl_global_lock, makes the opening and closing of device N one
 * at a time with SET_PRE, so that it comes once per open.
 *
 * The calls that open or close devices, aclFinalize among them, wait
 * first while the process is locked for a snapshot (snapstate.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <acl/acl.h>

#include "acl_ioctl.h"
#include "aicore.h"
#include "callback.h"
#include "context.h"
#include "copy.h"
#include "device.h"
#include "devstate.h"
#include "error.h"
#include "handle.h"
#include "managed.h"
#include "mbuf.h"
#include "mempool.h"
#include "mm.h"
#include "model.h"
#include "model_group.h"
#include "notify.h"
#include "slots.h"
#include "snapstate.h"
#include "stream.h"
#include "streamstate.h"
#include "sysparam.h"

static pthread_once_t acl_once = PTHREAD_ONCE_INIT;

static pthread_mutex_t acl_init_lock = PTHREAD_MUTEX_INITIALIZER;
/* aclInit's references: 1 at a successful one, +1 at each repeat (acl_init_lock) */
static uint64_t acl_init_refs;
/* the calling thread runs a callback of aclInit or aclFinalize */
static __thread bool acl_in_lcb;

/* A registered callback of aclInit or aclFinalize. */
struct acl_lcb {
	struct list_head node;
	aclRegisterCallbackType type;
	void (*fn)(void);	/* aclInitCallbackFunc or aclFinalizeCallbackFunc */
	void *data;
};

struct acl_lcb_list {
	struct list_head head;	/* registration order */
	bool init;		/* of aclInit: fn is an aclInitCallbackFunc */
};

static pthread_mutex_t acl_lcb_lock = PTHREAD_MUTEX_INITIALIZER;
static struct acl_lcb_list acl_init_cbs = { LIST_HEAD_INIT(acl_init_cbs.head), true };
static struct acl_lcb_list acl_fini_cbs = { LIST_HEAD_INIT(acl_fini_cbs.head), false };
/* while initialised: aclInit's configuration, for init callbacks registered late */
static char *acl_cfg;
static size_t acl_cfg_len;

/*
 * Per device: its opening with SET_PRE, and its closing (recursive: a
 * SET_PRE callback may set the device, which opens it then, unnotified
 * again); whether SET_PRE was sent for the open under way.
 */
static pthread_mutex_t acl_open_lock[ACL_MAX_DEVICES];
static bool acl_open_notified[ACL_MAX_DEVICES];

/*
 * Release the library's view of a driver context; its library contexts
 * are gone.  @in_child: after fork, the driver context is the parent's;
 * drop bookkeeping only and leave every mapping as the child inherited it.
 */
static void acl_dev_teardown_locked(struct acl_device *dev, bool in_child)
{
	/* its executor goes first: it holds the context through the aperture */
	acl_aicore_stop(dev, in_child);
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
	dev->import_hold = false;

	/* the pools' memory went with the file; their ranges go with the records */
	acl_mempool_dev_closed(dev, in_child);
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
	ret = acl_dev_limits_check_open(dev->id);
	if (ret)
		goto err_close;
	dev->va_start = info.va_start;
	dev->va_end = info.va_end;
	dev->page_sizes = info.page_sizes;
	__atomic_store_n(&dev->peers, 0, __ATOMIC_RELAXED);
	memset(dev->peer_refs, 0, sizeof(dev->peer_refs));
	__atomic_store_n(&dev->faults, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&dev->mem_error, false, __ATOMIC_RELAXED);
	__atomic_store_n(&dev->task_abort, false, __ATOMIC_RELAXED);
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
	pthread_mutex_lock(&acl_open_lock[dev->id]);
	pthread_mutex_lock(&acl_global_lock);
	acl_dev_release_locked(dev);
	pthread_mutex_unlock(&acl_global_lock);
	pthread_mutex_unlock(&acl_open_lock[dev->id]);
}

/* acl_dev_hold()'s work, handed down to device.c (acl_once_init()). */
static int acl_dev_hold_open(int id, struct acl_device **devp)
{
	int ret;

	pthread_mutex_lock(&acl_open_lock[id]);
	pthread_mutex_lock(&acl_global_lock);
	ret = acl_dev_acquire_locked(id, devp);
	pthread_mutex_unlock(&acl_global_lock);
	pthread_mutex_unlock(&acl_open_lock[id]);
	return ret;
}

static void acl_open_locks_init(void)
{
	pthread_mutexattr_t attr;
	int i;

	pthread_mutexattr_init(&attr);
	pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
	for (i = 0; i < ACL_MAX_DEVICES; i++) {
		pthread_mutex_init(&acl_open_lock[i], &attr);
		acl_open_notified[i] = false;
	}
	pthread_mutexattr_destroy(&attr);
}

/*
 * Before a context is made on device @id (0..63; acl_dev_open_end() after
 * it): SET_PRE when the process is about to open an existing device.
 */
static void acl_dev_open_begin(int id)
{
	pthread_mutex_lock(&acl_open_lock[id]);
	if (!acl_dev_get(id) && !acl_open_notified[id]) {
		/* a missing node fails the open next, with its reason */
		if (!acl_dev_check_id(id, "deviceId")) {
			acl_open_notified[id] = true;
			acl_devstate_notify(id, ACL_RT_DEVICE_STATE_SET_PRE);
		}
		acl_err_clear();
	}
}

static void acl_dev_open_end(int id)
{
	acl_open_notified[id] = false;
	pthread_mutex_unlock(&acl_open_lock[id]);
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
	/* not taken at fork (a callback may fork): another thread may have held them */
	pthread_mutex_init(&acl_init_lock, NULL);
	pthread_mutex_init(&acl_lcb_lock, NULL);
	acl_open_locks_init();
	acl_devstate_atfork_child();
	acl_objs_forget();
	acl_managed_forget();
	acl_mm_forget();
	acl_mempool_forget();
	acl_mbuf_forget();
	acl_notifies_forget();
	acl_reporters_forget();
	acl_stream_state_forget();
	acl_grps_atfork_child();
	acl_exec_reapers_forget();
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
	acl_open_locks_init();
	acl_dev_set_holder(acl_dev_hold_open, acl_dev_release);
	pthread_atfork(acl_atfork_prepare, acl_atfork_parent, acl_atfork_child);
}

/*
 * A new context's default stream, held since the global lock was dropped:
 * the stream state callbacks may call the API (NULL: none).
 */
static void acl_stream_born(struct acl_stream *s)
{
	if (s) {
		acl_stream_state_notify(s, ACL_RT_STREAM_STATE_CREATE_POST);
		acl_stream_put(s);
	}
}

/* aclrtSetDevice: the primary context, referenced and made current. */
static int acl_set_device(int32_t id)
{
	struct acl_stream *fresh = NULL;
	struct acl_device *dev;
	int ret;

	ret = acl_dev_check_range(id, "deviceId");
	if (ret)
		return ret;
	acl_dev_open_begin(id);
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
		fresh = dev->primary->default_stream;
		acl_obj_hold(&fresh->obj);
	}
	dev->refs++;
	acl_ctx_make_current(dev->primary);
unlock:
	pthread_mutex_unlock(&acl_global_lock);
	acl_dev_open_end(id);
	acl_stream_born(fresh);
	if (!ret)
		acl_devstate_notify(id, ACL_RT_DEVICE_STATE_SET_POST);
	return ret;
}

/*
 * The last reference of a primary context went: RESET_PRE with it current
 * for the calling thread (CANN makes it the thread's context for the
 * callbacks), its destruction, RESET_POST.
 */
static int acl_primary_end(struct acl_context *victim)
{
	int id = victim->dev->id;
	struct acl_ctx_sel sel;
	int ret;

	/* the thread's own selection after (its reset dropped this one already) */
	acl_ctx_sel_save(&sel);
	acl_ctx_make_current(victim);
	acl_devstate_notify(id, ACL_RT_DEVICE_STATE_RESET_PRE);
	acl_ctx_sel_restore(&sel);
	ret = acl_ctx_end(victim, false);
	/* another thread destroying it (aclFinalize) did nothing of this reset */
	if (ret != ACLI_ECTXRELEASE)
		acl_devstate_notify(id, ACL_RT_DEVICE_STATE_RESET_POST);
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
	return victim ? acl_primary_end(victim) : 0;
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
 * pageableCopy (above), from @buf, the content of @path. Returns the
 * default device's id, -1 if the file does not set it, or -EINVAL;
 * *@copy_mode the pageable copy mode.
 */
static int acl_config_parse(const char *path, const char *buf, int *copy_mode)
{
	const char *p;
	char *end;
	long id;

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

/*
 * The whole content of aclInit's file, NUL-terminated, for the init
 * callbacks and the options; "" for NULL or "" (CANN's
 * GetStrFromConfigPath, acl_rt_impl_base.cpp).
 */
static int acl_config_load(const char *path, char **bufp, size_t *lenp)
{
	size_t len = 0, cap = 4096, n;
	char *buf, *grown;
	FILE *f = NULL;
	int ret = 0;

	if (path && path[0]) {
		f = fopen(path, "re");
		if (!f)
			return acl_errf(-EINVAL, "configPath \"%s\" must name a readable file: %s", path,
					strerror(errno));
	}
	buf = malloc(cap);
	while (buf && f) {
		n = fread(buf + len, 1, cap - 1 - len, f);
		len += n;
		if (len < cap - 1)
			break;
		cap *= 2;
		grown = realloc(buf, cap);
		if (!grown)
			free(buf);
		buf = grown;
	}
	if (f && buf && ferror(f))
		ret = acl_errf(-EINVAL, "configPath \"%s\" cannot be read: %s", path, strerror(errno));
	if (f)
		fclose(f);
	if (!buf)
		return acl_errf(-ENOMEM, "no memory for the content of configPath \"%s\"", path ?: "");
	if (ret) {
		free(buf);
		return ret;
	}
	buf[len] = '\0';
	*bufp = buf;
	*lenp = len;
	return 0;
}

static const char *acl_lcb_type_name(aclRegisterCallbackType type)
{
	switch (type) {
	case ACL_REG_TYPE_ACL_MODEL:		return "ACL_REG_TYPE_ACL_MODEL";
	case ACL_REG_TYPE_ACL_OP_EXECUTOR:	return "ACL_REG_TYPE_ACL_OP_EXECUTOR";
	case ACL_REG_TYPE_ACL_OP_COMPILER:	return "ACL_REG_TYPE_ACL_OP_COMPILER";
	case ACL_REG_TYPE_ACL_DVPP:		return "ACL_REG_TYPE_ACL_DVPP";
	case ACL_REG_TYPE_OTHER:		return "ACL_REG_TYPE_OTHER";
	default:				return "type";
	}
}

/*
 * Register @fn for @type. As CANN's RegInitCallback/RegFinalizeCallback:
 * any type value is kept (only those aclInit and aclFinalize name are
 * ever called), a type but OTHER takes one callback, OTHER any number,
 * the same one again too. An init callback registered while initialised
 * is due at once: *@cfg gets a copy of the configuration (else NULL).
 */
static int acl_lcb_register(struct acl_lcb_list *l, aclRegisterCallbackType type, void (*fn)(void),
			    void *data, char **cfg, size_t *cfg_len)
{
	struct acl_lcb *cb, *it;
	int ret = 0;

	if (!fn)
		return acl_errf(-EINVAL, "cbFunc must not be NULL");
	cb = calloc(1, sizeof(*cb));
	if (!cb)
		return acl_errf(-ENOMEM, "no memory for a callback registration");
	cb->type = type;
	cb->fn = fn;
	cb->data = data;
	pthread_mutex_lock(&acl_lcb_lock);
	list_for_each_entry(it, &l->head, node) {
		if (type != ACL_REG_TYPE_OTHER && it->type == type) {
			ret = acl_errf(ACLI_ESTATE, "%s %d already has a callback; only ACL_REG_TYPE_OTHER takes more",
				       acl_lcb_type_name(type), (int)type);
			break;
		}
	}
	if (!ret && l->init && acl_cfg) {
		*cfg = malloc(acl_cfg_len + 1);
		if (*cfg) {
			memcpy(*cfg, acl_cfg, acl_cfg_len + 1);
			*cfg_len = acl_cfg_len;
		} else {
			ret = acl_errf(-ENOMEM, "no memory for a copy of aclInit's configuration");
		}
	}
	if (!ret)
		list_add_tail(&cb->node, &l->head);
	pthread_mutex_unlock(&acl_lcb_lock);
	if (ret)
		free(cb);
	return ret;
}

/* Drop the first registration of @fn for @type (CANN's UnregisterCallbackImpl). */
static int acl_lcb_unregister(struct acl_lcb_list *l, aclRegisterCallbackType type, void (*fn)(void))
{
	struct acl_lcb *it, *found = NULL;

	if (!fn)
		return acl_errf(-EINVAL, "cbFunc must not be NULL");
	pthread_mutex_lock(&acl_lcb_lock);
	list_for_each_entry(it, &l->head, node) {
		if (it->type == type && it->fn == fn) {
			found = it;
			list_del(&it->node);
			break;
		}
	}
	pthread_mutex_unlock(&acl_lcb_lock);
	if (!found)
		return acl_errf(ACLI_ESTATE, "cbFunc %p is not registered for %s %d", (void *)fn,
				acl_lcb_type_name(type), (int)type);
	free(found);
	return 0;
}

/*
 * Call the callbacks of @type in registration order, outside acl_lcb_lock
 * (a copy of the list: one unregistered meanwhile may still be called
 * this once); the first failure stops them and is returned as its code.
 */
static int acl_lcb_notify(struct acl_lcb_list *l, aclRegisterCallbackType type, const char *cfg,
			  size_t len)
{
	struct acl_lcb *it, *snap;
	void (*failed)(void) = NULL;
	size_t i, n = 0;
	aclError code = ACL_SUCCESS;

	pthread_mutex_lock(&acl_lcb_lock);
	list_for_each_entry(it, &l->head, node)
		n += it->type == type;
	snap = n ? calloc(n, sizeof(*snap)) : NULL;
	if (snap) {
		i = 0;
		list_for_each_entry(it, &l->head, node)
			if (it->type == type)
				snap[i++] = *it;
	}
	pthread_mutex_unlock(&acl_lcb_lock);
	if (n && !snap)
		return acl_errf(-ENOMEM, "no memory to call the %s callbacks", acl_lcb_type_name(type));

	acl_in_lcb = true;
	for (i = 0; i < n && !failed; i++) {
		if (l->init)
			code = ((aclInitCallbackFunc)snap[i].fn)(cfg, len, snap[i].data);
		else
			code = ((aclFinalizeCallbackFunc)snap[i].fn)(snap[i].data);
		if (code != ACL_SUCCESS)
			failed = snap[i].fn;
	}
	acl_in_lcb = false;
	free(snap);
	if (failed)
		return acl_errf(acl_user_err(code), "the %s %s callback %p failed with %d",
				acl_lcb_type_name(type), l->init ? "init" : "finalize", (void *)failed, code);
	return 0;
}

/* aclInit and the finalizes wait for their callbacks: one of them calling back would hang. */
static int acl_lcb_reentry(const char *api)
{
	if (acl_in_lcb)
		return acl_errf(ACLI_ESTATE, "%s cannot be called from an init or finalize callback", api);
	return 0;
}

/* Keep (@cfg) or drop (NULL) the configuration init callbacks registered late get. */
static void acl_lcb_set_config(char *cfg, size_t len)
{
	char *old;

	pthread_mutex_lock(&acl_lcb_lock);
	old = acl_cfg;
	acl_cfg = cfg;
	acl_cfg_len = len;
	pthread_mutex_unlock(&acl_lcb_lock);
	free(old);
}

/*
 * aclInit under acl_init_lock, in CANN's order (acl.cpp aclInitImpl): the
 * file, the MODEL callbacks, with a file the OP_EXECUTOR callbacks and its
 * options, the DVPP and OTHER callbacks; initialised only if all succeed.
 */
static int acl_init_locked(const char *path)
{
	int ret, def = -1, copy_mode = ACL_PAGEABLE_AUTO;
	bool file = path && path[0];
	size_t len = 0;
	char *cfg = NULL;

	if (acl_init_state() == ACL_STATE_INIT) {
		/* a repeat fails, and still counts for aclFinalizeReference (CANN) */
		acl_init_refs++;
		return acl_errf(ACLI_EREPEAT_INIT, "aclInit was already called; call aclFinalize first");
	}
	ret = acl_config_load(path, &cfg, &len);
	if (ret)
		return ret;
	ret = acl_lcb_notify(&acl_init_cbs, ACL_REG_TYPE_ACL_MODEL, cfg, len);
	if (!ret && file)
		ret = acl_lcb_notify(&acl_init_cbs, ACL_REG_TYPE_ACL_OP_EXECUTOR, cfg, len);
	if (!ret && file) {
		def = acl_config_parse(path, cfg, &copy_mode);
		ret = def < -1 ? def : 0;
	}
	if (!ret)
		ret = acl_lcb_notify(&acl_init_cbs, ACL_REG_TYPE_ACL_DVPP, cfg, len);
	if (!ret)
		ret = acl_lcb_notify(&acl_init_cbs, ACL_REG_TYPE_OTHER, cfg, len);
	if (ret) {
		free(cfg);
		return ret;
	}
	pthread_mutex_lock(&acl_global_lock);
	acl_ctx_set_default_device(def, acl_set_device);
	acl_copy_config(copy_mode);
	acl_init_state_set(ACL_STATE_INIT);
	pthread_mutex_unlock(&acl_global_lock);
	acl_lcb_set_config(cfg, len);
	acl_init_refs = 1;
	return 0;
}

/*
 * The finalize under acl_init_lock (CANN's aclFinalizeInternal): the
 * OP_COMPILER, MODEL, DVPP and OTHER callbacks, the first failure leaving
 * the library initialised; then no references. The caller destroys the
 * contexts (acl_finalize_contexts()) after dropping acl_init_lock.
 */
static int acl_finalize_locked(void)
{
	static const aclRegisterCallbackType order[] = {
		ACL_REG_TYPE_ACL_OP_COMPILER, ACL_REG_TYPE_ACL_MODEL, ACL_REG_TYPE_ACL_DVPP, ACL_REG_TYPE_OTHER,
	};
	size_t i;
	int ret;

	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		ret = acl_lcb_notify(&acl_fini_cbs, order[i], NULL, 0);
		if (ret)
			return ret;
	}
	acl_lcb_set_config(NULL, 0);
	pthread_mutex_lock(&acl_global_lock);
	acl_init_state_set(ACL_STATE_FINALIZED);
	pthread_mutex_unlock(&acl_global_lock);
	acl_init_refs = 0;
	return 0;
}

/* Every context goes, and with the last of a device the device. */
static void acl_finalize_contexts(void)
{
	int i;

	for (i = 0; i < ACL_MAX_DEVICES; i++) {
		struct acl_device *dev = acl_dev_slot(i);

		acl_ctxs_destroy(dev);
		/* and a device an IPC import opened */
		pthread_mutex_lock(&acl_open_lock[i]);
		pthread_mutex_lock(&acl_global_lock);
		if (__atomic_exchange_n(&dev->import_hold, false, __ATOMIC_ACQ_REL))
			acl_dev_release_locked(dev);
		pthread_mutex_unlock(&acl_global_lock);
		pthread_mutex_unlock(&acl_open_lock[i]);
	}
}

ACL_EXPORT aclError aclInit(const char *configPath)
{
	int ret = acl_lcb_reentry(__func__);

	if (ret)
		return acl_ret(__func__, ret);
	pthread_once(&acl_once, acl_once_init);
	pthread_mutex_lock(&acl_init_lock);
	ret = acl_init_locked(configPath);
	pthread_mutex_unlock(&acl_init_lock);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclFinalize(void)
{
	int ret = acl_lcb_reentry(__func__);

	if (ret)
		return acl_ret(__func__, ret);
	/* it closes the devices: not while the process is locked for a snapshot */
	acl_snap_gate();
	pthread_mutex_lock(&acl_init_lock);
	if (acl_init_state() == ACL_STATE_FINALIZED)
		ret = acl_errf(ACLI_EREPEAT_FINALIZE, "aclFinalize was already called");
	else if (acl_init_state() != ACL_STATE_INIT)
		ret = acl_errf(ACLI_EUNINIT, "aclInit has not been called");
	else
		ret = acl_finalize_locked();
	pthread_mutex_unlock(&acl_init_lock);
	if (!ret)
		acl_finalize_contexts();
	return acl_ret(__func__, ret);
}

/*
 * As CANN's aclFinalizeReferenceImpl (acl.cpp): more than one reference
 * drops one; the last finalizes; none is ACL_ERROR_REPEAT_FINALIZE, also
 * before any aclInit. *refCount: the references left (1 if the finalize
 * failed).
 */
ACL_EXPORT aclError aclFinalizeReference(uint64_t *refCount)
{
	bool last = false;
	int ret = acl_lcb_reentry(__func__);

	if (ret)
		return acl_ret(__func__, ret);
	pthread_mutex_lock(&acl_init_lock);
	if (acl_init_refs > 1) {
		acl_init_refs--;
	} else if (!acl_init_refs) {
		ret = acl_errf(ACLI_EREPEAT_FINALIZE,
			       "no aclInit reference is left: finalized already, or aclInit not called");
	} else {
		ret = acl_finalize_locked();
		last = !ret;
	}
	if (refCount)
		*refCount = acl_init_refs;
	pthread_mutex_unlock(&acl_init_lock);
	if (last)
		acl_finalize_contexts();
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclInitCallbackRegister(aclRegisterCallbackType type, aclInitCallbackFunc cbFunc,
					    void *userData)
{
	char *cfg = NULL;
	size_t len = 0;
	int ret;

	ret = acl_lcb_register(&acl_init_cbs, type, (void (*)(void))cbFunc, userData, &cfg, &len);
	/* initialised already: CANN calls it at once and ignores its answer */
	if (!ret && cfg)
		(void)cbFunc(cfg, len, userData);
	free(cfg);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclInitCallbackUnRegister(aclRegisterCallbackType type, aclInitCallbackFunc cbFunc)
{
	return acl_ret(__func__, acl_lcb_unregister(&acl_init_cbs, type, (void (*)(void))cbFunc));
}

ACL_EXPORT aclError aclFinalizeCallbackRegister(aclRegisterCallbackType type, aclFinalizeCallbackFunc cbFunc,
						void *userData)
{
	return acl_ret(__func__, acl_lcb_register(&acl_fini_cbs, type, (void (*)(void))cbFunc, userData,
						  NULL, NULL));
}

ACL_EXPORT aclError aclFinalizeCallbackUnRegister(aclRegisterCallbackType type, aclFinalizeCallbackFunc cbFunc)
{
	return acl_ret(__func__, acl_lcb_unregister(&acl_fini_cbs, type, (void (*)(void))cbFunc));
}

ACL_EXPORT aclError aclrtSetDevice(int32_t deviceId)
{
	int ret = acl_check_init();

	acl_snap_gate();
	if (!ret)
		ret = acl_set_device(deviceId);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtResetDevice(int32_t deviceId)
{
	int ret = acl_check_init();

	acl_snap_gate();
	if (!ret)
		ret = acl_reset_device(deviceId, false);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtResetDeviceForce(int32_t deviceId)
{
	int ret = acl_check_init();

	acl_snap_gate();
	if (!ret)
		ret = acl_reset_device(deviceId, true);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtCreateContext(aclrtContext *context, int32_t deviceId)
{
	struct acl_stream *fresh = NULL;
	struct acl_context *ctx;
	struct acl_device *dev;
	int ret;

	ret = acl_enter(NULL, context);
	if (!ret)
		ret = acl_dev_check_id(deviceId, "deviceId");
	if (ret)
		goto out;
	acl_snap_gate();
	acl_dev_open_begin(deviceId);
	pthread_mutex_lock(&acl_global_lock);
	ret = acl_dev_acquire_locked(deviceId, &dev);
	if (!ret) {
		ret = acl_ctx_new(dev, false, &ctx);
		if (ret) {
			acl_dev_release_locked(dev);
		} else {
			fresh = ctx->default_stream;
			acl_obj_hold(&fresh->obj);
		}
	}
	pthread_mutex_unlock(&acl_global_lock);
	acl_dev_open_end(deviceId);
	if (ret)
		goto out;
	acl_ctx_make_current(ctx);
	*context = ctx;
	acl_stream_born(fresh);
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtDestroyContext(aclrtContext context)
{
	struct acl_context *ctx;
	int ret;

	ret = acl_enter(NULL, context);
	acl_snap_gate();
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
