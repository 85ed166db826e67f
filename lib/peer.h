/* SPDX-License-Identifier: MIT */
#ifndef LIBACL_PEER_H
#define LIBACL_PEER_H

#include <stddef.h>
#include <stdint.h>

struct acl_device;

/*
 * A pid list as the share and IPC calls take it: 1..NPU_SHARE_MAX_PIDS
 * entries (@what names the count), each > 0; else @err with a reason.
 */
int acl_pid_list_check(const int32_t *pid, size_t n, const char *what, int err);

/*
 * Let @dev's DMA engine reach device @peer's memory (PEER_ENABLE) and
 * note it in dev->peers: 0, -EALREADY (enabled before; noted too), or
 * the driver's error.
 */
int acl_peer_enable(struct acl_device *dev, int peer);

#endif /* LIBACL_PEER_H */
