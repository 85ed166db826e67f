/* SPDX-License-Identifier: MIT */
/* Notifies (notify.c), for the rest of the library. */
#ifndef LIBACL_NOTIFY_H
#define LIBACL_NOTIFY_H

/* After fork: the parent's destroyed-but-busy notifies are not the child's. */
void acl_notifies_forget(void);

#endif /* LIBACL_NOTIFY_H */
