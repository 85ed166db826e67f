// SPDX-License-Identifier: MIT
/*
 * The handle table: a hash of object addresses under one reader-writer
 * lock. Lookups (every call that takes a handle) share the lock; only
 * creating and destroying objects write.
 */
#include <pthread.h>
#include <stdint.h>

#include "handle.h"

#define ACL_OBJ_BUCKETS	1024

static pthread_rwlock_t acl_obj_lock = PTHREAD_RWLOCK_INITIALIZER;
static struct acl_obj *acl_obj_hash[ACL_OBJ_BUCKETS];	/* under acl_obj_lock */

static struct acl_obj **acl_obj_bucket(const void *p)
{
	uintptr_t h = (uintptr_t)p;

	h ^= h >> 17;
	h *= 0xed5ad4bbU;
	h ^= h >> 11;
	return &acl_obj_hash[h % ACL_OBJ_BUCKETS];
}

void acl_obj_add_key(struct acl_obj *obj, const void *key, enum acl_obj_type type,
		     void (*release)(struct acl_obj *))
{
	struct acl_obj **b = acl_obj_bucket(key);

	obj->key = key;
	obj->type = type;
	obj->refs = 1;
	obj->release = release;
	pthread_rwlock_wrlock(&acl_obj_lock);
	obj->hnext = *b;
	*b = obj;
	pthread_rwlock_unlock(&acl_obj_lock);
}

void acl_obj_add(struct acl_obj *obj, enum acl_obj_type type, void (*release)(struct acl_obj *))
{
	acl_obj_add_key(obj, obj, type, release);
}

struct acl_obj *acl_obj_get(const void *p, enum acl_obj_type type)
{
	struct acl_obj *o;

	if (!p)
		return NULL;
	pthread_rwlock_rdlock(&acl_obj_lock);
	for (o = *acl_obj_bucket(p); o; o = o->hnext) {
		if (o->key == p) {
			if (o->type == type)
				__atomic_add_fetch(&o->refs, 1, __ATOMIC_RELAXED);
			else
				o = NULL;
			break;
		}
	}
	pthread_rwlock_unlock(&acl_obj_lock);
	return o;
}

void acl_obj_hold(struct acl_obj *obj)
{
	__atomic_add_fetch(&obj->refs, 1, __ATOMIC_RELAXED);
}

void acl_obj_put(struct acl_obj *obj)
{
	if (obj && !__atomic_sub_fetch(&obj->refs, 1, __ATOMIC_ACQ_REL))
		obj->release(obj);
}

bool acl_obj_del(struct acl_obj *obj)
{
	struct acl_obj **pp;
	bool found = false;

	pthread_rwlock_wrlock(&acl_obj_lock);
	for (pp = acl_obj_bucket(obj->key); *pp; pp = &(*pp)->hnext) {
		if (*pp == obj) {
			*pp = obj->hnext;
			found = true;
			break;
		}
	}
	pthread_rwlock_unlock(&acl_obj_lock);
	return found;
}

void acl_objs_forget(void)
{
	unsigned int i;

	pthread_rwlock_init(&acl_obj_lock, NULL);
	for (i = 0; i < ACL_OBJ_BUCKETS; i++)
		acl_obj_hash[i] = NULL;
}
