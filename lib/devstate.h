/* SPDX-License-Identifier: MIT */
/*
 * Device state callbacks (aclrtRegDeviceStateCallback, devstate.c): the
 * registrations, and the notification lifecycle.c sends as it sets up
 * and resets devices.
 */
#ifndef LIBACL_DEVSTATE_H
#define LIBACL_DEVSTATE_H

#include <acl/acl_rt.h>

/*
 * Call every registered callback with (@id, @state), in registration
 * order, in the calling thread, under no lock of the library. A failure
 * the caller is about to return is kept across them.
 */
void acl_devstate_notify(int id, aclrtDeviceState state);

/* After fork, in the child: the registrations stay, their lock is new. */
void acl_devstate_atfork_child(void);

#endif /* LIBACL_DEVSTATE_H */
