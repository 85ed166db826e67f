// SPDX-License-Identifier: MIT
/*
 * Device state callbacks, as CANN's DeviceStateCallbackManager
 * (src/runtime/core/src/device/device_state_callback_manager.cc): one
 * callback per name; a NULL callback unregisters the name; a name
 * registered already is refused. lifecycle.c says when a device is set up
 * or reset (lib/README.md, "Device state callbacks").
 *
 * The callbacks run from a copy of the list, outside its lock: they may
 * register and unregister (a callback unregistered meanwhile may be
 * called that once) and call any API.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <acl/acl.h>

#include "devstate.h"
#include "error.h"
#include "list.h"

struct acl_dscb {
	struct list_head node;
	aclrtDeviceStateCallback fn;
	void *args;
	char name[];
};

static pthread_mutex_t acl_dscb_lock = PTHREAD_MUTEX_INITIALIZER;
static struct list_head acl_dscbs = LIST_HEAD_INIT(acl_dscbs);	/* registration order */

static struct acl_dscb *acl_dscb_find_locked(const char *name)
{
	struct acl_dscb *cb;

	list_for_each_entry(cb, &acl_dscbs, node)
		if (!strcmp(cb->name, name))
			return cb;
	return NULL;
}

static int acl_dscb_register(const char *name, aclrtDeviceStateCallback fn, void *args)
{
	struct acl_dscb *cb, *old;
	int ret = 0;

	if (!name)
		return acl_errf(-EINVAL, "regName must not be NULL");
	if (!fn) {
		/* CANN: erases the name, registered or not */
		pthread_mutex_lock(&acl_dscb_lock);
		old = acl_dscb_find_locked(name);
		if (old)
			list_del(&old->node);
		pthread_mutex_unlock(&acl_dscb_lock);
		free(old);
		return 0;
	}
	cb = malloc(sizeof(*cb) + strlen(name) + 1);
	if (!cb)
		return acl_errf(-ENOMEM, "no memory for a device state callback");
	cb->fn = fn;
	cb->args = args;
	strcpy(cb->name, name);
	pthread_mutex_lock(&acl_dscb_lock);
	if (acl_dscb_find_locked(name))
		ret = acl_errf(ACLI_ERTPARAM, "regName \"%.64s\" is registered already: unregister it first",
			       name);
	else
		list_add_tail(&cb->node, &acl_dscbs);
	pthread_mutex_unlock(&acl_dscb_lock);
	if (ret)
		free(cb);
	return ret;
}

void acl_devstate_notify(int id, aclrtDeviceState state)
{
	struct acl_err_held held;
	struct acl_dscb *cb;
	struct {
		aclrtDeviceStateCallback fn;
		void *args;
	} *snap = NULL;
	size_t n = 0, i = 0;

	pthread_mutex_lock(&acl_dscb_lock);
	list_for_each_entry(cb, &acl_dscbs, node)
		n++;
	if (n)
		snap = calloc(n, sizeof(*snap));
	if (snap) {
		list_for_each_entry(cb, &acl_dscbs, node) {
			snap[i].fn = cb->fn;
			snap[i].args = cb->args;
			i++;
		}
	}
	pthread_mutex_unlock(&acl_dscb_lock);
	if (!snap)
		return;
	acl_err_hold(&held);
	for (i = 0; i < n; i++)
		snap[i].fn(id, state, snap[i].args);
	acl_err_resume(&held);
	free(snap);
}

void acl_devstate_atfork_child(void)
{
	/* another thread may have held it at fork time */
	pthread_mutex_init(&acl_dscb_lock, NULL);
}

ACL_EXPORT aclError aclrtRegDeviceStateCallback(const char *regName, aclrtDeviceStateCallback callback,
						void *args)
{
	return acl_ret(__func__, acl_dscb_register(regName, callback, args));
}
