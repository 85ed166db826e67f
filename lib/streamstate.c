// SPDX-License-Identifier: MIT
/*
 * Stream state callbacks, as CANN's StreamStateCallbackManager: a
 * process-wide registry keyed by name, kept across aclFinalize. A stream
 * of a context is announced once made (CREATE_POST: aclrtCreateStream*,
 * and each context's default stream when the context is made) and before
 * it goes (DESTROY_PRE: aclrtDestroyStream*, and every stream of a
 * context being destroyed). The library's internal streams are not
 * announced.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <acl/acl.h>

#include "error.h"
#include "streamstate.h"

struct acl_ssc {
	struct acl_ssc *next;		/* sorted by name, as CANN's std::map */
	aclrtStreamStateCallback fn;
	void *args;
	char name[];
};

static pthread_mutex_t acl_ssc_lock = PTHREAD_MUTEX_INITIALIZER;
static struct acl_ssc *acl_sscs;	/* under acl_ssc_lock */

void acl_stream_state_notify(struct acl_stream *s, aclrtStreamState state)
{
	struct { aclrtStreamStateCallback fn; void *args; } *v;
	struct acl_ssc *c;
	size_t n = 0, i;

	/* a copy, called without the lock: callbacks may register */
	pthread_mutex_lock(&acl_ssc_lock);
	for (c = acl_sscs; c; c = c->next)
		n++;
	v = n ? malloc(n * sizeof(*v)) : NULL;
	for (c = acl_sscs, i = 0; v && c; c = c->next, i++) {
		v[i].fn = c->fn;
		v[i].args = c->args;
	}
	pthread_mutex_unlock(&acl_ssc_lock);
	for (i = 0; v && i < n; i++)
		v[i].fn(s, state, v[i].args);
	free(v);
}

void acl_stream_state_forget(void)
{
	pthread_mutex_init(&acl_ssc_lock, NULL);
}

ACL_EXPORT aclError aclrtRegStreamStateCallback(const char *regName, aclrtStreamStateCallback callback,
						void *args)
{
	struct acl_ssc **pp, *c;
	int ret = 0, cmp = 1;

	if (!regName)
		return acl_ret(__func__, acl_errf(-EINVAL, "regName must not be NULL"));
	pthread_mutex_lock(&acl_ssc_lock);
	for (pp = &acl_sscs; *pp && (cmp = strcmp((*pp)->name, regName)) < 0; pp = &(*pp)->next)
		;
	if (!callback) {
		/* CANN: a NULL callback unregisters the name, registered or not */
		if (*pp && !cmp) {
			c = *pp;
			*pp = c->next;
			free(c);
		}
	} else if (*pp && !cmp) {
		ret = acl_errf(ACLI_ERTPARAM, "a stream state callback named \"%s\" is registered already", regName);
	} else {
		c = malloc(sizeof(*c) + strlen(regName) + 1);
		if (c) {
			c->fn = callback;
			c->args = args;
			strcpy(c->name, regName);
			c->next = *pp;
			*pp = c;
		} else {
			ret = acl_errf(-ENOMEM, "out of host memory");
		}
	}
	pthread_mutex_unlock(&acl_ssc_lock);
	return acl_ret(__func__, ret);
}
