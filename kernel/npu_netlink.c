// SPDX-License-Identifier: GPL-2.0
/*
 * npu: the generic netlink family "npu" (include/uapi/npu_netlink.h,
 * Documentation/netlink.rst) - what npu-smi shows: devices, the contexts
 * that use them, and DMA faults as they happen.
 *
 * Every command has a policy and the core parses strictly: an attribute a
 * command does not take is rejected, not ignored. Requests read counters
 * the driver keeps anyway; the administrator's commands reset counters,
 * poison a page (npu_uce.c) or reset a device (npu_drv.c).
 *
 * Lifetime: the family is registered after every device exists and
 * unregistered before the first one goes, and a dump in progress holds a
 * module reference, so a request always finds the devices. Contexts are
 * read under their device's ctx_lock, which keeps each listed one alive.
 */
#include <linux/cred.h>
#include <linux/maple_tree.h>
#include <linux/pci.h>
#include <linux/pid_namespace.h>
#include <linux/ratelimit.h>
#include <net/genetlink.h>
#include <net/netlink.h>

#include <uapi/npu.h>
#include <uapi/npu_netlink.h>

#include "npu_devmem.h"
#include "npu_drv.h"
#include "npu_fdinfo.h"
#include "npu_netlink.h"
#include "npu_uce.h"

enum npu_nl_groups {
	NPU_NL_GRP_FAULTS,
};

/*
 * Fault events: at most this many a second across all devices; the rest
 * are dropped (the fault counters and the kernel log still see them).
 */
#define NPU_NL_FAULT_BURST	200

static DEFINE_RATELIMIT_STATE(npu_nl_fault_rs, HZ, NPU_NL_FAULT_BURST);

/* DEVICE_GET, COUNTERS_RESET, PROCESS_GET: a device index or nothing. */
static const struct nla_policy npu_nl_dev_policy[NPU_NL_A_DEV_INDEX + 1] = {
	[NPU_NL_A_DEV_INDEX] = { .type = NLA_U32 },
};

static struct genl_family npu_nl_family;

/* The index a request names: 0, -ENODEV with extack, or 1 if none. */
static int npu_nl_dev_attr(struct nlattr **attrs,
			   struct netlink_ext_ack *extack, unsigned int *index)
{
	struct nlattr *attr = attrs ? attrs[NPU_NL_A_DEV_INDEX] : NULL;

	if (!attr)
		return 1;
	*index = nla_get_u32(attr);
	if (!npu_device_lookup(*index)) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "no such device");
		return -ENODEV;
	}
	return 0;
}

/* The device a doit request must name: it, or an ERR_PTR with extack. */
static struct npu_device *npu_nl_required_dev(struct genl_info *info)
{
	unsigned int index;
	int ret;

	if (GENL_REQ_ATTR_CHECK(info, NPU_NL_A_DEV_INDEX)) {
		NL_SET_ERR_MSG(info->extack, "device index required");
		return ERR_PTR(-EINVAL);
	}
	ret = npu_nl_dev_attr(info->attrs, info->extack, &index);
	return ret ? ERR_PTR(ret) : npu_device_lookup(index);
}

static int npu_nl_fill_device(struct sk_buff *skb, struct npu_device *npu,
			      u32 portid, u32 seq, int flags)
{
	struct npu_context *ctx;
	u32 contexts = 0;
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &npu_nl_family, flags,
			  NPU_NL_CMD_DEVICE_GET);
	if (!hdr)
		return -EMSGSIZE;
	mutex_lock(&npu->ctx_lock);
	list_for_each_entry(ctx, &npu->contexts, node)
		contexts++;
	mutex_unlock(&npu->ctx_lock);
	if (nla_put_u32(skb, NPU_NL_A_DEV_INDEX, npu->index) ||
	    nla_put_string(skb, NPU_NL_A_DEV_NAME, npu->name) ||
	    nla_put_string(skb, NPU_NL_A_DEV_CARRIER,
			   npu->carrier ? pci_name(npu->carrier) : "platform") ||
	    nla_put_string(skb, NPU_NL_A_DEV_IOMMU, npu->iommu) ||
	    nla_put_u64_64bit(skb, NPU_NL_A_DEV_MEM_TOTAL, npu->mem->size,
			      NPU_NL_A_PAD) ||
	    nla_put_u64_64bit(skb, NPU_NL_A_DEV_MEM_USED,
			      atomic64_read(&npu->mem->used), NPU_NL_A_PAD) ||
	    nla_put_u64_64bit(skb, NPU_NL_A_DEV_MEM_PEAK,
			      atomic64_read(&npu->mem->peak), NPU_NL_A_PAD) ||
	    nla_put_u32(skb, NPU_NL_A_DEV_CONTEXTS, contexts) ||
	    nla_put_u64_64bit(skb, NPU_NL_A_DEV_PAGE_SIZES,
			      NPU_PAGE_4K | NPU_PAGE_2M | NPU_PAGE_1G,
			      NPU_NL_A_PAD) ||
	    nla_put_u32(skb, NPU_NL_A_DEV_DRIVER_VERSION, NPU_DRIVER_VERSION) ||
	    nla_put_string(skb, NPU_NL_A_DEV_SOC_NAME, npu_soc_name()) ||
	    nla_put_u64_64bit(skb, NPU_NL_A_DEV_FAULTS,
			      atomic64_read(&npu->faults), NPU_NL_A_PAD) ||
	    nla_put_u64_64bit(skb, NPU_NL_A_DEV_BUSY_NS,
			      npu_busy_read(&npu->busy), NPU_NL_A_PAD) ||
	    (READ_ONCE(npu->unplugged) &&
	     nla_put_flag(skb, NPU_NL_A_DEV_UNPLUGGED)) ||
	    (READ_ONCE(npu->resetting) &&
	     nla_put_flag(skb, NPU_NL_A_DEV_RESETTING)) ||
	    nla_put_u32(skb, NPU_NL_A_DEV_RESETS, READ_ONCE(npu->resets))) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

static int npu_nl_device_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct npu_device *npu = npu_nl_required_dev(info);
	struct sk_buff *msg;
	int ret;

	if (IS_ERR(npu))
		return PTR_ERR(npu);
	msg = nlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	ret = npu_nl_fill_device(msg, npu, info->snd_portid, info->snd_seq, 0);
	if (ret) {
		nlmsg_free(msg);
		return ret;
	}
	return genlmsg_reply(msg, info);
}

/* cb->args[0]: the next device; cb->args[1]: 1 + the one asked for, or 0 */
static int npu_nl_device_get_dumpit(struct sk_buff *skb,
				    struct netlink_callback *cb)
{
	unsigned int i = cb->args[0], end = npu_device_count();
	int ret;

	if (cb->args[1]) {
		i = max_t(unsigned int, i, cb->args[1] - 1);
		end = cb->args[1];
	}
	for (; i < end; i++) {
		ret = npu_nl_fill_device(skb, npu_device_lookup(i),
					 NETLINK_CB(cb->skb).portid,
					 cb->nlh->nlmsg_seq, NLM_F_MULTI);
		if (ret)
			break;
	}
	cb->args[0] = i;
	return skb->len;
}

static int npu_nl_device_get_start(struct netlink_callback *cb)
{
	unsigned int index;
	int ret;

	ret = npu_nl_dev_attr(npu_genl_dump_attrs(cb), cb->extack, &index);
	if (ret < 0)
		return ret;
	cb->args[1] = ret ? 0 : index + 1;
	return 0;
}

static int npu_nl_fill_context_locked(struct sk_buff *skb,
				      struct npu_context *ctx, pid_t pid,
				      u32 portid, u32 seq)
{
	struct npu_context_usage u;
	void *hdr;

	lockdep_assert_held(&ctx->npu->ctx_lock);
	/* the figures fdinfo shows, counted the same way */
	npu_context_usage(ctx, &u);

	hdr = genlmsg_put(skb, portid, seq, &npu_nl_family, NLM_F_MULTI,
			  NPU_NL_CMD_PROCESS_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, NPU_NL_A_DEV_INDEX, ctx->npu->index) ||
	    nla_put_u32(skb, NPU_NL_A_PROC_PID, pid) ||
	    nla_put_string(skb, NPU_NL_A_PROC_COMM, ctx->comm) ||
	    nla_put_u32(skb, NPU_NL_A_PROC_UID,
			from_kuid_munged(current_user_ns(), ctx->uid)) ||
	    nla_put_u64_64bit(skb, NPU_NL_A_PROC_CTX_ID, ctx->id,
			      NPU_NL_A_PAD) ||
	    nla_put_u64_64bit(skb, NPU_NL_A_PROC_MEM_DEVICE, u.mem_device,
			      NPU_NL_A_PAD) ||
	    nla_put_u64_64bit(skb, NPU_NL_A_PROC_HOST_PINNED, u.host_pinned,
			      NPU_NL_A_PAD) ||
	    nla_put_u64_64bit(skb, NPU_NL_A_PROC_HOST_MEMLOCK, u.host_locked,
			      NPU_NL_A_PAD) ||
	    nla_put_u32(skb, NPU_NL_A_PROC_MAPPINGS, u.mappings) ||
	    nla_put_u32(skb, NPU_NL_A_PROC_RESERVATIONS, u.reservations) ||
	    nla_put_u32(skb, NPU_NL_A_PROC_STREAMS, u.streams) ||
	    nla_put_u32(skb, NPU_NL_A_PROC_EXPORTED, u.exports) ||
	    nla_put_u32(skb, NPU_NL_A_PROC_IMPORTED, u.imports) ||
	    nla_put_u64_64bit(skb, NPU_NL_A_PROC_FAULTS, u.faults,
			      NPU_NL_A_PAD) ||
	    (READ_ONCE(ctx->lost) && nla_put_flag(skb, NPU_NL_A_PROC_LOST))) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/*
 * cb->args: [0] the device, [1] the lowest context id not yet sent on it
 * (contexts join a device's list in increasing id order, so one that
 * closes or opens meanwhile moves no other), [2] 1 + the device asked for
 * or 0, [3] the caller may see every uid's contexts, [4] the caller's uid.
 */
static int npu_nl_process_get_dumpit(struct sk_buff *skb,
				     struct netlink_callback *cb)
{
	unsigned int dev = cb->args[0], end = npu_device_count();
	kuid_t uid = KUIDT_INIT(cb->args[4]);
	struct npu_context *ctx;
	int ret = 0;

	if (cb->args[2]) {
		dev = max_t(unsigned int, dev, cb->args[2] - 1);
		end = cb->args[2];
	}
	for (; dev < end && !ret; dev++) {
		struct npu_device *npu = npu_device_lookup(dev);

		mutex_lock(&npu->ctx_lock);
		list_for_each_entry(ctx, &npu->contexts, node) {
			pid_t pid;

			if (ctx->id < cb->args[1])
				continue;
			pid = pid_vnr(ctx->pid);
			/* not in the caller's pid namespace, or not theirs */
			if (!pid || (!cb->args[3] && !uid_eq(ctx->uid, uid)))
				continue;
			ret = npu_nl_fill_context_locked(skb, ctx, pid,
							 NETLINK_CB(cb->skb).portid,
							 cb->nlh->nlmsg_seq);
			if (ret)
				break;
			cb->args[1] = ctx->id + 1;
		}
		mutex_unlock(&npu->ctx_lock);
		if (ret)
			break;
		cb->args[1] = 0;
	}
	cb->args[0] = dev;
	/* A context too big for an empty message cannot happen: it is small. */
	return skb->len;
}

static int npu_nl_process_get_start(struct netlink_callback *cb)
{
	unsigned int index;
	int ret;

	ret = npu_nl_dev_attr(npu_genl_dump_attrs(cb), cb->extack, &index);
	if (ret < 0)
		return ret;
	cb->args[2] = ret ? 0 : index + 1;
	/* Decided once, by who asked: later parts of the dump follow it. */
	cb->args[3] = netlink_capable(cb->skb, CAP_SYS_ADMIN);
	cb->args[4] = __kuid_val(current_uid());
	return 0;
}

static void npu_nl_reset_device(struct npu_device *npu)
{
	struct npu_context *ctx;

	atomic64_set(&npu->mem->peak, atomic64_read(&npu->mem->used));
	atomic64_set(&npu->faults, 0);
	mutex_lock(&npu->ctx_lock);
	list_for_each_entry(ctx, &npu->contexts, node)
		atomic64_set(&ctx->faults, 0);
	mutex_unlock(&npu->ctx_lock);
}

static int npu_nl_counters_reset_doit(struct sk_buff *skb,
				      struct genl_info *info)
{
	unsigned int i;
	int ret;

	ret = npu_nl_dev_attr(info->attrs, info->extack, &i);
	if (ret < 0)
		return ret;
	if (!ret) {
		npu_nl_reset_device(npu_device_lookup(i));
		return 0;
	}
	for (i = 0; i < npu_device_count(); i++)
		npu_nl_reset_device(npu_device_lookup(i));
	return 0;
}

/* MEM_POISON: which device, process and address. */
static const struct nla_policy npu_nl_poison_policy[NPU_NL_A_MAX + 1] = {
	[NPU_NL_A_DEV_INDEX] = { .type = NLA_U32 },
	[NPU_NL_A_PROC_PID] = { .type = NLA_U32 },
	[NPU_NL_A_FAULT_ADDR] = { .type = NLA_U64 },
};

static int npu_nl_mem_poison_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct npu_device *npu = npu_nl_required_dev(info);
	struct npu_context *ctx;
	struct pid *pid;
	int ret;

	if (IS_ERR(npu))
		return PTR_ERR(npu);
	if (GENL_REQ_ATTR_CHECK(info, NPU_NL_A_PROC_PID) ||
	    GENL_REQ_ATTR_CHECK(info, NPU_NL_A_FAULT_ADDR))
		return -EINVAL;
	pid = find_get_pid(nla_get_u32(info->attrs[NPU_NL_A_PROC_PID]));
	ret = -ESRCH;
	/* under ctx_lock: a listed context's VA space is not torn down */
	mutex_lock(&npu->ctx_lock);
	list_for_each_entry(ctx, &npu->contexts, node) {
		if (pid && ctx->pid == pid) {
			ret = npu_uce_poison(ctx, nla_get_u64(info->attrs[NPU_NL_A_FAULT_ADDR]));
			break;
		}
	}
	mutex_unlock(&npu->ctx_lock);
	put_pid(pid);
	if (ret == -ENOENT)
		NL_SET_ERR_MSG(info->extack, "not device memory the process maps");
	return ret;
}

/*
 * DEVICE_RESET: ends the work of every process on the device, whoever
 * they are, so it is the administrator's (CAP_SYS_ADMIN, as the events
 * that name them); the answer comes once their streams are aborted.
 */
static int npu_nl_device_reset_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct npu_device *npu;
	int ret;

	if (!netlink_capable(skb, CAP_SYS_ADMIN))
		return -EPERM;
	npu = npu_nl_required_dev(info);
	if (IS_ERR(npu))
		return PTR_ERR(npu);
	ret = npu_device_reset(npu);
	if (ret == -EBUSY)
		NL_SET_ERR_MSG(info->extack, "a reset of the device is under way");
	else if (ret == -ENODEV)
		NL_SET_ERR_MSG(info->extack, "the device's carrier was removed");
	return ret;
}

static const struct genl_ops npu_nl_ops[] = {
	{
		.cmd = NPU_NL_CMD_DEVICE_GET,
		.doit = npu_nl_device_get_doit,
		.start = npu_nl_device_get_start,
		.dumpit = npu_nl_device_get_dumpit,
		.policy = npu_nl_dev_policy,
		.maxattr = ARRAY_SIZE(npu_nl_dev_policy) - 1,
	},
	{
		.cmd = NPU_NL_CMD_PROCESS_GET,
		.start = npu_nl_process_get_start,
		.dumpit = npu_nl_process_get_dumpit,
		.policy = npu_nl_dev_policy,
		.maxattr = ARRAY_SIZE(npu_nl_dev_policy) - 1,
	},
	{
		.cmd = NPU_NL_CMD_COUNTERS_RESET,
		.doit = npu_nl_counters_reset_doit,
		.policy = npu_nl_dev_policy,
		.maxattr = ARRAY_SIZE(npu_nl_dev_policy) - 1,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = NPU_NL_CMD_MEM_POISON,
		.doit = npu_nl_mem_poison_doit,
		.policy = npu_nl_poison_policy,
		.maxattr = ARRAY_SIZE(npu_nl_poison_policy) - 1,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = NPU_NL_CMD_DEVICE_RESET,
		.doit = npu_nl_device_reset_doit,
		.policy = npu_nl_dev_policy,
		.maxattr = ARRAY_SIZE(npu_nl_dev_policy) - 1,
	},
};

static const struct genl_multicast_group npu_nl_mcgrps[] = {
	/* events name other users' processes: admins only, like the process dump */
	[NPU_NL_GRP_FAULTS] = { .name = NPU_GENL_MCGRP_FAULTS,
				.flags = GENL_MCAST_CAP_SYS_ADMIN },
};

static struct genl_family npu_nl_family = {
	.name = NPU_GENL_NAME,
	.version = NPU_GENL_VERSION,
	.module = THIS_MODULE,
	.ops = npu_nl_ops,
	.n_ops = ARRAY_SIZE(npu_nl_ops),
	/* every command is new: reserved header fields must be zero */
	.resv_start_op = NPU_NL_CMD_DEVICE_GET,
	.mcgrps = npu_nl_mcgrps,
	.n_mcgrps = ARRAY_SIZE(npu_nl_mcgrps),
};

/**
 * npu_netlink_fault() - broadcast a DMA fault on the "faults" group
 * @ctx: the context whose stream faulted
 * @stream: the stream id
 * @addr: the faulting address
 * @write: the access was a write
 * @host: @addr is a registered host address, not a device VA
 * @why: the reason
 *
 * Called from the DMA engine's work items, possibly with the VA space
 * held: allocates without sleeping or reclaim, and gives up quietly when
 * nobody listens, memory is short, or more than NPU_NL_FAULT_BURST events
 * went out in the last second.
 */
void npu_netlink_fault(struct npu_context *ctx, u32 stream, u64 addr,
		       bool write, bool host, const char *why)
{
	struct sk_buff *msg;
	void *hdr;

	if (!genl_has_listeners(&npu_nl_family, &init_net, NPU_NL_GRP_FAULTS))
		return;
	if (!__ratelimit(&npu_nl_fault_rs))
		return;
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_NOWAIT | __GFP_NOWARN);
	if (!msg)
		return;
	hdr = genlmsg_put(msg, 0, 0, &npu_nl_family, 0, NPU_NL_CMD_FAULT);
	if (!hdr)
		goto free;
	if (nla_put_u32(msg, NPU_NL_A_DEV_INDEX, ctx->npu->index) ||
	    nla_put_u32(msg, NPU_NL_A_PROC_PID, ctx->tgid) ||
	    nla_put_string(msg, NPU_NL_A_PROC_COMM, ctx->comm) ||
	    nla_put_u32(msg, NPU_NL_A_FAULT_STREAM, stream) ||
	    nla_put_u64_64bit(msg, NPU_NL_A_FAULT_ADDR, addr, NPU_NL_A_PAD) ||
	    nla_put_u8(msg, NPU_NL_A_FAULT_ACCESS,
		       write ? NPU_NL_ACCESS_WRITE : NPU_NL_ACCESS_READ) ||
	    nla_put_u8(msg, NPU_NL_A_FAULT_SPACE,
		       host ? NPU_NL_SPACE_HOST : NPU_NL_SPACE_VA) ||
	    nla_put_string(msg, NPU_NL_A_FAULT_REASON, why))
		goto free;
	genlmsg_end(msg, hdr);
	genlmsg_multicast(&npu_nl_family, msg, 0, NPU_NL_GRP_FAULTS,
			  GFP_NOWAIT | __GFP_NOWARN);
	return;

free:
	nlmsg_free(msg);
}

/*
 * Reset events are sent from process context (the reset's caller and its
 * work item) and may come while the module unloads: under this lock, and
 * only while the family is registered.
 */
static DEFINE_MUTEX(npu_nl_reset_lock);
static bool npu_nl_registered;

/**
 * npu_netlink_reset() - broadcast a device reset's phase on "faults"
 * @npu: the device
 * @phase: NPU_NL_RESET_BEGIN or NPU_NL_RESET_DONE
 * @contexts: contexts the reset took down
 *
 * May sleep. Nothing is built when nobody listens.
 */
void npu_netlink_reset(struct npu_device *npu, u8 phase, u32 contexts)
{
	struct sk_buff *msg;
	void *hdr;

	mutex_lock(&npu_nl_reset_lock);
	if (!npu_nl_registered ||
	    !genl_has_listeners(&npu_nl_family, &init_net, NPU_NL_GRP_FAULTS))
		goto unlock;
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		goto unlock;
	hdr = genlmsg_put(msg, 0, 0, &npu_nl_family, 0, NPU_NL_CMD_DEVICE_RESET);
	if (!hdr ||
	    nla_put_u32(msg, NPU_NL_A_DEV_INDEX, npu->index) ||
	    nla_put_u8(msg, NPU_NL_A_RESET_PHASE, phase) ||
	    nla_put_u32(msg, NPU_NL_A_RESET_CONTEXTS, contexts) ||
	    nla_put_u32(msg, NPU_NL_A_DEV_RESETS, READ_ONCE(npu->resets))) {
		nlmsg_free(msg);
		goto unlock;
	}
	genlmsg_end(msg, hdr);
	genlmsg_multicast(&npu_nl_family, msg, 0, NPU_NL_GRP_FAULTS, GFP_KERNEL);
unlock:
	mutex_unlock(&npu_nl_reset_lock);
}

int __init npu_netlink_init(void)
{
	/* dropped events are the documented behaviour: no log line for them */
	int ret;

	ratelimit_set_flags(&npu_nl_fault_rs, RATELIMIT_MSG_ON_RELEASE);
	ret = genl_register_family(&npu_nl_family);
	if (!ret)
		npu_nl_registered = true;
	return ret;
}

void npu_netlink_exit(void)
{
	mutex_lock(&npu_nl_reset_lock);
	npu_nl_registered = false;
	mutex_unlock(&npu_nl_reset_lock);
	genl_unregister_family(&npu_nl_family);
}
