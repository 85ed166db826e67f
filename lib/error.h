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
	/* runtime-layer answers of the aclrt runtime spec (aclrt-api-runtime.md) */
	ACLI_ERTPARAM		= -(ACLI_ERR_BASE + 11),	/* bad value, runtime layer: 107000 */
	ACLI_EHANDLE		= -(ACLI_ERR_BASE + 12),	/* not a live object of that type: 107017 */
	ACLI_ESTREAMCTX		= -(ACLI_ERR_BASE + 13),	/* stream of another context: 107003 */
	ACLI_ESTREAMSUB		= -(ACLI_ERR_BASE + 14),	/* stream (not) subscribed: 107011 */
	ACLI_ETHREADSUB		= -(ACLI_ERR_BASE + 15),	/* thread (not) subscribed: 107012 */
	ACLI_ENOCBREG		= -(ACLI_ERR_BASE + 16),	/* callback on unsubscribed stream: 107015 */
	ACLI_ECTXRELEASE	= -(ACLI_ERR_BASE + 17),	/* context released / not held: 507007 */
	ACLI_EREPORTTIMEOUT	= -(ACLI_ERR_BASE + 18),	/* aclrtProcessReport: nothing came: 507012 */
	ACLI_EEVENTTIMEOUT	= -(ACLI_ERR_BASE + 19),	/* event sync timed out: 507047 */
	ACLI_ETIMESTAMP		= -(ACLI_ERR_BASE + 20),	/* event has no timestamp (yet): 107006 */
	ACLI_EINTERNAL		= -(ACLI_ERR_BASE + 21),	/* runtime state error: 507000 */
	ACLI_ESTREAMABORT	= -(ACLI_ERR_BASE + 22),	/* stream is being aborted: 107023 */
	ACLI_EWAITTIMEOUT	= -(ACLI_ERR_BASE + 23),	/* internal wait timed out: 107019 */
	ACLI_ETASKTIMEOUT	= -(ACLI_ERR_BASE + 24),	/* device task timed out: 107020 */
	ACLI_EDEVSETUP		= -(ACLI_ERR_BASE + 25),	/* device not opened by the process: 507033 */
	ACLI_ENOSTREAMRES	= -(ACLI_ERR_BASE + 26),	/* no stream id left: 207008 */
	ACLI_ENOEVENTRES	= -(ACLI_ERR_BASE + 27),	/* no event id left: 207007 */
	ACLI_ENONOTIFYRES	= -(ACLI_ERR_BASE + 28),	/* no notify id left: 207009 */
	ACLI_ERTNOTSUPP		= -(ACLI_ERR_BASE + 29),	/* the chip cannot do it: 207000 */
	ACLI_EFILE		= -(ACLI_ERR_BASE + 30),	/* version file missing: 100003 */
	ACLI_ETASKFAULT		= -(ACLI_ERR_BASE + 31),	/* a task of the stream failed (DMA fault) */
	ACLI_EVERSION		= -(ACLI_ERR_BASE + 32),	/* version string not understood: 500000 */
	ACLI_ENOPERM		= -(ACLI_ERR_BASE + 33),	/* the driver refused (IPC key): 207006 */
	ACLI_ENOTSET		= -(ACLI_ERR_BASE + 34),	/* context option never set: 107021 */
	ACLI_EDUMPNOTRUN	= -(ACLI_ERR_BASE + 35),	/* dump not initialised: 100045 */
	ACLI_EPARSEFILE		= -(ACLI_ERR_BASE + 36),	/* config file nested too deep: 100006 */
	ACLI_EDUMPCFG		= -(ACLI_ERR_BASE + 37),	/* dump config not accepted: 100009 */
	ACLI_ENOTCAPTURED	= -(ACLI_ERR_BASE + 38),	/* stream not being captured: 107029 */
	ACLI_ESTATE		= -(ACLI_ERR_BASE + 39),	/* acl-layer state (callback registry): 500000 */
	ACLI_EUSER		= -(ACLI_ERR_BASE + 40),	/* an application callback's code: acl_user_err() */
	ACLI_EOVERLIMIT		= -(ACLI_ERR_BASE + 41),	/* a driver limit (mbuf chain length): 207012 */
	ACLI_EDRVERR		= -(ACLI_ERR_BASE + 42),	/* the driver's internal error: 507899 */
	ACLI_EFAILURE		= -(ACLI_ERR_BASE + 43),	/* an acl-layer step failed: 500001 */
	ACLI_ELINKTYPE		= -(ACLI_ERR_BASE + 44),	/* a link the devices do not have: 207021 */
	ACLI_EEXCINFO		= -(ACLI_ERR_BASE + 45),	/* not that kind of exception info: 0xFFFFFFFF */
	ACLI_EDEVTASKABORT	= -(ACLI_ERR_BASE + 46),	/* the device's tasks are being aborted: 107022 */
	ACLI_EMEMUCE		= -(ACLI_ERR_BASE + 47),	/* a task hit a bad device page: 507053 */
	/* process snapshots (snapshot.c) */
	ACLI_ESNAPLOCKTIME	= -(ACLI_ERR_BASE + 48),	/* work did not drain in time: 507905 */
	ACLI_ESNAPLOCK		= -(ACLI_ERR_BASE + 49),	/* lock refused (not running): 507906 */
	ACLI_ESNAPUNLOCK	= -(ACLI_ERR_BASE + 50),	/* unlock refused (not locked): 507907 */
	ACLI_ESNAPBACKUP	= -(ACLI_ERR_BASE + 51),	/* backup refused or failed: 507908 */
	ACLI_ESNAPRESTORE	= -(ACLI_ERR_BASE + 52),	/* restore refused or failed: 507909 */
	ACLI_ESNAPCB		= -(ACLI_ERR_BASE + 53),	/* a snapshot callback failed: 507912 */
	ACLI_ESNAPCBREG		= -(ACLI_ERR_BASE + 54),	/* callback registered already: 507913 */
	ACLI_ESTREAMMODEL	= -(ACLI_ERR_BASE + 55),	/* barrier id no CMO task carried: 107005 */
	ACLI_ERESALLOC		= -(ACLI_ERR_BASE + 56),	/* no device id of that kind left: 207005 */
	ACLI_EUNALIGNED		= -(ACLI_ERR_BASE + 57),	/* an address not aligned as needed: 107008 */
	/* model runtime instances and stream capture (model.c) */
	ACLI_ESTREAMCAPTURED	= -(ACLI_ERR_BASE + 58),	/* not on a capturing stream: 107027 */
	ACLI_ECAPMODE		= -(ACLI_ERR_BASE + 59),	/* a capture mode forbids the call: 107030 */
	ACLI_ECAPBLOCK		= -(ACLI_ERR_BASE + 60),	/* ... an async call made synchronous: 107041 */
	ACLI_EMODELCAPTURED	= -(ACLI_ERR_BASE + 61),	/* the model is still capturing: 107026 */
	ACLI_EMODELCTX		= -(ACLI_ERR_BASE + 62),	/* model of another context: 107004 */
	ACLI_ECAPTHREAD		= -(ACLI_ERR_BASE + 63),	/* capture ended by another thread: 107038 */
	ACLI_ECAPINVALID	= -(ACLI_ERR_BASE + 64),	/* the capture was invalidated: 507903 */
	ACLI_EMODELEXEC		= -(ACLI_ERR_BASE + 65),	/* the model cannot run: 507011 */
	ACLI_ENOMODELRES	= -(ACLI_ERR_BASE + 66),	/* no model id left: 207010 */
	ACLI_ELABELCTX		= -(ACLI_ERR_BASE + 67),	/* label of another context: 507031 */
	ACLI_ECAPDEP		= -(ACLI_ERR_BASE + 68),	/* a captured wait for uncaptured work: 107024 */
	ACLI_ECAPUNJOINED	= -(ACLI_ERR_BASE + 69),	/* a forked stream not joined back: 107025 */
	ACLI_ECAPIMPLICIT	= -(ACLI_ERR_BASE + 70),	/* the default stream joins a capture: 107031 */
	ACLI_ECAPCONFLICT	= -(ACLI_ERR_BASE + 71),	/* a stream of another capture: 107032 */
	ACLI_ECAPUNMATCHED	= -(ACLI_ERR_BASE + 72),	/* capture not begun on this stream: 107036 */
	/* a model's tasks (model_task.c) */
	ACLI_EARRAYSHORT	= -(ACLI_ERR_BASE + 73),	/* an output array too short: 107039 */
	ACLI_EMODELUPDATE	= -(ACLI_ERR_BASE + 74),	/* the model cannot be updated now: 107040 */
	ACLI_EMODELRUNNING	= -(ACLI_ERR_BASE + 75),	/* the model's run is not done: 107037 */
	/* task groups (model_group.c) */
	ACLI_ETASKGRPSTATUS	= -(ACLI_ERR_BASE + 76),	/* a stream's task group state: 107033 */
	ACLI_ETASKGRPINTR	= -(ACLI_ERR_BASE + 77),	/* a task interrupted an open group: 107034 */
	ACLI_ETASKTYPE		= -(ACLI_ERR_BASE + 78),	/* a task kind a group cannot take: 507009 */
	/* compute groups (group.c) */
	ACLI_EGROUPNOTCREATE	= -(ACLI_ERR_BASE + 79),	/* no such group on the device: 107014 */
	/* device binaries and kernel functions (binary.c, function.c) */
	ACLI_ESYMBOL		= -(ACLI_ERR_BASE + 80),	/* no such global in a binary: 107042 */
	ACLI_EDEVFUNC		= -(ACLI_ERR_BASE + 81),	/* no kernel for a symbol: 107044 */
	/* kernels (kernel.c) */
	ACLI_EAICORE		= -(ACLI_ERR_BASE + 82),	/* a kernel faulted on an AI core: 507015 */
	ACLI_EAICORETRAP	= -(ACLI_ERR_BASE + 83),	/* a kernel trapped: 507016 */
};

#define __acl_printf(a, b) __attribute__((format(printf, a, b)))

/* Record why the current call fails (overwriting any earlier reason); returns err. */
int acl_errf(int err, const char *fmt, ...) __acl_printf(2, 3);

/*
 * Translate at the API boundary: err >= 0 -> ACL_SUCCESS; a failure adds
 * "api: reason" to the thread's messages and, if it is the runtime's (a
 * 107xxx, 207xxx or 507xxx code; 207000 only with acl_setlast()) and its
 * site did not say acl_nolast(), becomes the thread's last error.
 */
aclError acl_ret(const char *api, int err);

/*
 * Mark the failure being returned, @err, as one CANN does not record as
 * the thread's last error (its acl layer answered with a runtime code, or
 * its runtime returned with COND_RETURN_WITH_NOLOG); returns @err.
 */
int acl_nolast(int err);

/*
 * The failure of an application's callback that an acl-layer call passes
 * on (aclInit's and aclFinalize's): acl_ret() answers @code itself, never
 * as the last error. Returns ACLI_EUSER, for acl_errf().
 */
int acl_user_err(aclError code);

/* Mark an ACL_ERROR_RT_FEATURE_NOT_SUPPORT that CANN records; returns @err. */
int acl_setlast(int err);

/*
 * Translate a result the spec calls quiet (107002 of aclrtGetCurrentContext,
 * "not ready" states): no message, the last error untouched.
 */
aclError acl_ret_quiet(const char *api, int err);

/* Drop a reason recorded by a step whose failure was handled. */
void acl_err_clear(void);

/*
 * The failure a call is about to return (its reason and last-error rule),
 * put aside while application callbacks run, whose API calls would clear
 * it: acl_err_hold() before them, acl_err_resume() after.
 */
struct acl_err_held {
	char detail[512];
	int rule;
};
void acl_err_hold(struct acl_err_held *h);
void acl_err_resume(const struct acl_err_held *h);

#define ACL_EXPORT __attribute__((visibility("default")))

#endif /* LIBACL_ERROR_H */
