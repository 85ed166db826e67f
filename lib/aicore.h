/* SPDX-License-Identifier: MIT */
/*
 * Each open device's AI-core executor (aicore.c): npu-aicore, started at
 * the first binary a device loads, stopped when the device closes.
 */
#ifndef LIBACL_AICORE_H
#define LIBACL_AICORE_H

#include <stdbool.h>
#include <stdint.h>

struct acl_device;

/*
 * The epoch of @dev's running executor, started if it is not running or
 * started again if it died: a binary loaded into another epoch is not in
 * it.
 */
int acl_aicore_epoch(struct acl_device *dev, uint32_t *epoch);

/*
 * Load the device binary in @fd (the executor keeps a copy of the fd) into
 * @dev's executor, starting the executor if it is not running: *@id is its
 * binary id there, in epoch *@epoch, and kernel i of a launch's token
 * (*@id << 32 | i) is the entry symbol @entries[i]. A binary loaded before
 * (id @had of epoch @had_epoch; @had -1 if never) keeps its id.
 */
int acl_aicore_load(struct acl_device *dev, int fd, const char *const *entries, uint32_t n, int32_t had,
		    uint32_t had_epoch, uint32_t *id, uint32_t *epoch);
/* Unload binary @id of @epoch: nothing if that executor is gone. */
int acl_aicore_unload(struct acl_device *dev, uint32_t id, uint32_t epoch);

/*
 * Stop @dev's executor and give back its reservations (the device
 * closes); @in_child: after fork, forget the parent's executor.
 */
void acl_aicore_stop(struct acl_device *dev, bool in_child);

#endif /* LIBACL_AICORE_H */
