/* SPDX-License-Identifier: MIT */
#ifndef LIBACL_PEER_H
#define LIBACL_PEER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct acl_device;

/*
 * A pid list as the share and IPC calls take it: 1..NPU_SHARE_MAX_PIDS
 * entries (@what names the count), each > 0 (or 0 too, with @zeros);
 * else @err with a reason.
 */
int acl_pid_list_check(const int32_t *pid, size_t n, const char *what, int err, bool zeros);

/*
 * Let @dev's DMA engine reach device @peer's memory: one reference more;
 * the first asks the driver (PEER_ENABLE) and notes it in dev->peers.
 * 0 or the driver's error, with a reason.
 */
int acl_peer_enable(struct acl_device *dev, int peer);
/*
 * One reference less; the last withdraws it (PEER_DISABLE, dev->peers).
 * None: -EINVAL with a reason.
 */
int acl_peer_disable(struct acl_device *dev, int peer);
/* @a and @b reach each other's memory: a reference each way, or none. */
int acl_peer_enable_pair(struct acl_device *a, struct acl_device *b);

/* @dev's DMA engine reaches @peer's memory (peer access enabled). */
bool acl_peer_enabled(struct acl_device *dev, struct acl_device *peer);
/* The error of a command of @e that needs peer access to @peer it lacks. */
int acl_no_peer(struct acl_device *e, struct acl_device *peer);

#endif /* LIBACL_PEER_H */
