/* SPDX-License-Identifier: MIT */
/*
 * Streams: kernel command queues owned by a context. The library's
 * internal streams (copy.c, callbacks) belong to no context and are in
 * no handle table.
 */
#ifndef LIBACL_STREAM_H
#define LIBACL_STREAM_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <acl/acl_base.h>
#include <uapi/npu.h>

#include "exception.h"
#include "handle.h"
#include "list.h"

struct acl_device;
struct acl_context;
struct acl_cbq;

/* A wait queued on a stream: it runs after seqno @seq of kernel stream @sid. */
struct acl_stream_dep {
	uint32_t sid;
	uint64_t seq;
};

/* Waits a stream remembers, per awaited kernel stream (the oldest drop out). */
#define ACL_STREAM_DEPS		16

/* Modelled priorities: 0 is the highest (recorded, not scheduled by). */
#define ACL_STREAM_PRIO_LEAST	7

/* Information an application cached for one task (aclrtCacheLastTask*Info, task.c). */
struct acl_task_info {
	void *data;			/* malloc'ed copy, or NULL */
	size_t len;
	uint32_t task;			/* the task's id */
};

/*
 * A step a run takes on the host between the driver's models, recorded
 * after the first @at commands: an EXTERNAL event record or wait, or a
 * callback or host function (callback.c).
 */
struct acl_capture_ext {
	uint32_t at;
	bool record;
	struct acl_obj *event;		/* the struct acl_event, held; or NULL */
	struct acl_host_step *host;	/* else the callback or host function, owned */
};

/*
 * A stream that joined a capture by waiting for an event recorded in it
 * (fork); it must end with a record of an event that a stream of the
 * capture waited for, one of them the origin stream (join), as CANN's
 * CheckCaptureModelValidity wants.
 */
struct acl_capture_member {
	struct acl_stream *s;		/* held */
	struct acl_obj *last;		/* the event of its last record, held; NULL: none */
	uint64_t at;			/* s->recorded at that record: a task since clears it */
	bool waited;			/* a stream of the capture waited for that record */
	bool joined;			/* ... the origin stream did */
};

/* A label switch recorded as command @at: its targets are @list's labels' positions. */
struct acl_capture_switch {
	uint32_t at;
	struct acl_obj *list;		/* the struct acl_label_list (label.c), held */
};

/*
 * What a recording stream records (a model's, model.c): the commands of
 * the tasks launched on it, in order, where EXTERNAL event records and
 * waits go between them, and which commands are label switches;
 * stream.c appends under s->lock. A stream records while it is captured
 * (aclmdlRICaptureBegin) or bound to a model being built (@build:
 * aclmdlRIBindStream).
 */
/*
 * Task groups (model_group.c): a stream records one (SAMPLE, while it is
 * captured: aclmdlRICaptureTaskGrpBegin to End) or updates one (UPDATE,
 * a stream not captured: aclmdlRICaptureTaskUpdateBegin to End).
 */
enum acl_grp_state {
	ACL_GRP_NONE,
	ACL_GRP_SAMPLE,
	ACL_GRP_UPDATE,
};

struct acl_kcap;
struct acl_mtab;

/*
 * A task group of a capture (aclrtTaskGrp, made by GrpEnd): the kernel
 * launches recorded in it (the vendor's groups take nothing else), in
 * order; an update replaces them one by one (model_group.c). Listed in
 * its capture (@next, under model_group.c's lock) until its model is
 * destroyed.
 */
struct acl_task_grp {
	struct acl_obj obj;		/* first: the aclrtTaskGrp is the object */
	struct acl_task_grp *next;
	uint32_t ntasks;		/* constant */
	struct acl_kcap **kcs;		/* its @ntasks launches (the recording's); constant */
	/* under model_group.c's lock: */
	struct acl_mtab *tab;		/* its model's task table once the model is made, held */
	bool closed;			/* its model was destroyed */
	bool sub;			/* its model is a condition task's sub-model */
	bool updating;			/* a stream updates it (atomic) */
	uint32_t updated;		/* tasks replaced in the update under way; under the updater's lock */
};

/*
 * A kernel launch a recording holds (kernel.c): what its command's @src
 * points at (@value bytes of it, read by the driver at each MODEL_CREATE),
 * with the recording's notes. Its argument block (@k.args points at
 * @blob) is stored at each run of the model at @k.args_va, device memory
 * the recording owns (@room bytes at @room_va); so is its printf area
 * (@k.dump_va). A change of its parameters (a task group's update,
 * aclmdlRITaskSetParams: acl_kcap_set()) changes it in place, under its
 * model's task table's lock: the same launch, which its command, its
 * group and its task handle keep naming.
 */
struct acl_kcap {
	struct npu_kernel k;		/* first: the command's operand */
	struct acl_kcap *next;		/* in the recording's list */
	struct acl_obj *func;		/* the launch's function (struct acl_kfunc), held */
	uint64_t args_va;		/* the block as the kernel gets it (aclrtLaunchKernel's too) */
	uint32_t args_len;
	uint32_t room;			/* bytes of the recording's device memory at @room_va ... */
	uint64_t room_va;		/* ... for its block (0: none yet) */
	struct acl_task_grp *grp;	/* the task group it is of (set by GrpEnd), or NULL */
	void *opinfo;			/* aclmdlRITaskSetParams's opInfoPtr (a copy, malloc'ed) ... */
	size_t opinfo_len;		/* ... and opInfoSize; NULL and 0: none */
	uint8_t *blob;			/* @k.args_len bytes (malloc'ed), unless NPU_KERNEL_ARGS_DEVICE */
};

/* Free @kc (not in a recording's list): its block, its function's reference. */
void acl_kcap_free(struct acl_kcap *kc);

/*
 * kernel.c's, for a model's run: the binary of recorded launch function
 * @func (struct acl_kfunc) loaded into the device's executor of epoch
 * @epoch (acl_aicore_epoch(), looked up once for the run).
 */
int acl_kcap_ready(struct acl_obj *func, uint32_t epoch);

/* Device memory a recording owns (its kernels' argument blocks and printf areas). */
struct acl_capture_dmem {
	uint64_t va;
	uint64_t len, used;
};

struct acl_capture {
	struct npu_cmd *cmds;
	uint32_t n, cap;
	struct acl_capture_ext *ext;
	uint32_t next, ext_cap;
	struct acl_capture_switch *sw;
	uint32_t nsw, sw_cap;
	/*
	 * Host memory recorded commands point at, which the driver reads
	 * when it makes a model of them (MODEL_CREATE, again at each
	 * aclmdlRIUpdate): the recording's own copies, freed with it.
	 */
	void **owned;
	uint32_t nowned, owned_cap;
	/* kernel launches (acl_stream_capture_kernel()): the recording's, freed with it */
	struct acl_kcap *kcaps;
	struct acl_capture_dmem *dmem;
	uint32_t ndmem, dmem_cap;
	struct acl_device *dmem_dev;	/* the device of @dmem ... */
	unsigned int dmem_gen;		/* ... and its gen then (a closed device took it) */
	uint64_t serial;		/* unique in the process: labels and events name it; set at begin */
	bool build;			/* an explicit build's, not a capture; constant */
	/* a capture's, under acl_cap_lock (stream.c) while it is live: */
	struct acl_stream *origin;	/* the stream it began on (identity) */
	struct acl_capture *live_next;	/* in the live captures */
	struct acl_capture_member *members;
	uint32_t nmembers, members_cap;
	bool ended;			/* aclmdlRIEndTask: it takes no more tasks */
	bool invalid;			/* a task was refused: the capture ends with 507903 */
	/* task groups (model_group.c): */
	unsigned int grp_open;		/* streams recording a group now (atomic) */
	int grp_err;			/* a task a group refused (atomic): GrpEnd's answer from then on */
	struct acl_task_grp *grps;	/* its groups (GrpEnd's), under model_group.c's lock */
};

/*
 * A stream's kernel argument ring (kernel.c): device memory the launches'
 * argument blocks are stored in by the executor, reused in order once the
 * launch that used a range completed. The stream frees it.
 */
#define ACL_KARGS_SLOTS		256
struct acl_kargs {
	pthread_mutex_t lock;		/* protects everything below */
	struct acl_device *dev;
	unsigned int gen;		/* the device's gen @va was allocated in */
	uint64_t va;			/* ACL_KARGS_RING bytes of device memory */
	uint32_t head;			/* where the next block goes */
	uint32_t first, n;		/* the launches using it, oldest first */
	struct {
		uint32_t off, len;
		uint32_t id;		/* kernel stream and seqno of the launch */
		uint64_t seq;
	} slot[ACL_KARGS_SLOTS];
};

/*
 * What a stream's latest kernel launches were (stream.c), for the
 * exception of one that faults: its function and argument block, by the
 * kernel stream and seqno of its command. The oldest record is
 * overwritten by the newest.
 */
#define ACL_KLOG_SLOTS		256
struct acl_klog {
	pthread_mutex_t lock;		/* protects everything below; no other lock is taken under it */
	uint32_t next;			/* the slot the next launch goes to */
	struct {
		uint32_t sid;		/* kernel stream and seqno of the launch; 0 seq: unused */
		uint32_t args_len;
		uint64_t seq;
		uint32_t step;		/* a model run's: the kernel's step in it, from 1; else 0 */
		void *func;		/* its aclrtFuncHandle */
		uint64_t args_va;	/* its argument block's device address, or 0 */
	} rec[ACL_KLOG_SLOTS];
};

struct acl_stream {
	struct acl_obj obj;		/* first: the aclrtStream is the object */
	struct list_head node;		/* in ctx->streams; under ctx->lock */
	struct acl_context *ctx;	/* NULL for internal streams; constant */
	struct acl_device *dev;		/* constant */
	uint64_t serial;		/* unique in the process; constant */
	bool is_default;		/* constant */
	uint32_t flags;			/* ACL_STREAM_* as created; constant */
	uint32_t priority;		/* 0..ACL_STREAM_PRIO_LEAST (atomic: a stream attribute) */
	pthread_mutex_t lock;		/* orders submits: protects the fields below */
	uint32_t id;			/* kernel stream id (a new one after an abort); also atomic */
	bool dead;			/* being destroyed: no new callbacks, cancels are no task error */
	uint64_t last_seq;		/* seqno of the last command queued on @id */
	uint64_t task_base;		/* seqno after which task ids restart, on kernel stream ... */
	uint32_t task_base_id;		/* ... @task_base_id (aclrtPersistentTaskClean) */
	struct acl_task_info op_info;	/* aclrtCacheLastTaskOpInfo's latest */
	struct acl_task_info ext_info;	/* aclrtCacheLastTaskExtendInfo's latest */
	bool stop_on_failure;		/* ACL_STOP_ON_FAILURE set */
	bool aborting;			/* aclrtStreamAbort running */
	int fault;			/* task error seen by a query, for the next sync */
	bool exc_due;			/* @exc, seen by a poll, is due at the next sync */
	struct acl_task_fault exc;	/* that fault's exception */
	int64_t res_limit[2];		/* per-type core limit, -1 unset (atomic) */
	uint32_t overflow_switch;	/* aclrtSetStreamOverflowSwitch: 0 or 1 (atomic) */
	uint32_t user_tag;		/* ACL_STREAM_ATTR_USER_CUSTOM_TAG (atomic) */
	uint32_t cache_op_info;		/* ACL_STREAM_ATTR_CACHE_OP_INFO: 0 or 1 (atomic) */
	struct acl_cbq *cbq;		/* callbacks (callback.c), lazily */
	/* waits queued on it for other kernel streams (events): what it is ordered after */
	struct acl_stream_dep deps[ACL_STREAM_DEPS];
	unsigned int ndeps;
	void *allocator;		/* aclrtAllocatorRegister's copy (allocator.c); freed with it */
	struct acl_kargs *kargs;	/* its launches' argument ring (kernel.c), lazily; freed with it */
	struct acl_klog *klog;		/* its launches' records, lazily (set under @lock, read atomically) */
	uint64_t stop_fault;		/* STOP mode: kernel stream id << 32 | -error of its fault (atomic) */
	struct acl_capture *capture;	/* recording into it (aclmdlRICaptureBegin), else NULL */
	uint64_t recorded;		/* tasks it recorded into captures, ever */
	enum acl_grp_state grp;		/* its task group state (model_group.c) */
	struct acl_task_grp *grp_upd;	/* UPDATE: the group it updates, held */
	struct acl_kcap **grp_kcs;	/* SAMPLE: the kernel launches of the group so far */
	uint32_t grp_n, grp_cap;	/* (@grp_kcs malloc'ed, freed with the stream) */
};

/*
 * A task: the command with seqno @seq of kernel stream @sid of the stream
 * @s (an address to look up again: it may be gone) with serial @serial.
 */
struct acl_task_ref {
	struct acl_stream *s;
	uint64_t serial;
	uint32_t sid;
	uint64_t seq;
	uint32_t task;			/* its task id; UINT32_MAX: no task */
};

/*
 * aclrtCreateStreamWithConfig's stream (priority clamped, unknown flags
 * dropped) for the current context; the state callbacks are told.
 */
int acl_stream_make(aclrtStream *stream, uint32_t priority, uint32_t flag);

/* aclrtSetStreamFailureMode(@stream, @mode), untranslated. */
int acl_stream_set_failure_mode(aclrtStream stream, uint64_t mode);

/*
 * The task id of the command with seqno @seq on @s's current kernel
 * stream (s->lock held): as CANN's, per stream, counted from 0.
 */
uint32_t acl_stream_task_id(const struct acl_stream *s, uint64_t seq);

/* The last task the calling thread queued on a context's stream (task id UINT32_MAX: none). */
void acl_stream_last_task(struct acl_task_ref *out);

/* A user or default stream of @ctx: listed in it and in the handle table. */
int acl_stream_create(struct acl_context *ctx, uint32_t flags, uint32_t priority, bool is_default,
		      struct acl_stream **out);
/*
 * An internal stream of @dev: its owner's reference, freed by
 * acl_stream_free(), or by acl_stream_put() when others may hold it.
 */
int acl_stream_new(struct acl_device *dev, struct acl_stream **out);
/* Destroy an internal stream's kernel stream (after its work unless @force). */
int acl_stream_kill(struct acl_stream *s, bool force);
/* Free an internal stream's library object (its kernel stream goes with the file). */
void acl_stream_free(struct acl_stream *s);

/* Destroy a stream unlinked from its context: after its work (dropped with @force). */
int acl_stream_teardown(struct acl_stream *s, bool force);
/* After fork: free the library object only. */
void acl_stream_forget(struct acl_stream *s);

void acl_stream_put(struct acl_stream *s);

/* How a call uses the stream it resolves. */
enum {
	ACL_STREAM_USE = 0,		/* query or synchronize: any context */
	/* submit or manage: the current context's only (107003); waits while locked (snapstate.h) */
	ACL_STREAM_OWN = 1 << 0,
};

/*
 * NULL -> the current context's default stream; else a live stream
 * (107017 if not). Returns a reference (acl_stream_put).
 */
int acl_stream_resolve(aclrtStream stream, unsigned int use, struct acl_stream **out);

/* @s is of the current context: 0, 107002 without one, 107003 if of another. */
int acl_stream_current(struct acl_stream *s);

/* The kernel stream id now (it changes at an abort), without s->lock. */
uint32_t acl_stream_id(struct acl_stream *s);

/* acl_check_init(), then acl_stream_resolve(): the start of a stream call. */
int acl_stream_enter(aclrtStream stream, unsigned int use, struct acl_stream **out);

/*
 * Queue @n commands of a task a capture may record (no seqno of it is
 * used): while @s captures they are recorded in its capture instead.
 */
int acl_stream_launch(struct acl_stream *s, struct npu_cmd *cmds, uint32_t n);
/* The same, queued on kernel stream *@id with seqno *@seq; *@seq 0 when recorded. */
int acl_stream_launch_at(struct acl_stream *s, struct npu_cmd *cmds, uint32_t n, uint32_t *id, uint64_t *seq);

/*
 * The submits below queue tasks no capture records (their seqno is used,
 * or they have no model command): on a capturing stream they are refused
 * (207000) and the capture is invalidated.
 */
/* Queue @n commands; *id and *seq (optional) get the kernel id and last seqno. */
/*
 * Record that the command with seqno @seq of kernel stream @sid of @s is
 * a launch of @func with the argument block at device address @args_va
 * (@args_len bytes; 0 for none), for its exception if it faults; or,
 * with @step, that the model run it is has that launch as its step @step
 * (from 1: STREAM_SYNC's @error_step names it).
 */
void acl_stream_note_launch(struct acl_stream *s, uint32_t sid, uint64_t seq, uint32_t step, void *func,
			    uint64_t args_va, uint32_t args_len);

int acl_stream_submit_at(struct acl_stream *s, struct npu_cmd *cmds, uint32_t n, uint32_t *id,
			 uint64_t *seq);
/* Queue @n commands; *seq (optional) gets the seqno of the last one. */
int acl_stream_submit(struct acl_stream *s, struct npu_cmd *cmds, uint32_t n, uint64_t *seq);
/* The same with s->lock held, for a caller that reads s->last_seq with it. */
int acl_stream_submit_locked(struct acl_stream *s, struct npu_cmd *cmds, uint32_t n, uint64_t *seq);

/*
 * @s records into @cap from now on: 0, or ACLI_ESTREAMCAPTURED if it
 * records already (captured, or bound to a model being built).
 */
int acl_stream_capture_begin(struct acl_stream *s, struct acl_capture *cap);
/*
 * @s records no more into @cap (NULL: into a capture, not a build):
 * what it recorded into, or NULL if it did not record into that.
 */
struct acl_capture *acl_stream_capture_end(struct acl_stream *s, const struct acl_capture *cap);
/* Does @s record into @cap, its tasks ended (aclmdlRIEndTask)? */
bool acl_stream_capture_ended(struct acl_stream *s, const struct acl_capture *cap);
/*
 * The capture (aclmdlRICaptureBegin) @s records into now, NULL if none
 * (a stream bound to a model being built is not captured);
 * *@invalid (optional): invalidated.
 */
struct acl_capture *acl_stream_capture(struct acl_stream *s, bool *invalid);
/* What @s records into now, captured or bound: NULL if neither. */
struct acl_capture *acl_stream_recording(struct acl_stream *s);
/* How many tasks @s recorded so far (a capture's fork/join checks, model.c). */
uint64_t acl_stream_recorded(struct acl_stream *s);
/*
 * Where @s's recording is: its serial into *@serial and the number of
 * commands recorded so far into *@at (a label's position); else
 * ACLI_ESTREAMMODEL if @s does not record, or why it takes no more.
 */
int acl_stream_capture_mark(struct acl_stream *s, uint64_t *serial, uint32_t *at);
/*
 * Record the label switch @cmd on @s, its targets @list's labels (held
 * from now on by the recording): 0, ACLI_ESTREAMMODEL if @s does not
 * record, or the recording's failure.
 */
int acl_stream_capture_switch(struct acl_stream *s, const struct npu_cmd *cmd, struct acl_obj *list);
/*
 * A DEFAULT record of @event on @s (@ok: an event a capture takes): if @s
 * captures, the record is the capture's (*@serial its serial, nothing to
 * queue; a forked stream's last record), else *@serial 0. Refused (207000)
 * on a bound stream, and for an event the capture does not take
 * (acl_stream_plain_event()).
 */
int acl_stream_capture_fork(struct acl_stream *s, struct acl_obj *event, bool ok, uint64_t *serial);
/*
 * The vendor's refusal (ToBeCaptured, an event not of "new mode") of a
 * DEFAULT record or wait of an aclrtCreateEvent event on the capturing
 * stream @s: 207000, the capture going on, not invalidated.
 */
int acl_stream_plain_event(struct acl_stream *s);
/*
 * A wait of @s for @event, recorded last in the capture @serial: @s joins
 * it if it records nothing (107031 for a default stream, 507000 for
 * DEVICE_USE_ONLY), or is of it (107032 if of another). -ENOENT (no
 * message) when that capture is not under way.
 */
int acl_stream_capture_join(struct acl_stream *s, uint64_t serial, struct acl_obj *event);
/* Is @s the stream its capture began on (false when not capturing)? */
bool acl_stream_capture_origin(struct acl_stream *s);
/*
 * The capture @cap ends: the streams that joined it leave it; with @check,
 * whether they were joined back (0, or ACLI_ECAPUNJOINED). Once only.
 */
int acl_capture_close(struct acl_capture *cap, bool check);
/* After fork: no capture is under way in the child. */
void acl_captures_forget(void);
/* aclmdlRIEndTask: @s's recording into @cap takes no more tasks; 507000 if not @cap, or ended already. */
int acl_stream_capture_finish(struct acl_stream *s, struct acl_capture *cap);
/*
 * Task group state changes (model_group.c's), each under s->lock:
 * NONE to SAMPLE for a captured stream (ACLI_ENOTCAPTURED if it is not,
 * ACLI_ETASKGRPSTATUS if not NONE); SAMPLE to NONE, *@err the answer of
 * the group's end (a task it refused, else 507903 if the capture was
 * invalidated, else 0) and *@cap the capture the group is of (read under
 * the same lock); NONE to UPDATE of @g (held from now on, g->updating
 * set; ACLI_EHANDLE for a stream being destroyed, ACLI_ETASKGRPSTATUS if
 * @s is not NONE or @g is updated already); UPDATE to NONE, the group it
 * updated into *@g (the caller's reference; the caller clears
 * g->updating).
 */
int acl_stream_grp_begin(struct acl_stream *s);
int acl_stream_grp_end(struct acl_stream *s, int *err, struct acl_capture **cap, struct acl_kcap ***kcs,
		       uint32_t *n);
int acl_stream_grp_update(struct acl_stream *s, struct acl_task_grp *g);
int acl_stream_grp_update_end(struct acl_stream *s, struct acl_task_grp **g);
/*
 * A kernel launch on @s while it updates a task group replaces the
 * group's next task: that group (held: acl_obj_put) into *@g and the
 * task's place in it into *@idx, counted as replaced (as the vendor's
 * AllocTask counts it, whatever comes of the launch then). -ENOENT
 * (no message) if @s updates no group: the launch runs; 507000 when
 * every task of the group was replaced already; 107027 (107005) for
 * a stream captured (bound to a model being built) since UpdateBegin.
 */
int acl_stream_grp_next(struct acl_stream *s, struct acl_task_grp **g, uint32_t *idx);
/* Does @s update a task group (a kernel launch on it replaces a task)? */
bool acl_stream_grp_updating(struct acl_stream *s);

/*
 * For a task no capture records, refused before it does anything: while
 * @s captures, ACLI_ERTNOTSUPP and the capture is invalidated; else 0.
 */
int acl_stream_uncapturable(struct acl_stream *s);
/*
 * An EXTERNAL record (@record) or wait of the event @event (a struct
 * acl_event, which the capture holds from now on) in @s's capture, after
 * the commands recorded so far: 0, or the capture's failure.
 */
int acl_stream_capture_ext(struct acl_stream *s, struct acl_obj *event, bool record);
/*
 * A callback or host function @h (the recording's from now on, even on
 * failure) in what @s records, after the commands recorded so far: 0, or
 * the recording's failure.
 */
int acl_stream_capture_host(struct acl_stream *s, struct acl_host_step *h);
/* Let go of what @cap holds (its commands, its events). */
void acl_capture_free(struct acl_capture *cap);
/*
 * The host memory at @cmd->src the driver reads when it makes a model of
 * @cmd (MODEL_CREATE): its size, 0 if none (a recording owns a copy).
 */
size_t acl_cmd_host_operand(const struct npu_cmd *cmd);
/*
 * A recording's copy of a host operand is followed by this many bytes,
 * zeroed when it is recorded, that the driver never reads: the notes of
 * the code that patches the command (random.c: the parameters' nature as
 * recorded). A patch that fails leaves them as the patch made them.
 */
#define ACL_OPERAND_NOTE	8
/* Free the host memory @cap's commands point at (acl_capture_free's; after fork alone). */
void acl_capture_free_owned(struct acl_capture *cap);
/*
 * Record the kernel launch @kc (malloc'ed; the recording's from now on,
 * even on failure) in what @s records: its command, and device memory
 * the recording owns for its argument block (unless NPU_KERNEL_ARGS_DEVICE:
 * @kc->k.args_va set by the caller) and its printf area (@dump bytes, if
 * any: @kc->k.dump_va, also into *@dump_va; each run clears it first, a
 * MEMSET before the launch). @patch(@kc, @arg), if given, completes the block
 * once its address is known (placeholders). While @s records a task
 * group, the launch is the group's next task (a printing kernel is
 * refused there: 207000, nothing recorded). ACLI_ENOTCAPTURED (nothing
 * done) if @s does not record (any more); else 0 or why not.
 */
int acl_stream_capture_kernel(struct acl_stream *s, struct acl_kcap *kc, uint64_t dump, uint64_t *dump_va,
			      void (*patch)(struct acl_kcap *kc, const void *arg), const void *arg);
/*
 * A change of the recorded launch @kc of @cap (a built model's recording,
 * under its task table's lock) to @nk's parameters - its @k, @func (held),
 * @args_len and @blob (malloc'ed) or, for a block in device memory,
 * @args_va: the block goes to @kc's room of the recording's device memory
 * if it fits, else to more of it (from @dev), and @patch(@nk, @arg)
 * completes it then. Then @kc and @nk swap their parameters (@kc keeps
 * its list place, group and opInfo): @nk holds what @kc was, to let go
 * of (acl_kcap_release()) or to swap back (acl_kcap_swap(): the change
 * undone). 0, or -ENOMEM with @kc as it was.
 */
int acl_kcap_set(struct acl_capture *cap, struct acl_device *dev, struct acl_kcap *kc, struct acl_kcap *nk,
		 void (*patch)(struct acl_kcap *kc, const void *arg), const void *arg);
/* Swap the parameters of @a and @b (what acl_kcap_set() swaps). */
void acl_kcap_swap(struct acl_kcap *a, struct acl_kcap *b);
/* Let go of @kc's parameters (its function's reference, its block), not of @kc. */
void acl_kcap_release(struct acl_kcap *kc);
/* Does @cap own device memory (its kernels')? Its model's destroy waits for its runs then. */
bool acl_capture_owns_dmem(struct acl_capture *cap);
/* ACLI_ESTREAMCAPTURED, naming @what, while @s captures; else 0. */
int acl_stream_not_capturing(struct acl_stream *s, const char *what);

/* Wait for @seq (0: all queued so far) on kernel stream @id of @dev. */
int acl_stream_wait(struct acl_device *dev, uint32_t id, uint64_t seq, int32_t timeout_ms);

/*
 * Queue @n commands on the internal stream @s and wait for them, in ONE
 * system call (SUBMIT with NPU_SUBMIT_WAIT: on an idle stream the driver
 * runs them in the calling thread). Returns what acl_stream_wait() would
 * for them; *@queued false if they were refused instead (nothing queued).
 * Only for a stream no one else submits to meanwhile (the copier's, under
 * its lock): a signal is told apart by the seqno the commands get.
 */
int acl_stream_submit_wait(struct acl_stream *s, struct npu_cmd *cmds, uint32_t n, bool *queued);

/*
 * Wait for @seq on @s as the API does: a task error comes back once
 * (latched for the context in STOP mode). 0 when @id is not @s's kernel
 * stream any more (aborted since: nothing of it is left to wait for).
 */
int acl_stream_wait_seq(struct acl_stream *s, uint32_t id, uint64_t seq, int32_t timeout_ms);

/*
 * Wait until @s reached @seq of kernel stream @id: 0 (a task error is kept
 * for the next synchronize), -ETIMEDOUT, or -ENOENT when @id is gone. A
 * fault's exception callbacks are called in it: the caller holds no lock.
 */
int acl_stream_reach(struct acl_stream *s, uint32_t id, uint64_t seq, int32_t timeout_ms);
/*
 * A task error @err (ACLI_ETASKFAULT, ACLI_EMEMUCE, ACLI_ETASKTIMEOUT) of
 * work @s ran outside its kernel stream (a host step): kept for @s's next
 * synchronize, as a fault a query saw (one at a time), latched for the
 * context in STOP mode.
 */
void acl_stream_keep_fault(struct acl_stream *s, int err);
/* Has it, now? For any caller: a fault's exception waits for the next synchronize. */
bool acl_stream_reached(struct acl_stream *s, uint32_t id, uint64_t seq);

/* Wait for everything queued on @s. */
int acl_stream_sync(struct acl_stream *s, int32_t timeout_ms);

/* The kernel id and last seqno of @s, consistently. */
void acl_stream_point(struct acl_stream *s, uint32_t *id, uint64_t *seq);

/*
 * A wait for seqno @seq of kernel stream @sid (same device) was queued on
 * @s (aclrtStreamWaitEvent): later work of @s runs after it.
 */
void acl_stream_note_dep(struct acl_stream *s, uint32_t sid, uint64_t seq);
/* Is what @s queues from now on ordered after seqno @seq of kernel stream @sid? */
bool acl_stream_depends(struct acl_stream *s, uint32_t sid, uint64_t seq);

/*
 * Called with the device after aclrtSynchronizeStream(WithTimeout) or
 * aclrtSynchronizeDevice succeeded (the memory pools release what they
 * hold beyond their thresholds then); handed down by mempool.c.
 */
void acl_stream_set_sync_hook(void (*fn)(struct acl_device *dev));

/* Wait for every stream of every context of @dev (aclrtSynchronizeDevice). */
int acl_dev_sync(struct acl_device *dev);

/*
 * Call @fn on every stream of @ctx, or of every context of @dev, each
 * held meanwhile (no lock held); all are called, the first failure is
 * the answer.
 */
int acl_ctx_each_stream(struct acl_context *ctx, int (*fn)(struct acl_stream *s, void *arg), void *arg);
int acl_dev_each_stream(struct acl_device *dev, int (*fn)(struct acl_stream *s, void *arg), void *arg);

/*
 * ACLI_EDEVTASKABORT (with its reason) while an aclrtDeviceTaskAbort of
 * @dev is under way or failed (abort.c), else 0: its contexts' streams,
 * synchronous copies and memsets refuse then, as CANN's.
 */
int acl_dev_aborting(struct acl_device *dev);

/*
 * Drop what is queued on @s (aclrtStreamAbort): its kernel queue is
 * destroyed with FORCE and a fresh one takes its place.
 */
int acl_stream_abort(struct acl_stream *s);

/* CLOCK_MONOTONIC in milliseconds: the clock of the deadlines here. */
int64_t acl_now_ms(void);

/*
 * Wait until every stream of every context of @dev has done what was
 * queued on it, by @deadline (-1: none): 0 or -ETIMEDOUT. Task errors stay
 * for the streams' next synchronize (aclrtSnapShotProcessLock's wait).
 */
int acl_dev_drain_until(struct acl_device *dev, int64_t deadline);

/*
 * Value writes and waits (aclrtValueWrite, aclrtValueWait, a model task's
 * new parameters): the NPU_WAIT_* of an ACL_STREAM_WAIT_VALUE_* @flag
 * (at most ACL_STREAM_WAIT_VALUE_NOR), and back.
 */
uint32_t acl_wait_cond(uint32_t flag);
uint32_t acl_wait_flag(uint32_t cond);
/*
 * @devAddr is device memory of @dev, or with @host_ok registered host
 * memory (*@cmd_flags NPU_CMD_DST_HOST then): 0, else @err with a message.
 */
int acl_value_addr(struct acl_device *dev, void *devAddr, bool host_ok, int err, uint32_t *cmd_flags);

#endif /* LIBACL_STREAM_H */
