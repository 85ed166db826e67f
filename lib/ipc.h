/* SPDX-License-Identifier: MIT */
/*
 * IPC keys: the driver's 64-bit name of an IPC_EXPORT together with the
 * device of the memory, spelled "npu<N>-<kind>-<16 hex digits>" (a notify
 * key also carries the exporter's notify id after its kind). A key of
 * one kind, IPC memory (ipc.c) or IPC notifies (notify.c), is refused
 * where the other is expected; the driver's names are one space, so a
 * hand-made key of the other spelling reaches the same object. IPC
 * events (ipcevent.c) carry their driver name in a binary handle; the
 * "event" spelling only names it in messages.
 */
#ifndef LIBACL_IPC_H
#define LIBACL_IPC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <acl/acl.h>
#include <uapi/npu.h>

struct acl_device;

#define ACL_IPC_KEY_MAX		64	/* characters; CANN's buffer holds 65 bytes */
#define ACL_IPC_KIND_MEM	"ipc"
#define ACL_IPC_KIND_NOTIFY	"notify"
#define ACL_IPC_KIND_EVENT	"event"	/* only spelled in messages: an event's handle is binary */

/*
 * Spell @kind's key of @name on @dev into @key (@len bytes), with *@tag
 * after the kind if @tag ("npu<N>-<kind><tag>-<hex>"): 107000 if it does
 * not fit. A NULL @key only checks that every name would fit.
 */
int acl_ipc_key_make(char *key, size_t len, const char *kind, const uint32_t *tag, struct acl_device *dev,
		     uint64_t name);

/*
 * The device (open in this process), the tag (if @tag) and the driver
 * name of @key, a key of @kind.
 */
int acl_ipc_key_dev(const char *key, const char *kind, uint32_t *tag, struct acl_device **devp, __u64 *name);

/*
 * As acl_ipc_key_dev(), for an import: a device no context of this
 * process is on is opened (CANN imports on the current device; ours maps
 * the memory in its own device's driver context), held (acl_dev_hold())
 * until aclFinalize; a device without a node is an unknown key
 * (RT_NO_PERMISSION).
 */
int acl_ipc_key_dev_import(const char *key, const char *kind, uint32_t *tag, struct acl_device **devp,
			   __u64 *name);

/*
 * Import @key (driver name @name, a key of @kind) on its device @dev and
 * map it there (an ACL_REGION_IPC region) at *@va; with @peer, also
 * enable peer access both ways between @cur and @dev. The driver's
 * refusals come back said for @kind.
 */
int acl_ipc_import(struct acl_device *cur, struct acl_device *dev, const char *key, uint64_t name,
		   const char *kind, bool peer, uint64_t *va);

/*
 * A page-aligned block of @len bytes of @dev's memory (zeroed by the
 * driver, an ACL_REGION_MALLOC region), named by an IPC key that any
 * process of the exporter's user may import when @any, else the listed
 * ones: its address *@va and the driver's name *@name. @full is the code
 * when the process holds the driver's max_ipc_keys already. Freeing the
 * block revokes the key.
 */
int acl_ipc_page_export(struct acl_device *dev, uint64_t len, bool any, int full, uint64_t *va, uint64_t *name);

/* IPC_SET_PIDS of @name on @dev; @what names the key in messages. */
int acl_ipc_set_pids_on(struct acl_device *dev, uint64_t name, const char *what, int32_t *pid, size_t num);

/*
 * Whitelist the pids of @num super-pod entries (aclrtServerPid), in
 * order, as CANN's driver takes them: each checked (a pid array of 1 to
 * @most pids; @bad, when not NULL, fails every entry with that reason),
 * then handed to @set with @arg; the first failure stops the walk (the
 * entries before it stay listed). @local names the call for this
 * server's pids, for the message of a chip without super pods.
 */
int acl_ipc_pod_pids(const aclrtServerPid *serverPids, size_t num, int32_t most, const char *bad,
		     const char *local, int (*set)(void *arg, int32_t *pid, size_t n), void *arg);

#endif /* LIBACL_IPC_H */
