// SPDX-License-Identifier: MIT
/*
 * libacl: IPC events (aclrtCreateEventExWithFlag(ACL_EVENT_IPC),
 * aclrtIpcGetEventHandle, aclrtIpcOpenEventHandle). The test process
 * creates and exports; forked children start libacl afresh and open the
 * handle, as the vendor's ipcevent/0_ipcevent and 1_ipcevent_multi_device
 * do with two programs. Every check of a child ends it with a non-zero
 * exit status. Skips without /dev/npu0 (the multi-device cases without
 * /dev/npu1).
 */
#include <fcntl.h>
#include <signal.h>

/* aclrtQueryEvent is deprecated, and its refusal tested all the same */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

#include "lib_child.h"
#include "lib_util.h"

/* What a child is told to do next (over its pipe). */
enum {
	GO_END,
	GO_RECORD,		/* record on its stream, synchronize the event */
	GO_WAIT,		/* wait on its stream, which then completes */
	GO_WAIT_BLOCKED,	/* wait on its stream: the wait must hold */
	GO_WAIT_DONE,		/* the held wait passes now */
	GO_QUERY,		/* answer the event's status */
	GO_DESTROY,		/* destroy the event */
	GO_GATED_RECORD,	/* queue a record behind a gate of its own, closed */
	GO_OPEN_GATE,		/* open that gate; the record runs */
};

/* The child's side of a test: what it opens and on which device. */
struct opener {
	aclrtIpcEventHandle h;
	int dev;		/* its only device */
	int want;		/* what the open answers */
};

/* npu fdinfo value @key of this process's file of /dev/npu@dev; -1 if none. */
static long long fdinfo_of(int dev, const char *key)
{
	char node[32];

	snprintf(node, sizeof(node), "/dev/npu%d", dev);
	return npu_proc_fdinfo(node, key);
}

static bool dev_open(int dev)
{
	char node[32];

	snprintf(node, sizeof(node), "/dev/npu%d", dev);
	return npu_proc_dev_fd(node, -1) >= 0;
}

/* In a child: @e's status is @want. */
static void status_is(aclrtEvent e, aclrtEventRecordedStatus want)
{
	aclrtEventRecordedStatus st = (aclrtEventRecordedStatus)7;

	CK_ACL(ACL_SUCCESS, aclrtQueryEventStatus(e, &st));
	CK(st == want);
}

/*
 * A child opener: libacl afresh on its device, the handle opened (as
 * o.want says), then what the test says, each step answered with 1 (a
 * query with the status). The 1_ipcevent_multi_device consumer sets only
 * its own device: the creator's is opened for the event and closed with it.
 */
static void opener(int rd, int wr, void *arg)
{
	aclrtEventRecordedStatus st;
	aclrtEvent e = NULL, e2 = NULL;
	uint64_t *gate = NULL, one = 1;
	aclrtStream s;
	struct opener o;
	int32_t cur = -1;
	uint64_t go;
	aclError r;

	(void)arg;
	CK(read(rd, &o, sizeof(o)) == sizeof(o));
	/* the test's libacl came along with the fork: set afresh all the same */
	r = aclInit(NULL);
	CK(r == ACL_SUCCESS || r == ACL_ERROR_REPEAT_INITIALIZE);
	CK_ACL(ACL_SUCCESS, aclrtSetDevice(o.dev));
	CK_ACL(ACL_SUCCESS, aclrtCreateStream(&s));
	CK_ACL(o.want, aclrtIpcOpenEventHandle(o.h, &e));
	if (o.want != ACL_SUCCESS) {
		CK(!e);
		put_u64(wr, 1);
		return;
	}
	CK(e);
	CK_ACL(ACL_SUCCESS, aclrtGetDevice(&cur));
	CK(cur == o.dev);
	/* once a process */
	CK_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcOpenEventHandle(o.h, &e2));
	CK(strstr(aclGetRecentErrMsg(), "imported by this process already"));
	put_u64(wr, 1);
	while ((go = get_u64(rd)) != GO_END) {
		switch (go) {
		case GO_RECORD:
			CK_ACL(ACL_SUCCESS, aclrtRecordEvent(e, s));
			CK_ACL(ACL_SUCCESS, aclrtSynchronizeEvent(e));
			status_is(e, ACL_EVENT_RECORDED_STATUS_COMPLETE);
			break;
		case GO_WAIT:
			CK_ACL(ACL_SUCCESS, aclrtStreamWaitEvent(s, e));
			/* fall through */
		case GO_WAIT_DONE:
			CK_ACL(ACL_SUCCESS, aclrtSynchronizeStream(s));
			status_is(e, ACL_EVENT_RECORDED_STATUS_COMPLETE);
			break;
		case GO_WAIT_BLOCKED:
			CK_ACL(ACL_SUCCESS, aclrtStreamWaitEvent(s, e));
			CK_ACL(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclrtSynchronizeStreamWithTimeout(s, 300));
			status_is(e, ACL_EVENT_RECORDED_STATUS_NOT_READY);
			CK_ACL(ACL_ERROR_RT_EVENT_SYNC_TIMEOUT, aclrtSynchronizeEventWithTimeout(e, 100));
			break;
		case GO_QUERY: {
			aclError r = aclrtQueryEventStatus(e, &st);

			/* the status, or the error */
			put_u64(wr, r ? (uint64_t)r : (uint64_t)st);
			continue;
		}
		case GO_GATED_RECORD:
			CK_ACL(ACL_SUCCESS, aclrtMalloc((void **)&gate, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
			CK_ACL(ACL_SUCCESS, aclrtMemset(gate, 8, 0, 8));
			CK_ACL(ACL_SUCCESS, aclrtValueWait(gate, 1, ACL_STREAM_WAIT_VALUE_GEQ, s));
			CK_ACL(ACL_SUCCESS, aclrtRecordEvent(e, s));
			break;
		case GO_OPEN_GATE:
			CK_ACL(ACL_SUCCESS, aclrtMemcpy(gate, 8, &one, 8, ACL_MEMCPY_HOST_TO_DEVICE));
			CK_ACL(ACL_SUCCESS, aclrtSynchronizeStream(s));
			CK_ACL(ACL_SUCCESS, aclrtFree(gate));
			break;
		case GO_DESTROY:
			CK_ACL(ACL_SUCCESS, aclrtDestroyEvent(e));
			CK_ACL(ACL_SUCCESS, aclrtSynchronizeStream(s));
			/* the creator's device goes with the event, unless set here */
			CK(dev_open(0) == (o.dev == 0));
			break;
		default:
			CK(0);
		}
		put_u64(wr, 1);
	}
	CK_ACL(ACL_SUCCESS, aclrtDestroyStream(s));
	CK_ACL(ACL_SUCCESS, aclrtResetDevice(o.dev));
	CK_ACL(ACL_SUCCESS, aclFinalize());
	put_u64(wr, 1);
}

/* Start an opener of @h on @dev that expects @want: 0, or -1. */
static int start_opener(struct child *c, const aclrtIpcEventHandle *h, int dev, int want)
{
	struct opener o = { .h = *h, .dev = dev, .want = want };

	if (spawn(c, opener, NULL))
		return -1;
	return write(c->wr, &o, sizeof(o)) == sizeof(o) ? 0 : -1;
}

/* Tell @c to do @go; its answer. */
static uint64_t ask(struct child *c, uint64_t go)
{
	uint64_t v = 0;

	put_u64(c->wr, go);
	if (read(c->rd, &v, sizeof(v)) != sizeof(v))
		return UINT64_MAX;
	return v;
}

/* End @c: its exit status. */
static int finish(struct child *c)
{
	uint64_t v = 0;

	put_u64(c->wr, GO_END);
	if (read(c->rd, &v, sizeof(v)) != sizeof(v) || v != 1)
		return -1;
	return reap(c);
}

FIXTURE(ipce) {
	aclrtEvent e;
	aclrtStream s;
	aclrtIpcEventHandle h;
	uint64_t *gate;		/* device word a record of this process waits for */
};
FIXTURE_SETUP(ipce)
{
	NEED_DEVICE();
	if (!lib_soc_910b_class())
		SKIP(return, "IPC events are a 910B/910_93 feature");
	ASSERT_ACL_OK(aclrtCreateStream(&self->s));
	ASSERT_ACL_OK(aclrtCreateEventExWithFlag(&self->e, ACL_EVENT_IPC));
	ASSERT_ACL_OK(aclrtIpcGetEventHandle(self->e, &self->h));
	ASSERT_ACL_OK(aclrtMalloc((void **)&self->gate, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMemset(self->gate, 8, 0, 8));
}
FIXTURE_TEARDOWN(ipce)
{
}

/* Queue on the test's stream a record that waits for the gate to open. */
static void gated_record(FIXTURE_DATA(ipce) *self)
{
	ASSERT_ACL_OK(aclrtValueWait(self->gate, 1, ACL_STREAM_WAIT_VALUE_GEQ, self->s));
	ASSERT_ACL_OK(aclrtRecordEvent(self->e, self->s));
}

static void open_gate(FIXTURE_DATA(ipce) *self)
{
	uint64_t one = 1;

	ASSERT_ACL_OK(aclrtMemcpy(self->gate, 8, &one, 8, ACL_MEMCPY_HOST_TO_DEVICE));
}

/* Record on the test's stream, synchronize: COMPLETE. */
static void record_and_sync(FIXTURE_DATA(ipce) *self)
{
	aclrtEventRecordedStatus st = ACL_EVENT_RECORDED_STATUS_NOT_READY;

	ASSERT_ACL_OK(aclrtRecordEvent(self->e, self->s));
	ASSERT_ACL_OK(aclrtSynchronizeEvent(self->e));
	ASSERT_ACL_OK(aclrtQueryEventStatus(self->e, &st));
	EXPECT_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, st);
}

/* A child on @dev that opened @h. */
static void opened(struct child *c, const aclrtIpcEventHandle *h, int dev)
{
	ASSERT_EQ(0, start_opener(c, h, dev, ACL_SUCCESS));
	EXPECT_EQ(1U, get_u64(c->rd));
}

TEST_F(ipce, create_and_handle_checks)
{
	aclrtIpcEventHandle h2, zero;
	aclrtEvent plain, ex, gone, e2 = NULL;
	const char *msg;

	EXPECT_EQ(64U, sizeof(aclrtIpcEventHandle));
	/* IPC alone (CANN's EventCreateEx), and only from the Ex call */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtCreateEventExWithFlag(&e2, ACL_EVENT_IPC | ACL_EVENT_SYNC));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtCreateEventExWithFlag(&e2, ACL_EVENT_IPC | ACL_EVENT_TIME_LINE));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtCreateEventWithFlag(&e2, ACL_EVENT_IPC));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtCreateEventExWithFlag(NULL, ACL_EVENT_IPC));
	EXPECT_TRUE(!e2);

	/* the handle: NULLs, events that are not IPC ones, a dead one */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtIpcGetEventHandle(self->e, NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtIpcGetEventHandle(NULL, &h2));
	ASSERT_ACL_OK(aclrtCreateEvent(&plain));
	ASSERT_ACL_OK(aclrtCreateEventExWithFlag(&ex, ACL_EVENT_SYNC));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcGetEventHandle(plain, &h2));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcGetEventHandle(ex, &h2));
	ASSERT_ACL_OK(aclrtCreateEventExWithFlag(&gone, ACL_EVENT_IPC));
	ASSERT_ACL_OK(aclrtDestroyEvent(gone));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtIpcGetEventHandle(gone, &h2));
	/* the same handle each time */
	ASSERT_ACL_OK(aclrtIpcGetEventHandle(self->e, &h2));
	EXPECT_EQ(0, memcmp(&h2, &self->h, sizeof(h2)));

	/* opening: NULL, handles nobody made, its own */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtIpcOpenEventHandle(self->h, NULL));
	memset(&zero, 0, sizeof(zero));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcOpenEventHandle(zero, &e2));
	memset(&zero, 0x5a, sizeof(zero));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcOpenEventHandle(zero, &e2));
	EXPECT_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcOpenEventHandle(self->h, &e2));
	msg = aclGetRecentErrMsg();
	EXPECT_TRUE(msg && strstr(msg, "exported by this process"));
	EXPECT_TRUE(!e2);
	ASSERT_ACL_OK(aclrtDestroyEvent(plain));
	ASSERT_ACL_OK(aclrtDestroyEvent(ex));
}

TEST_F(ipce, what_an_ipc_event_refuses)
{
	aclrtEventStatus old;
	aclrtEventWaitStatus ws;
	aclmdlRI model = NULL;
	uint64_t ts;
	uint32_t id;
	float ms;

	ASSERT_ACL_OK(aclrtRecordEvent(self->e, self->s));
	ASSERT_ACL_OK(aclrtSynchronizeEvent(self->e));
	/* CANN's ApiErrorDecorator: 207000 for each */
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtResetEvent(self->e, self->s));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtQueryEvent(self->e, &old));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtQueryEventWaitStatus(self->e, &ws));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtEventElapsedTime(&ms, self->e, self->e));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtEventGetTimestamp(self->e, &ts));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtGetEventId(self->e, &id));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
		   aclrtRecordEventWithFlag(self->e, self->s, ACL_EVENT_RECORD_EXTERNAL));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
		   aclrtStreamWaitEventWithFlag(self->s, self->e, 0, ACL_EVENT_WAIT_EXTERNAL));
	/* not in a capture, which goes on */
	ASSERT_ACL_OK(aclmdlRICaptureBegin(self->s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtRecordEvent(self->e, self->s));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtStreamWaitEvent(self->s, self->e));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(self->s, &model));
	ASSERT_ACL_OK(aclmdlRIDestroy(model));
	/* the failed calls left it as it was */
	ASSERT_ACL_OK(aclrtStreamWaitEvent(self->s, self->e));
	ASSERT_ACL_OK(aclrtSynchronizeStream(self->s));
}

/* Never recorded: nothing to wait for, COMPLETE, as every Ex event. */
TEST_F(ipce, never_recorded)
{
	aclrtEventRecordedStatus st = ACL_EVENT_RECORDED_STATUS_NOT_READY;

	ASSERT_ACL_OK(aclrtQueryEventStatus(self->e, &st));
	EXPECT_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, st);
	ASSERT_ACL_OK(aclrtSynchronizeEvent(self->e));
	ASSERT_ACL_OK(aclrtSynchronizeEventWithTimeout(self->e, 10));
	ASSERT_ACL_OK(aclrtStreamWaitEvent(self->s, self->e));
	ASSERT_ACL_OK(aclrtSynchronizeStream(self->s));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSynchronizeEventWithTimeout(self->e, 0));
}

/* One process: the latest record is what a wait, a sync and a query take. */
TEST_F(ipce, latest_record_in_one_process)
{
	aclrtEventRecordedStatus st;
	aclrtStream s2;
	uint64_t *mark, v = 0;

	ASSERT_ACL_OK(aclrtCreateStream(&s2));
	ASSERT_ACL_OK(aclrtMalloc((void **)&mark, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMemset(mark, 8, 0, 8));
	gated_record(self);
	ASSERT_ACL_OK(aclrtQueryEventStatus(self->e, &st));
	EXPECT_EQ(ACL_EVENT_RECORDED_STATUS_NOT_READY, st);
	EXPECT_ACL(ACL_ERROR_RT_EVENT_SYNC_TIMEOUT, aclrtSynchronizeEventWithTimeout(self->e, 100));
	ASSERT_ACL_OK(aclrtStreamWaitEvent(s2, self->e));
	ASSERT_ACL_OK(aclrtValueWrite(mark, 7, 0, s2));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclrtSynchronizeStreamWithTimeout(s2, 200));
	ASSERT_ACL_OK(aclrtMemcpy(&v, 8, mark, 8, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(0U, v);
	/* destroying it now is deferred until this process's record and wait ran */
	open_gate(self);
	ASSERT_ACL_OK(aclrtSynchronizeStream(s2));
	ASSERT_ACL_OK(aclrtMemcpy(&v, 8, mark, 8, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(7U, v);
	ASSERT_ACL_OK(aclrtSynchronizeEvent(self->e));
	ASSERT_ACL_OK(aclrtQueryEventStatus(self->e, &st));
	EXPECT_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, st);
	/* a second record, ungated, is the latest from now on */
	ASSERT_ACL_OK(aclrtRecordEvent(self->e, s2));
	ASSERT_ACL_OK(aclrtSynchronizeEvent(self->e));
	ASSERT_ACL_OK(aclrtDestroyStream(s2));
	ASSERT_ACL_OK(aclrtFree(mark));
}

/*
 * ipcevent/0_ipcevent: A records, synchronizes, queries COMPLETE and
 * exports; B opens, waits, synchronizes, records, synchronizes, queries
 * COMPLETE; A's next wait is for B's record.
 */
TEST_F(ipce, vendor_example_flow)
{
	aclrtEventRecordedStatus st = ACL_EVENT_RECORDED_STATUS_NOT_READY;
	struct child c;

	record_and_sync(self);
	opened(&c, &self->h, 0);
	EXPECT_EQ(1U, ask(&c, GO_WAIT));	/* A's record ran: B's wait passes */
	EXPECT_EQ(1U, ask(&c, GO_RECORD));
	ASSERT_ACL_OK(aclrtStreamWaitEvent(self->s, self->e));
	ASSERT_ACL_OK(aclrtSynchronizeStream(self->s));
	ASSERT_ACL_OK(aclrtQueryEventStatus(self->e, &st));
	EXPECT_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, st);
	EXPECT_EQ(1U, ask(&c, GO_DESTROY));
	EXPECT_EQ(0, finish(&c));
	ASSERT_ACL_OK(aclrtDestroyEvent(self->e));
}

/* A wait in one process is released by the other's record, both ways. */
TEST_F(ipce, wait_released_by_the_other_process)
{
	aclrtEventRecordedStatus st;
	struct child c;
	uint64_t *mark, v = 0;

	ASSERT_ACL_OK(aclrtMalloc((void **)&mark, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMemset(mark, 8, 0, 8));
	opened(&c, &self->h, 0);
	/* A's record holds: B's wait for it holds, B's queries say so */
	gated_record(self);
	EXPECT_EQ(1U, ask(&c, GO_WAIT_BLOCKED));
	EXPECT_EQ((uint64_t)ACL_EVENT_RECORDED_STATUS_NOT_READY, ask(&c, GO_QUERY));
	open_gate(self);
	EXPECT_EQ(1U, ask(&c, GO_WAIT_DONE));
	EXPECT_EQ((uint64_t)ACL_EVENT_RECORDED_STATUS_COMPLETE, ask(&c, GO_QUERY));

	/* B's record holds behind B's gate: A's wait, queued after, holds too */
	EXPECT_EQ(1U, ask(&c, GO_GATED_RECORD));
	ASSERT_ACL_OK(aclrtQueryEventStatus(self->e, &st));
	EXPECT_EQ(ACL_EVENT_RECORDED_STATUS_NOT_READY, st);
	ASSERT_ACL_OK(aclrtStreamWaitEvent(self->s, self->e));
	ASSERT_ACL_OK(aclrtValueWrite(mark, 1, 0, self->s));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclrtSynchronizeStreamWithTimeout(self->s, 300));
	ASSERT_ACL_OK(aclrtMemcpy(&v, 8, mark, 8, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(0U, v);
	/* B opens its gate: its record runs, and A's wait passes */
	EXPECT_EQ(1U, ask(&c, GO_OPEN_GATE));
	ASSERT_ACL_OK(aclrtSynchronizeStream(self->s));
	ASSERT_ACL_OK(aclrtMemcpy(&v, 8, mark, 8, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(1U, v);
	ASSERT_ACL_OK(aclrtQueryEventStatus(self->e, &st));
	EXPECT_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, st);
	EXPECT_EQ(1U, ask(&c, GO_DESTROY));
	EXPECT_EQ(0, finish(&c));
	ASSERT_ACL_OK(aclrtDestroyEvent(self->e));
	ASSERT_ACL_OK(aclrtFree(mark));
}

/* The opener destroys first: the creator's event goes on; it may open again. */
TEST_F(ipce, opener_destroys_first)
{
	struct child c;

	opened(&c, &self->h, 0);
	EXPECT_EQ(1U, ask(&c, GO_RECORD));
	EXPECT_EQ(1U, ask(&c, GO_DESTROY));
	EXPECT_EQ(0, finish(&c));
	record_and_sync(self);
	opened(&c, &self->h, 0);
	EXPECT_EQ(1U, ask(&c, GO_WAIT));
	EXPECT_EQ(0, finish(&c));
	ASSERT_ACL_OK(aclrtDestroyEvent(self->e));
}

/*
 * The creator destroys first: its page is revoked, the opener's event
 * fails from then on (107017) and is still destroyed; the handle opens no
 * more (207006).
 */
TEST_F(ipce, creator_destroys_first)
{
	struct child c;

	opened(&c, &self->h, 0);
	EXPECT_EQ(1U, ask(&c, GO_RECORD));
	ASSERT_ACL_OK(aclrtDestroyEvent(self->e));
	npu_expect_dma_faults(true);
	EXPECT_EQ((uint64_t)ACL_ERROR_RT_INVALID_HANDLE, ask(&c, GO_QUERY));
	EXPECT_EQ(1U, ask(&c, GO_DESTROY));
	EXPECT_EQ(0, finish(&c));
	npu_expect_dma_faults(false);
	ASSERT_EQ(0, start_opener(&c, &self->h, 0, ACL_ERROR_RT_NO_PERMISSION));
	EXPECT_EQ(1U, get_u64(c.rd));
	EXPECT_EQ(0, reap(&c));
}

/* Creating, opening and destroying leave nothing behind, in either process. */
TEST_F(ipce, nothing_leaks)
{
	long long exported, handles, maps;
	uint32_t avail = 0, avail2 = 0;
	aclrtEvent e;
	struct child c;
	int i;

	ASSERT_ACL_OK(aclrtDestroyEvent(self->e));
	ASSERT_ACL_OK(aclrtGetEventAvailNum(&avail));
	exported = fdinfo_of(0, "npu-shares-exported");
	handles = fdinfo_of(0, "npu-handles");
	maps = fdinfo_of(0, "npu-mappings");
	ASSERT_LE(0, exported);
	for (i = 0; i < 3; i++) {
		aclrtIpcEventHandle h;

		ASSERT_ACL_OK(aclrtCreateEventExWithFlag(&e, ACL_EVENT_IPC));
		EXPECT_EQ(exported + 1, fdinfo_of(0, "npu-shares-exported"));
		ASSERT_ACL_OK(aclrtIpcGetEventHandle(e, &h));
		ASSERT_ACL_OK(aclrtRecordEvent(e, self->s));
		opened(&c, &h, 0);
		EXPECT_EQ(1U, ask(&c, GO_RECORD));
		EXPECT_EQ(1U, ask(&c, GO_DESTROY));
		EXPECT_EQ(0, finish(&c));
		/* destroyed with its record queued: kept until it ran */
		ASSERT_ACL_OK(aclrtDestroyEvent(e));
	}
	ASSERT_ACL_OK(aclrtSynchronizeStream(self->s));
	ASSERT_ACL_OK(aclrtGetEventAvailNum(&avail2));
	EXPECT_EQ(avail, avail2);
	EXPECT_EQ(exported, fdinfo_of(0, "npu-shares-exported"));
	EXPECT_EQ(handles, fdinfo_of(0, "npu-handles"));
	EXPECT_EQ(maps, fdinfo_of(0, "npu-mappings"));
}

/*
 * ipcevent/1_ipcevent_multi_device: the opener sets device 1 only; its
 * record reaches device 0's page through peer access, its waits wait on
 * the host.
 */
TEST_F(ipce, opener_on_another_device)
{
	aclrtEventRecordedStatus st;
	struct child c;

	if (!have_npu(1))
		SKIP(return, "no /dev/npu1");
	ASSERT_ACL_OK(aclrtRecordEvent(self->e, self->s));
	ASSERT_ACL_OK(aclrtSynchronizeEvent(self->e));
	opened(&c, &self->h, 1);
	EXPECT_EQ(1U, ask(&c, GO_WAIT));
	EXPECT_EQ(1U, ask(&c, GO_RECORD));
	ASSERT_ACL_OK(aclrtQueryEventStatus(self->e, &st));
	EXPECT_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, st);
	ASSERT_ACL_OK(aclrtStreamWaitEvent(self->s, self->e));
	ASSERT_ACL_OK(aclrtSynchronizeStream(self->s));
	/* a gated record holds the opener's host wait */
	gated_record(self);
	EXPECT_EQ((uint64_t)ACL_EVENT_RECORDED_STATUS_NOT_READY, ask(&c, GO_QUERY));
	open_gate(self);
	EXPECT_EQ(1U, ask(&c, GO_WAIT));
	EXPECT_EQ(1U, ask(&c, GO_DESTROY));
	EXPECT_EQ(0, finish(&c));
	ASSERT_ACL_OK(aclrtDestroyEvent(self->e));
}

/* SIGKILL @c: its status says so. */
static int kill_child(struct child *c)
{
	if (kill(c->pid, SIGKILL))
		return -1;
	return reap(c);
}

/*
 * The opener dies with its wait held: the creator's event goes on, its
 * record runs, and the next opener's wait for it passes; the dead
 * process's view leaves no share behind.
 */
TEST_F(ipce, opener_killed_while_waiting)
{
	long long exported = fdinfo_of(0, "npu-shares-exported");
	struct child c;

	gated_record(self);
	opened(&c, &self->h, 0);
	EXPECT_EQ(1U, ask(&c, GO_WAIT_BLOCKED));
	EXPECT_EQ(128 + SIGKILL, kill_child(&c));
	open_gate(self);
	ASSERT_ACL_OK(aclrtSynchronizeStream(self->s));
	ASSERT_ACL_OK(aclrtSynchronizeEvent(self->e));
	opened(&c, &self->h, 0);
	EXPECT_EQ(1U, ask(&c, GO_WAIT));
	EXPECT_EQ(1U, ask(&c, GO_DESTROY));
	EXPECT_EQ(0, finish(&c));
	EXPECT_EQ(exported, fdinfo_of(0, "npu-shares-exported"));
	ASSERT_ACL_OK(aclrtDestroyEvent(self->e));
	EXPECT_EQ(exported - 1, fdinfo_of(0, "npu-shares-exported"));
}

/*
 * The opener dies with its record queued behind its own gate: the record
 * never runs, so the creator's wait for it holds (nothing else may
 * release it) until its stream is destroyed; the event is destroyed, and
 * the process goes on.
 */
TEST_F(ipce, recorder_killed_with_its_record_queued)
{
	long long exported = fdinfo_of(0, "npu-shares-exported");
	uint64_t *mark, v = 1;
	aclrtStream s2;
	struct child c;

	ASSERT_ACL_OK(aclrtMalloc((void **)&mark, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMemset(mark, 8, 0, 8));
	opened(&c, &self->h, 0);
	EXPECT_EQ(1U, ask(&c, GO_GATED_RECORD));
	ASSERT_ACL_OK(aclrtStreamWaitEvent(self->s, self->e));
	ASSERT_ACL_OK(aclrtValueWrite(mark, 1, 0, self->s));
	EXPECT_EQ(128 + SIGKILL, kill_child(&c));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclrtSynchronizeStreamWithTimeout(self->s, 300));
	ASSERT_ACL_OK(aclrtMemcpy(&v, 8, mark, 8, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(0U, v);
	ASSERT_ACL_OK(aclrtDestroyStreamForce(self->s));
	ASSERT_ACL_OK(aclrtDestroyEvent(self->e));
	EXPECT_EQ(exported - 1, fdinfo_of(0, "npu-shares-exported"));
	/* the device is as good as before */
	ASSERT_ACL_OK(aclrtCreateStream(&s2));
	ASSERT_ACL_OK(aclrtValueWrite(mark, 2, 0, s2));
	ASSERT_ACL_OK(aclrtSynchronizeStream(s2));
	ASSERT_ACL_OK(aclrtMemcpy(&v, 8, mark, 8, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(2U, v);
	ASSERT_ACL_OK(aclrtDestroyStream(s2));
	ASSERT_ACL_OK(aclrtFree(mark));
}

/* A creator whose record holds behind its gate; it sends the handle and waits to die. */
static void dying_creator(int rd, int wr, void *arg)
{
	aclrtIpcEventHandle h;
	uint64_t *gate;
	aclrtStream s;
	aclrtEvent e;
	aclError r;

	(void)rd;
	(void)arg;
	r = aclInit(NULL);
	CK(r == ACL_SUCCESS || r == ACL_ERROR_REPEAT_INITIALIZE);
	CK_ACL(ACL_SUCCESS, aclrtSetDevice(0));
	CK_ACL(ACL_SUCCESS, aclrtCreateStream(&s));
	CK_ACL(ACL_SUCCESS, aclrtCreateEventExWithFlag(&e, ACL_EVENT_IPC));
	CK_ACL(ACL_SUCCESS, aclrtIpcGetEventHandle(e, &h));
	CK_ACL(ACL_SUCCESS, aclrtMalloc((void **)&gate, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	CK_ACL(ACL_SUCCESS, aclrtMemset(gate, 8, 0, 8));
	CK_ACL(ACL_SUCCESS, aclrtValueWait(gate, 1, ACL_STREAM_WAIT_VALUE_GEQ, s));
	CK_ACL(ACL_SUCCESS, aclrtRecordEvent(e, s));
	if (write(wr, &h, sizeof(h)) != sizeof(h))
		_exit(5);
	pause();
}

/*
 * The creator is killed while this process waits for its record: its
 * death revokes the page as its destroy would, so the wait faults (the
 * stream goes on), the event reads as invalid, and it is still destroyed.
 */
TEST_F(ipce, creator_killed_while_the_opener_waits)
{
	aclrtEventRecordedStatus st;
	aclrtIpcEventHandle h;
	uint64_t *mark, v = 0;
	aclrtEvent e = NULL;
	struct child c;

	ASSERT_ACL_OK(aclrtMalloc((void **)&mark, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMemset(mark, 8, 0, 8));
	ASSERT_EQ(0, spawn(&c, dying_creator, NULL));
	ASSERT_EQ(sizeof(h), (size_t)read(c.rd, &h, sizeof(h)));
	ASSERT_ACL_OK(aclrtIpcOpenEventHandle(h, &e));
	ASSERT_ACL_OK(aclrtStreamWaitEvent(self->s, e));
	ASSERT_ACL_OK(aclrtValueWrite(mark, 1, 0, self->s));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclrtSynchronizeStreamWithTimeout(self->s, 200));
	/* the revocation faults the queued wait as soon as the creator is gone */
	npu_expect_dma_faults(true);
	EXPECT_EQ(128 + SIGKILL, kill_child(&c));
	EXPECT_ACL(ACL_ERROR_RT_FAILURE, aclrtSynchronizeStreamWithTimeout(self->s, 20000));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtQueryEventStatus(e, &st));
	npu_expect_dma_faults(false);
	ASSERT_ACL_OK(aclrtMemcpy(&v, 8, mark, 8, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(1U, v);
	ASSERT_ACL_OK(aclrtDestroyEvent(e));
	ASSERT_ACL_OK(aclrtDestroyEvent(self->e));
	ASSERT_ACL_OK(aclrtFree(mark));
}

TEST_HARNESS_MAIN
