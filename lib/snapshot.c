// SPDX-License-Identifier: MIT
/*
 * Process snapshots: aclrtSnapShotProcessLock, Backup, Restore, Unlock
 * and the stage callbacks, with CANN's rules (src/acl/aclrt_impl/
 * snapshot.cpp, src/runtime/api/api_c_snapshot.cc, ApiImpl::SnapShot* in
 * src/runtime/api/impl/api_impl.cc, the state checks of api_error.cc,
 * src/runtime/core/src/common/global_state_manager.cc,
 * src/runtime/feature/snapshot/snapshot_callback_manager.cc):
 *
 *   RUNNING --Lock--> LOCKED --Backup--> BACKED_UP --Restore--> LOCKED
 *   LOCKED or BACKED_UP --Unlock--> RUNNING
 *
 * Locking quiesces the process (snapstate.h: other threads' calls that
 * change device state wait) and waits for every stream of every open
 * device. A backup is what the devices hold that the process reaches by
 * address, the bytes of every aclrtMalloc allocation and aclrtMapMem
 * mapping, read back through the device into host memory; a restore
 * writes them back to the same allocations. lib/README.md ("Process
 * snapshots") has the rules and codes.
 *
 * Locking: acl_snap_op_lock makes the four operations one at a time (it is
 * held across their callbacks and device work; nothing they call takes
 * it) and protects the backup; acl_snap_cb_lock the registrations, held
 * across no call.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <acl/acl.h>

#include "copy.h"
#include "device.h"
#include "error.h"
#include "mm.h"
#include "query.h"
#include "snapstate.h"
#include "stream.h"

/* How long a lock waits for the devices' streams: CANN's wait for its threads. */
#define ACL_SNAP_DRAIN_MS	60000

#define ACL_SNAP_STAGES		(ACL_RT_SNAPSHOT_UNLOCK_POST + 1)

struct acl_snap_cb {
	aclrtSnapShotCallBack fn;
	void *args;
};

/* One stage's callbacks, in registration order. */
struct acl_snap_cbs {
	struct acl_snap_cb *v;
	size_t n, cap;
};

/* One span of device memory as the backup saved it. */
struct acl_snap_block {
	struct acl_device *dev;
	unsigned int gen;		/* the device's open the span belongs to */
	struct acl_mm_span span;
	void *data;			/* span.len bytes */
};

struct acl_snap_image {
	struct acl_snap_block *v;
	size_t n;
};

static pthread_mutex_t acl_snap_cb_lock = PTHREAD_MUTEX_INITIALIZER;
static struct acl_snap_cbs acl_snap_cbs[ACL_SNAP_STAGES];

static pthread_mutex_t acl_snap_op_lock = PTHREAD_MUTEX_INITIALIZER;
static struct acl_snap_image acl_snap_backup;	/* BACKED_UP: the backup; under acl_snap_op_lock */

/* the calling thread runs a snapshot callback */
static __thread bool acl_snap_in_cb;
static pthread_once_t acl_snap_once = PTHREAD_ONCE_INIT;

static const char *const acl_snap_stage_names[ACL_SNAP_STAGES] = {
	"LOCK_PRE", "BACKUP_PRE", "BACKUP_POST", "RESTORE_PRE", "RESTORE_POST", "UNLOCK_POST",
};

static const char *acl_snap_state_name(enum acl_snap_state st)
{
	return st == ACL_SNAP_RUNNING ? "running" : st == ACL_SNAP_LOCKED ? "locked" : "backed up";
}

static void acl_snap_image_free(struct acl_snap_image *img)
{
	size_t i;

	for (i = 0; i < img->n; i++)
		free(img->v[i].data);
	free(img->v);
	*img = (struct acl_snap_image){ NULL, 0 };
}

/* The child of a fork has none of the parent's devices, and only the forking thread. */
static void acl_snap_atfork_child(void)
{
	pthread_mutex_init(&acl_snap_op_lock, NULL);
	pthread_mutex_init(&acl_snap_cb_lock, NULL);
	acl_snap_image_free(&acl_snap_backup);
	acl_snap_in_cb = false;
}

static void acl_snap_once_init(void)
{
	pthread_atfork(NULL, NULL, acl_snap_atfork_child);
}

/*
 * CANN's runtime has the feature on the chips whose feature set lists
 * RT_FEATURE_DFX_PROCESS_SNAPSHOT: of the parts libacl knows, the 910B and
 * 910_93 ones (config/910_B_93/dev_info_reg.cc), architecture 2201 like
 * the simulated chip; elsewhere 207000, recorded as the last error.
 */
static int acl_snap_supported(void)
{
	int32_t arch;
	int ret;

	pthread_once(&acl_snap_once, acl_snap_once_init);
	ret = acl_soc_arch(0, &arch);
	if (!ret && arch != ACL_ARCH_910B)
		ret = acl_setlast(acl_errf(ACLI_ERTNOTSUPP, "the chip (NPU architecture %d) has no process snapshots: CANN has them on 910B-class chips",
					   arch));
	return ret;
}

/* The acl layer's checks of the four operations: this process, reserved pointer NULL. */
static int acl_snap_args(int pid, const void *reserved, const char *name)
{
	if (pid != getpid())
		return acl_errf(-EINVAL, "pid %d must be this process's (%d): snapshots of other processes are not supported",
				pid, (int)getpid());
	if (reserved)
		return acl_errf(-EINVAL, "%s is reserved and must be NULL", name);
	return 0;
}

/*
 * Call @stage's callbacks, in registration order, each for every open
 * device (CANN: callback by callback, device by device): the first that
 * returns non-zero fails the operation. From a copy of the list: a
 * callback may register and unregister.
 */
static int acl_snap_notify(aclrtSnapShotStage stage)
{
	struct acl_snap_cbs *l = &acl_snap_cbs[stage];
	struct acl_snap_cb *v = NULL;
	struct acl_err_held held;
	struct acl_device *dev;
	size_t n, i;
	uint32_t r = 0;
	int pos, id = -1;

	pthread_mutex_lock(&acl_snap_cb_lock);
	n = l->n;
	if (n) {
		v = malloc(n * sizeof(*v));
		if (v)
			memcpy(v, l->v, n * sizeof(*v));
	}
	pthread_mutex_unlock(&acl_snap_cb_lock);
	if (n && !v)
		return acl_errf(-ENOMEM, "out of host memory");
	acl_err_hold(&held);
	for (i = 0; i < n && !r; i++) {
		pos = 0;
		while (!r && (dev = acl_dev_iter(&pos))) {
			id = dev->id;
			acl_snap_in_cb = true;
			r = v[i].fn(id, v[i].args);
			acl_snap_in_cb = false;
		}
	}
	acl_err_resume(&held);
	if (r)
		acl_errf(ACLI_ESNAPCB, "the %s callback %p returned %u for device %d",
			 acl_snap_stage_names[stage], (void *)v[i - 1].fn, r, id);
	free(v);
	return r ? ACLI_ESNAPCB : 0;
}

/* Every stream of every open device done by the deadline (the lock's wait). */
static int acl_snap_drain(void)
{
	int64_t deadline = acl_now_ms() + ACL_SNAP_DRAIN_MS;
	struct acl_device *dev;
	int pos = 0, ret = 0;

	while (!ret && (dev = acl_dev_iter(&pos)))
		ret = acl_dev_drain_until(dev, deadline);
	if (ret == -ETIMEDOUT)
		return acl_errf(ACLI_ESNAPLOCKTIME, "the streams of device %d did not finish their work within %d s",
				dev->id, ACL_SNAP_DRAIN_MS / 1000);
	return ret ? acl_errf(ACLI_ESNAPLOCK, "cannot wait for the streams of device %d", dev->id) : 0;
}

/*
 * Synchronize every open device (CANN synchronizes every context before a
 * backup, and answers its errors); none open: CANN's no context (107002).
 */
static int acl_snap_sync(void)
{
	struct acl_device *dev;
	int pos = 0, ret = 0;
	bool any = false;

	while (!ret && (dev = acl_dev_iter(&pos))) {
		any = true;
		ret = acl_dev_sync(dev);
	}
	if (!ret && !any)
		ret = acl_errf(ACLI_ENOCTX, "no device is set in this process: there is nothing to back up or restore");
	return ret;
}

/* One synchronous copy of @len bytes between the device @dev and host memory. */
static int acl_snap_copy(struct acl_device *dev, void *dst, const void *src, uint64_t len, bool d2h)
{
	const struct acl_shape sh = { .dpitch = len, .spitch = len, .width = len, .height = 1 };

	return acl_copy_shape(dev, NULL, dst, src, &sh,
			      d2h ? ACL_MEMCPY_DEVICE_TO_HOST : ACL_MEMCPY_HOST_TO_DEVICE, ACL_DIR_ALL);
}

/* Can @dev's engine read and write the aclrtMapMem mapping @s (else it is left out)? */
static bool acl_snap_reachable(struct acl_device *dev, const struct acl_mm_span *s)
{
	uint64_t access = 0;

	if (!s->vmm)
		return true;
	if (acl_mm_get_access(dev, s->addr, dev->id, &access))
		acl_err_clear();
	return access == NPU_ACCESS_READWRITE;
}

/* Save @dev's spans at the end of @img. */
static int acl_snap_save_dev(struct acl_device *dev, struct acl_snap_image *img)
{
	unsigned int gen = __atomic_load_n(&dev->gen, __ATOMIC_ACQUIRE);
	struct acl_mm_span *spans;
	struct acl_snap_block *v, *b;
	size_t n, i;
	int ret;

	ret = acl_mm_spans(dev, &spans, &n);
	if (ret)
		return ret;
	v = realloc(img->v, (img->n + n + 1) * sizeof(*v));
	if (!v) {
		free(spans);
		return acl_errf(-ENOMEM, "out of host memory");
	}
	img->v = v;
	for (i = 0; i < n && !ret; i++) {
		if (!acl_snap_reachable(dev, &spans[i]))
			continue;
		b = &img->v[img->n];
		*b = (struct acl_snap_block){ .dev = dev, .gen = gen, .span = spans[i] };
		b->data = malloc(spans[i].len);
		if (!b->data) {
			ret = acl_errf(-ENOMEM, "no host memory for the %llu bytes at %#llx",
				       (unsigned long long)spans[i].len, (unsigned long long)spans[i].addr);
			break;
		}
		img->n++;
		ret = acl_snap_copy(dev, b->data, (const void *)(uintptr_t)b->span.addr, b->span.len, true);
	}
	free(spans);
	return ret;
}

/* Read every open device's memory into a new image. */
static int acl_snap_save(struct acl_snap_image *img)
{
	struct acl_device *dev;
	int pos = 0, ret = 0;

	while (!ret && (dev = acl_dev_iter(&pos))) {
		ret = acl_snap_save_dev(dev, img);
		if (ret)
			ret = acl_errf(ACLI_ESNAPBACKUP, "cannot read device %d's memory into the host (%s)",
				       dev->id, ret == -ENOMEM ? "out of host memory" : "a copy failed");
	}
	if (ret)
		acl_snap_image_free(img);
	return ret;
}

/* Is @b's span still the allocation or mapping the backup read, on the same open of its device? */
static bool acl_snap_block_live(const struct acl_snap_block *b)
{
	struct acl_mem_info mi;

	if (!acl_dev_get(b->dev->id) || __atomic_load_n(&b->dev->gen, __ATOMIC_ACQUIRE) != b->gen)
		return false;
	if (acl_mm_query(b->dev, b->span.addr, &mi)) {
		acl_err_clear();
		return false;
	}
	if (b->span.vmm)
		return mi.rkind == ACL_REGION_VMM && mi.map_base == b->span.addr && mi.map_len == b->span.len;
	return mi.rkind == ACL_REGION_MALLOC && mi.rbase == b->span.addr && mi.rlen == b->span.len;
}

/* Write @img back: all of it or, when a span is gone, nothing. */
static int acl_snap_load(const struct acl_snap_image *img)
{
	const struct acl_snap_block *b;
	struct acl_device *dev;
	size_t i;
	int pos = 0, ret = 0;

	for (i = 0; i < img->n; i++) {
		b = &img->v[i];
		if (!acl_snap_block_live(b))
			return acl_errf(ACLI_ESNAPRESTORE, "device %d's %s at %#llx+%#llx is gone since the backup (freed, or the device reset)",
					b->dev->id, b->span.vmm ? "aclrtMapMem mapping" : "aclrtMalloc memory",
					(unsigned long long)b->span.addr, (unsigned long long)b->span.len);
	}
	/* work queued since the backup lands first: the backup's bytes are the last word */
	while (!ret && (dev = acl_dev_iter(&pos)))
		ret = acl_dev_drain_until(dev, -1);
	for (i = 0; !ret && i < img->n; i++) {
		b = &img->v[i];
		ret = acl_snap_copy(b->dev, (void *)(uintptr_t)b->span.addr, b->data, b->span.len, false);
		if (ret)
			ret = acl_errf(ACLI_ESNAPRESTORE, "cannot write device %d's memory at %#llx+%#llx back",
				       b->dev->id, (unsigned long long)b->span.addr,
				       (unsigned long long)b->span.len);
	}
	return ret;
}

static int acl_snap_lock_op(void)
{
	int ret;

	ret = acl_snap_notify(ACL_RT_SNAPSHOT_LOCK_PRE);
	if (ret)
		return ret;
	/* CANN calls LOCK_PRE before it looks at the state */
	if (!acl_snap_lock())
		return acl_errf(ACLI_ESNAPLOCK, "the process is %s already: aclrtSnapShotProcessUnlock it first",
				acl_snap_state_name(acl_snap_state()));
	ret = acl_snap_drain();
	if (ret)
		acl_snap_unlock();
	return ret;
}

static int acl_snap_unlock_op(void)
{
	if (!acl_snap_unlock())
		return acl_errf(ACLI_ESNAPUNLOCK, "the process is not locked: aclrtSnapShotProcessLock it first");
	acl_snap_image_free(&acl_snap_backup);
	return acl_snap_notify(ACL_RT_SNAPSHOT_UNLOCK_POST);
}

static int acl_snap_backup_op(void)
{
	struct acl_snap_image img = { NULL, 0 };
	enum acl_snap_state st = acl_snap_state();
	int ret;

	if (st != ACL_SNAP_LOCKED)
		return acl_errf(ACLI_ESNAPBACKUP, "the process is %s: a backup needs it locked (aclrtSnapShotProcessLock)%s",
				acl_snap_state_name(st), st == ACL_SNAP_BACKED_UP ? " and not backed up yet" : "");
	ret = acl_snap_notify(ACL_RT_SNAPSHOT_BACKUP_PRE);
	if (!ret)
		ret = acl_snap_sync();
	if (!ret)
		ret = acl_snap_save(&img);
	if (!ret)
		ret = acl_snap_notify(ACL_RT_SNAPSHOT_BACKUP_POST);
	if (ret) {
		/* still LOCKED, as in CANN: no restore from it */
		acl_snap_image_free(&img);
		return ret;
	}
	acl_snap_image_free(&acl_snap_backup);
	acl_snap_backup = img;
	acl_snap_set(ACL_SNAP_BACKED_UP);
	return 0;
}

static int acl_snap_restore_op(void)
{
	enum acl_snap_state st = acl_snap_state();
	int ret, pos = 0;

	if (st != ACL_SNAP_BACKED_UP)
		return acl_errf(ACLI_ESNAPRESTORE, "the process is %s: a restore needs a backup (aclrtSnapShotProcessBackup)",
				acl_snap_state_name(st));
	ret = acl_snap_notify(ACL_RT_SNAPSHOT_RESTORE_PRE);
	if (!ret && !acl_dev_iter(&pos))
		ret = acl_errf(ACLI_ENOCTX, "no device is set in this process: there is nothing to restore");
	if (!ret)
		ret = acl_snap_load(&acl_snap_backup);
	if (!ret)
		ret = acl_snap_notify(ACL_RT_SNAPSHOT_RESTORE_POST);
	if (ret)
		return ret;	/* still BACKED_UP: the restore may be tried again */
	/* CANN: LOCKED again; a restore needs a new backup */
	acl_snap_image_free(&acl_snap_backup);
	acl_snap_set(ACL_SNAP_LOCKED);
	return 0;
}

/*
 * One of the four operations after the acl layer's checks: the chip's
 * support, then @op under the operation lock, the calling thread exempt
 * from the gate (its callbacks may call the API). From a snapshot
 * callback it would wait for itself: refused with the operation's code.
 */
static int acl_snap_run(int (*op)(void), int refused, const char *api)
{
	int ret = acl_snap_supported();

	if (ret)
		return ret;
	if (acl_snap_in_cb)
		return acl_errf(refused, "%s cannot be called from a snapshot callback", api);
	pthread_mutex_lock(&acl_snap_op_lock);
	acl_snap_exempt(true);
	ret = op();
	acl_snap_exempt(false);
	pthread_mutex_unlock(&acl_snap_op_lock);
	return ret;
}

ACL_EXPORT aclError aclrtSnapShotProcessLock(int pid, void *reserve)
{
	int ret = acl_snap_args(pid, reserve, "reserve");

	if (!ret)
		ret = acl_snap_run(acl_snap_lock_op, ACLI_ESNAPLOCK, __func__);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtSnapShotProcessUnlock(int pid, void *reserve)
{
	int ret = acl_snap_args(pid, reserve, "reserve");

	if (!ret)
		ret = acl_snap_run(acl_snap_unlock_op, ACLI_ESNAPUNLOCK, __func__);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtSnapShotProcessBackup(int pid, aclrtSnapShotBackupArgs *args)
{
	int ret = acl_snap_args(pid, args, "args");

	if (!ret)
		ret = acl_snap_run(acl_snap_backup_op, ACLI_ESNAPBACKUP, __func__);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtSnapShotProcessRestore(int pid, aclrtSnapShotRestoreArgs *args)
{
	int ret = acl_snap_args(pid, args, "args");

	if (!ret)
		ret = acl_snap_run(acl_snap_restore_op, ACLI_ESNAPRESTORE, __func__);
	return acl_ret(__func__, ret);
}

/* CANN's runtime checks of a registration: the stage, then the callback (107000). */
static int acl_snap_cb_args(aclrtSnapShotStage stage, aclrtSnapShotCallBack callback)
{
	int ret = acl_snap_supported();

	if (ret)
		return ret;
	if ((unsigned int)stage >= ACL_SNAP_STAGES)
		return acl_errf(ACLI_ERTPARAM, "stage %d is not an aclrtSnapShotStage (0..%d)", (int)stage,
				ACL_SNAP_STAGES - 1);
	if (!callback)
		return acl_errf(ACLI_ERTPARAM, "callback must not be NULL");
	return 0;
}

/* The index of @fn among @l's callbacks, or -1. Lock held. */
static long acl_snap_cb_find_locked(const struct acl_snap_cbs *l, aclrtSnapShotCallBack fn)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->v[i].fn == fn)
			return (long)i;
	return -1;
}

ACL_EXPORT aclError aclrtSnapShotCallbackRegister(aclrtSnapShotStage stage, aclrtSnapShotCallBack callback,
						  void *args)
{
	struct acl_snap_cbs *l;
	struct acl_snap_cb *v;
	int ret;

	ret = acl_snap_cb_args(stage, callback);
	if (ret)
		goto out;
	l = &acl_snap_cbs[stage];
	pthread_mutex_lock(&acl_snap_cb_lock);
	if (acl_snap_cb_find_locked(l, callback) >= 0) {
		ret = acl_errf(ACLI_ESNAPCBREG, "callback %p is registered for stage %s already",
			       (void *)callback, acl_snap_stage_names[stage]);
	} else if (l->n == l->cap) {
		v = realloc(l->v, (l->cap ? 2 * l->cap : 4) * sizeof(*v));
		if (v) {
			l->v = v;
			l->cap = l->cap ? 2 * l->cap : 4;
		} else {
			ret = acl_errf(-ENOMEM, "out of host memory");
		}
	}
	if (!ret)
		l->v[l->n++] = (struct acl_snap_cb){ callback, args };
	pthread_mutex_unlock(&acl_snap_cb_lock);
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtSnapShotCallbackUnregister(aclrtSnapShotStage stage, aclrtSnapShotCallBack callback)
{
	struct acl_snap_cbs *l;
	long i;
	int ret;

	ret = acl_snap_cb_args(stage, callback);
	if (ret)
		goto out;
	l = &acl_snap_cbs[stage];
	pthread_mutex_lock(&acl_snap_cb_lock);
	i = acl_snap_cb_find_locked(l, callback);
	if (i < 0) {
		ret = acl_errf(ACLI_ERTPARAM, "callback %p is not registered for stage %s", (void *)callback,
			       acl_snap_stage_names[stage]);
	} else {
		memmove(&l->v[i], &l->v[i + 1], (l->n - (size_t)i - 1) * sizeof(*l->v));
		l->n--;
	}
	pthread_mutex_unlock(&acl_snap_cb_lock);
out:
	return acl_ret(__func__, ret);
}
