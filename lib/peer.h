/* SPDX-License-Identifier: MIT */
#ifndef LIBACL_PEER_H
#define LIBACL_PEER_H

struct acl_device;

/*
 * Let @dev's DMA engine reach device @peer's memory (PEER_ENABLE) and
 * note it in dev->peers: 0, -EALREADY (enabled before; noted too), or
 * the driver's error.
 */
int acl_peer_enable(struct acl_device *dev, int peer);

#endif /* LIBACL_PEER_H */
