/* SPDX-License-Identifier: MIT */
/*
 * Error handling.  Inside the library every function returns 0 or a
 * negative errno; conditions that have no errno get library-private
 * codes beyond the errno range.  Only the exported functions translate,
 * through acl_ret(), with the one table in error.c.
 */
#ifndef LIBACL_ERROR_H
#define LIBACL_ERROR_H

#include <acl/acl_base.h>

#define ACLI_ERR_BASE	4096

enum {
	ACLI_EREPEAT_INIT	= -(ACLI_ERR_BASE + 1),	/* aclInit twice */
	ACLI_EREPEAT_FINALIZE	= -(ACLI_ERR_BASE + 2),	/* aclFinalize twice */
	ACLI_EUNINIT		= -(ACLI_ERR_BASE + 3),	/* API before aclInit */
	ACLI_ENOCTX		= -(ACLI_ERR_BASE + 4),	/* no current device/context */
	ACLI_ENOTREG		= -(ACLI_ERR_BASE + 5),	/* host memory not registered */
	ACLI_ENOTSUPP		= -(ACLI_ERR_BASE + 6),	/* API not implemented yet */
	ACLI_EFEATURE		= -(ACLI_ERR_BASE + 7),	/* feature this driver lacks */
	ACLI_ENODEVS		= -(ACLI_ERR_BASE + 8),	/* no /dev/npuN at all */
	ACLI_EDRV		= -(ACLI_ERR_BASE + 9),	/* driver unusable (open, version) */
	ACLI_ENOPEER		= -(ACLI_ERR_BASE + 10),	/* peer access not enabled for a copy */
};

#define __acl_printf(a, b) __attribute__((format(printf, a, b)))

/* Record why the current call fails (overwriting any earlier reason); returns err. */
int acl_errf(int err, const char *fmt, ...) __acl_printf(2, 3);

/* Translate at the API boundary: err 0 -> ACL_SUCCESS, else set the message. */
aclError acl_ret(const char *api, int err);

/* Drop a reason recorded by a step whose failure was handled. */
void acl_err_clear(void);

#define ACL_EXPORT __attribute__((visibility("default")))

#endif /* LIBACL_ERROR_H */
