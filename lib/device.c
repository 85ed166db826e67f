// SPDX-License-Identifier: MIT
/*
 * The device table and the initialisation state: the bottom of the
 * library (device.h). Opening and closing devices is lifecycle.c's.
 *
 * Locking: acl_global_lock serialises init, finalize and the opening and
 * closing of devices; each device's own lock protects its lists.  API
 * calls on an open device take no global lock.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <acl/acl.h>

#include "acl_ioctl.h"
#include "device.h"
#include "error.h"

pthread_mutex_t acl_global_lock = PTHREAD_MUTEX_INITIALIZER;
static int acl_state;		/* ACL_STATE_*; written under acl_global_lock */

static struct acl_device acl_devices[ACL_MAX_DEVICES] = {
	[0 ... ACL_MAX_DEVICES - 1] = {
		.lock = PTHREAD_MUTEX_INITIALIZER,
		.fd = -1,
	},
};

void acl_devs_init(void)
{
	int i;

	for (i = 0; i < ACL_MAX_DEVICES; i++) {
		acl_devices[i].id = i;
		list_init(&acl_devices[i].contexts);
	}
}

int acl_init_state(void)
{
	return acl_state;
}

void acl_init_state_set(int state)
{
	__atomic_store_n(&acl_state, state, __ATOMIC_RELEASE);
}

int acl_check_init(void)
{
	if (__atomic_load_n(&acl_state, __ATOMIC_ACQUIRE) != ACL_STATE_INIT)
		return acl_errf(ACLI_EUNINIT, "aclInit has not been called (or aclFinalize has)");
	return 0;
}

struct acl_device *acl_dev_slot(int id)
{
	return &acl_devices[id];
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

/* lifecycle.c's open and close of a device for a holder (set once, before any API call) */
int acl_dev_aperture_open(struct acl_device *dev, bool executor, int *fd)
{
	struct npu_aperture_open ap = {
		.size = sizeof(ap),
		.flags = NPU_APERTURE_CLOEXEC | (executor ? NPU_APERTURE_EXECUTOR : 0),
		.fd = -1,
	};
	int ret;

	ret = acl_ioctl(dev->fd, NPU_IOCTL_APERTURE_OPEN, &ap);
	if (!ret)
		*fd = ap.fd;
	return ret;
}

static int (*acl_dev_holder)(int id, struct acl_device **devp);
static void (*acl_dev_unholder)(struct acl_device *dev);

void acl_dev_set_holder(int (*hold)(int id, struct acl_device **devp), void (*unhold)(struct acl_device *dev))
{
	acl_dev_holder = hold;
	acl_dev_unholder = unhold;
}

int acl_dev_hold(int id, struct acl_device **devp)
{
	int ret = acl_dev_check_range(id, "deviceId");

	return ret ? ret : acl_dev_holder(id, devp);
}

void acl_dev_unhold(struct acl_device *dev)
{
	acl_dev_unholder(dev);
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
