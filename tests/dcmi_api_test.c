// SPDX-License-Identifier: GPL-2.0
/*
 * tests/dcmi_api_test.c - libdcmi, written against the vendor's DCMI
 * reference (github hicann/driver, docs/en/Ascend_910B_DCMI_API: each
 * function's page and return-codes.md), built as a DCMI program is: its
 * header dcmi_interface_api.h, -ldcmi. What it reports must agree with
 * npu-smi, the netlink family, GET_INFO and /proc/PID/fdinfo: the device
 * count, the device memory and its use, each process's memory, a DMA fault
 * as an event and in health, the NPU utilisation of an idle device and of
 * one kept busy; as root and as an unprivileged user.
 */
#include <dirent.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>

#include "harness.h"
#include "npu_nl_util.h"
#include "npu_smi_util.h"

/*
 * npu's uapi names its ioctl magic NPU_TYPE, DCMI its chip type: the
 * helpers above are compiled, the test itself uses DCMI's.
 */
#undef NPU_TYPE
#include "dcmi_interface_api.h"

#define NOBODY	65534

static char out[1 << 16];

#define NEED_DEVICE() do {							\
	if (access("/dev/npu0", F_OK))						\
		SKIP(return, "no /dev/npu0 (run in the VM: tools/vm-run)");	\
} while (0)

/* GET_INFO of device @dev. */
static struct npu_get_info dev_info(int dev)
{
	struct npu_get_info info = { 0 };
	int fd = npu_open(dev);

	if (fd >= 0) {
		npu_info(fd, &info);
		close(fd);
	}
	return info;
}

/* The fd of /dev/npu@dev in process @pid, or -1. */
static int npu_fd_of(pid_t pid, int dev)
{
	char dir[64], path[320], link[64], want[16];
	struct dirent *e;
	int fd = -1;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", pid);
	snprintf(want, sizeof(want), "/dev/npu%d", dev);
	d = opendir(dir);
	while (d && (e = readdir(d))) {
		ssize_t n;

		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		n = readlink(path, link, sizeof(link) - 1);
		if (n > 0 && (link[n] = 0, !strcmp(link, want)))
			fd = atoi(e->d_name);
	}
	if (d)
		closedir(d);
	return fd;
}

/* fdinfo's npu-memory-device of @pid's @fd, in KiB, or -1. */
static long long fdinfo_device_kib(pid_t pid, int fd)
{
	char path[64], line[160];
	long long kib = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", pid, fd);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "npu-memory-device:\t", 19))
			kib = atoll(line + 19);
	if (f)
		fclose(f);
	return kib;
}

static void release(pid_t pid, int hold[2])
{
	int status;

	close(hold[1]);
	waitpid(pid, &status, 0);
}

/* dcmi_init, then the cards: as many as /dev/npuN, and as npu-smi -l says. */
TEST(init_and_card_list)
{
	char *argv[] = { "npu-smi", "info", "-l", NULL };
	int n = npu_device_count(), num = -1, list[MAX_CARD_NUM], all = -1, i;
	char val[32];

	NEED_DEVICE();
	ASSERT_EQ(DCMI_OK, dcmi_init());
	ASSERT_EQ(DCMI_OK, dcmi_get_card_list(&num, list, MAX_CARD_NUM));
	EXPECT_EQ(n, num);
	for (i = 0; i < num; i++)
		EXPECT_EQ(i, list[i]);
	ASSERT_EQ(DCMI_OK, dcmi_get_card_num_list(&num, list, MAX_CARD_NUM));
	EXPECT_EQ(n, num);
	ASSERT_EQ(DCMI_OK, dcmi_get_all_device_count(&all));
	EXPECT_EQ(n, all);
	if (!access(NPU_SMI, X_OK)) {
		ASSERT_EQ(0, run_smi(argv, 0, out, sizeof(out)));
		ASSERT_EQ(0, smi_field(out, "Total Count", val, sizeof(val)));
		EXPECT_EQ(n, atoi(val));
	}
	/* a second dcmi_init takes the list anew */
	EXPECT_EQ(DCMI_OK, dcmi_init());
}

/* One chip a card, no MCU or control CPU; logic, physical and card ids. */
TEST(ids_and_mapping)
{
	int n = npu_device_count(), i, max, mcu, cpu, num, logic, card, chip;
	enum dcmi_unit_type type;
	unsigned int phy, lid;

	NEED_DEVICE();
	ASSERT_EQ(DCMI_OK, dcmi_init());
	for (i = 0; i < n; i++) {
		ASSERT_EQ(DCMI_OK, dcmi_get_device_num_in_card(i, &num));
		EXPECT_EQ(1, num);
		ASSERT_EQ(DCMI_OK, dcmi_get_device_id_in_card(i, &max, &mcu, &cpu));
		EXPECT_EQ(1, max);
		EXPECT_EQ(-1, mcu);
		EXPECT_EQ(-1, cpu);
		ASSERT_EQ(DCMI_OK, dcmi_get_device_type(i, 0, &type));
		EXPECT_EQ(NPU_TYPE, type);
		ASSERT_EQ(DCMI_OK, dcmi_get_device_logic_id(&logic, i, 0));
		EXPECT_EQ(i, logic);
		ASSERT_EQ(DCMI_OK, dcmi_get_device_phyid_from_logicid(logic, &phy));
		EXPECT_EQ((unsigned int)i, phy);	/* /dev/npuN */
		ASSERT_EQ(DCMI_OK, dcmi_get_device_logicid_from_phyid(phy, &lid));
		EXPECT_EQ((unsigned int)logic, lid);
		ASSERT_EQ(DCMI_OK, dcmi_get_card_id_device_id_from_logicid(&card, &chip, logic));
		EXPECT_EQ(i, card);
		EXPECT_EQ(0, chip);
		ASSERT_EQ(DCMI_OK, dcmi_get_card_id_device_id_from_phyid(&card, &chip, phy));
		EXPECT_EQ(i, card);
		EXPECT_EQ(0, chip);
	}
}

/* Bad arguments get the codes of the reference's return-codes table. */
TEST(bad_arguments)
{
	int n = npu_device_count(), num, list[1], x, card, chip;
	struct dcmi_hbm_info hbm;
	struct dcmi_event ev;
	struct dcmi_event_filter flt = { 0 };
	unsigned int u, codes[1];
	unsigned char text[64];
	char ver[64];

	NEED_DEVICE();
	ASSERT_EQ(DCMI_OK, dcmi_init());
	EXPECT_EQ(DCMI_ERR_CODE_INVALID_PARAMETER, dcmi_get_card_list(NULL, list, 1));
	EXPECT_EQ(DCMI_ERR_CODE_INVALID_PARAMETER, dcmi_get_card_list(&num, NULL, 1));
	EXPECT_EQ(DCMI_ERR_CODE_INVALID_PARAMETER, dcmi_get_card_list(&num, list, 0));
	if (n > 1)	/* the list must hold every card */
		EXPECT_EQ(DCMI_ERR_CODE_INVALID_PARAMETER, dcmi_get_card_list(&num, list, 1));
	EXPECT_EQ(DCMI_ERR_CODE_INVALID_PARAMETER, dcmi_get_device_num_in_card(0, NULL));
	EXPECT_EQ(DCMI_ERR_CODE_INVALID_PARAMETER, dcmi_get_device_num_in_card(n, &num));
	EXPECT_EQ(DCMI_ERR_CODE_INVALID_PARAMETER, dcmi_get_device_hbm_info(0, 0, NULL));
	EXPECT_EQ(DCMI_ERR_CODE_INVALID_PARAMETER, dcmi_get_device_hbm_info(-1, 0, &hbm));
	EXPECT_EQ(DCMI_ERR_CODE_INVALID_PARAMETER, dcmi_get_device_hbm_info(n, 0, &hbm));
	EXPECT_EQ(DCMI_ERR_CODE_INVALID_PARAMETER, dcmi_get_device_hbm_info(0, 1, &hbm));
	EXPECT_EQ(DCMI_ERR_CODE_INVALID_PARAMETER, dcmi_get_device_hbm_info(0, -1, &hbm));
	EXPECT_EQ(DCMI_ERR_CODE_INVALID_PARAMETER, dcmi_get_device_logic_id(NULL, 0, 0));
	EXPECT_EQ(DCMI_ERR_CODE_INVALID_PARAMETER, dcmi_get_device_logic_id(&x, n, 0));
	EXPECT_EQ(DCMI_ERR_CODE_INVALID_DEVICE_ID, dcmi_get_device_phyid_from_logicid(n, &u));
	EXPECT_EQ(DCMI_ERR_CODE_INVALID_PARAMETER, dcmi_get_device_phyid_from_logicid(0, NULL));
	EXPECT_EQ(DCMI_ERR_CODE_INVALID_DEVICE_ID, dcmi_get_device_logicid_from_phyid(n, &u));
	EXPECT_EQ(DCMI_ERR_CODE_DEVICE_NOT_EXIST,
		  dcmi_get_card_id_device_id_from_logicid(&card, &chip, n));
	EXPECT_EQ(DCMI_ERR_CODE_DEVICE_NOT_EXIST,
		  dcmi_get_card_id_device_id_from_phyid(&card, &chip, n));
	EXPECT_EQ(DCMI_ERR_CODE_INVALID_PARAMETER,
		  dcmi_get_card_id_device_id_from_phyid(NULL, &chip, 0));
	/* at least 16 bytes for the version */
	EXPECT_EQ(DCMI_ERR_CODE_INVALID_PARAMETER, dcmi_get_dcmi_version(ver, 15));
	EXPECT_EQ(DCMI_ERR_CODE_INVALID_PARAMETER, dcmi_get_driver_version(ver, 0));
	EXPECT_EQ(DCMI_ERR_CODE_INVALID_PARAMETER, dcmi_get_driver_version(NULL, 64));
	/* types the reference does not list, and one it lists the chip has not */
	EXPECT_EQ(DCMI_ERR_CODE_INVALID_PARAMETER, dcmi_get_device_utilization_rate(0, 0, 7, &u));
	EXPECT_EQ(DCMI_ERR_CODE_INVALID_PARAMETER, dcmi_get_device_utilization_rate(0, 0, 0, &u));
	EXPECT_EQ(DCMI_ERR_CODE_INVALID_PARAMETER, dcmi_get_device_utilization_rate(0, 0, 6, NULL));
	EXPECT_EQ(DCMI_ERR_CODE_INVALID_PARAMETER,
		  dcmi_get_device_utilization_rate(0, 0, DCMI_UTILIZATION_RATE_NPU, NULL));
	EXPECT_EQ(DCMI_ERR_CODE_INVALID_PARAMETER,
		  dcmi_get_device_utilization_rate(0, 1, DCMI_UTILIZATION_RATE_NPU, &u));
	EXPECT_EQ(DCMI_ERR_CODE_INVALID_PARAMETER,
		  dcmi_get_device_utilization_rate(n, 0, DCMI_UTILIZATION_RATE_NPU, &u));
	EXPECT_EQ(DCMI_ERR_CODE_INVALID_PARAMETER,
		  dcmi_get_device_errorcode_v2(0, 0, &x, codes, 0));
	/* error text: at least 48 bytes, a code the device has */
	EXPECT_EQ(DCMI_ERR_CODE_INVALID_PARAMETER,
		  dcmi_get_device_errorcode_string(0, 0, DCMI_NPU_ERRCODE_DMA_FAULT, text, 47));
	EXPECT_EQ(DCMI_ERR_CODE_INVALID_PARAMETER,
		  dcmi_get_device_errorcode_string(0, 0, 0x1234, text, sizeof(text)));
	EXPECT_EQ(DCMI_ERR_CODE_INVALID_PARAMETER, dcmi_get_device_resource_info(0, 0, NULL, &x));
	EXPECT_EQ(DCMI_ERR_CODE_INVALID_PARAMETER, dcmi_get_device_cgroup_info(0, 0, NULL));
	/* a fault event's wait is -1 or 0..30000 ms */
	EXPECT_EQ(DCMI_ERR_CODE_INVALID_PARAMETER, dcmi_get_fault_event(0, 0, 30001, flt, &ev));
	EXPECT_EQ(DCMI_ERR_CODE_INVALID_PARAMETER, dcmi_get_fault_event(0, 0, -2, flt, &ev));
	EXPECT_EQ(DCMI_ERR_CODE_INVALID_PARAMETER, dcmi_get_fault_event(0, 0, 0, flt, NULL));
	EXPECT_EQ(DCMI_ERR_CODE_INVALID_PARAMETER, dcmi_subscribe_fault_event(0, 0, flt, NULL));
}

/*
 * Before dcmi_init: the vendor's answers (its sources): the card list is
 * an inner error, a card has no chips, a chip no logic id yet, and a
 * (card, chip) pair names no NPU, so its queries are NOT_SUPPORT. What
 * asks the driver directly works.
 */
TEST(before_init)
{
	enum dcmi_unit_type type = NPU_TYPE;
	struct dcmi_hbm_info hbm;
	int num = -1, list[MAX_CARD_NUM], x, all;
	unsigned int rate;
	char ver[16];

	NEED_DEVICE();
	EXPECT_EQ(DCMI_ERR_CODE_INNER_ERR, dcmi_get_card_list(&num, list, MAX_CARD_NUM));
	EXPECT_EQ(DCMI_OK, dcmi_get_device_num_in_card(0, &num));
	EXPECT_EQ(0, num);
	EXPECT_EQ(DCMI_ERR_CODE_NOT_REDAY, dcmi_get_device_logic_id(&x, 0, 0));
	EXPECT_EQ(DCMI_OK, dcmi_get_device_type(0, 0, &type));
	EXPECT_EQ(INVALID_TYPE, type);
	EXPECT_EQ(DCMI_ERR_CODE_NOT_SUPPORT, dcmi_get_device_hbm_info(0, 0, &hbm));
	EXPECT_EQ(DCMI_ERR_CODE_INVALID_PARAMETER, dcmi_get_device_hbm_info(0, 0, NULL));
	EXPECT_EQ(DCMI_ERR_CODE_NOT_SUPPORT,
		  dcmi_get_device_utilization_rate(0, 0, DCMI_UTILIZATION_RATE_NPU, &rate));
	EXPECT_EQ(DCMI_OK, dcmi_get_all_device_count(&all));
	EXPECT_EQ(npu_device_count(), all);
	EXPECT_EQ(DCMI_OK, dcmi_get_dcmi_version(ver, sizeof(ver)));
	EXPECT_STREQ("1.0.0", ver);
}

/* Versions and the chip: GET_INFO's driver version, soc name and cores. */
TEST(versions_and_chip)
{
	struct npu_get_info info = dev_info(0);
	struct dcmi_chip_info_v2 c2;
	struct dcmi_chip_info c;
	char ver[64], want[64];
	const char *soc = info.soc_name;

	NEED_DEVICE();
	ASSERT_EQ(DCMI_OK, dcmi_init());
	ASSERT_EQ(DCMI_OK, dcmi_get_driver_version(ver, sizeof(ver)));
	snprintf(want, sizeof(want), "%u.%u.%u", info.driver_version >> 16,
		 (info.driver_version >> 8) & 0xff, info.driver_version & 0xff);
	EXPECT_STREQ(want, ver);
	EXPECT_EQ(DCMI_ERR_CODE_INVALID_PARAMETER, dcmi_get_driver_version(ver, strlen(want)));
	ASSERT_EQ(DCMI_OK, dcmi_get_device_chip_info_v2(0, 0, &c2));
	ASSERT_EQ(DCMI_OK, dcmi_get_device_chip_info(0, 0, &c));
	if (!strncmp(soc, "Ascend", 6)) {
		EXPECT_STREQ("Ascend", (char *)c2.chip_type);
		soc += 6;
	} else {
		EXPECT_STREQ("npu", (char *)c2.chip_type);
	}
	EXPECT_STREQ(soc, (char *)c2.chip_name);
	EXPECT_STREQ("npu0", (char *)c2.npu_name);
	EXPECT_EQ(info.cube_cores, c2.aicore_cnt);
	EXPECT_STREQ((char *)c2.chip_name, (char *)c.chip_name);
	EXPECT_EQ(c2.aicore_cnt, c.aicore_cnt);
}

/* The PCI carrier: GET_INFO's address, sysfs's ids; none: NOT_SUPPORT. */
TEST(pcie_info)
{
	struct npu_get_info info = dev_info(0);
	struct dcmi_pcie_info_all all;
	struct dcmi_pcie_info p;
	struct dcmi_tag_pcie_idinfo t;
	int ret;

	NEED_DEVICE();
	ASSERT_EQ(DCMI_OK, dcmi_init());
	ret = dcmi_get_device_pcie_info_v2(0, 0, &all);
	if (!(info.caps & NPU_CAP_PCI_CARRIER)) {
		EXPECT_EQ(DCMI_ERR_CODE_NOT_SUPPORT, ret);
		EXPECT_EQ(DCMI_ERR_CODE_NOT_SUPPORT, dcmi_get_device_pcie_info(0, 0, &p));
		return;
	}
	ASSERT_EQ(DCMI_OK, ret);
	EXPECT_EQ((int)info.pci_domain, all.domain);
	EXPECT_EQ(info.pci_bus, all.bdf_busid);
	EXPECT_EQ(info.pci_devfn >> 3, all.bdf_deviceid);
	EXPECT_EQ(info.pci_devfn & 7, all.bdf_funcid);
	EXPECT_EQ(0x1b36, all.venderid);	/* QEMU's pci-testdev carries it */
	ASSERT_EQ(DCMI_OK, dcmi_get_device_pcie_info(0, 0, &p));
	EXPECT_EQ(all.deviceid, p.deviceid);
	EXPECT_EQ(all.bdf_busid, p.bdf_busid);
	ASSERT_EQ(DCMI_OK, dcmi_get_pcie_info(0, 0, &t));
	EXPECT_EQ(all.venderid, t.venderid);
	EXPECT_EQ(all.subdeviceid, t.subdeviceid);
}

/*
 * Device memory with 64 MiB allocated by a holder: HBM size and usage
 * agree with GET_INFO, the netlink family and npu-smi's memory page and
 * summary; the usage rate with npu-smi's usages page; the "cgroup" with
 * the family's total, peak and used bytes.
 */
TEST(hbm_agrees_with_npu_smi)
{
	char *mem_argv[] = { "npu-smi", "info", "-t", "memory", "-i", "0", NULL };
	char *use_argv[] = { "npu-smi", "info", "-t", "usages", "-i", "0", NULL };
	struct dcmi_hbm_info hbm;
	struct dsmi_hbm_info_stru hbm_kb;
	struct dcmi_cgroup_info cg;
	struct dcmi_get_memory_info_stru ddr;
	struct npu_get_info info;
	unsigned int rate;
	int hold[2];
	char val[32];
	pid_t holder;

	NEED_DEVICE();
	ASSERT_EQ(DCMI_OK, dcmi_init());
	holder = npu_holder(0, 64 << 20, 0, 0, hold);
	ASSERT_LT(0, holder);
	info = dev_info(0);
	ASSERT_EQ(DCMI_OK, dcmi_get_device_hbm_info(0, 0, &hbm));
	EXPECT_EQ(info.mem_total >> 20, hbm.memory_size);
	EXPECT_EQ(info.mem_used >> 20, hbm.memory_usage);
	EXPECT_LE(64ULL, hbm.memory_usage);
	EXPECT_EQ(0, hbm.freq);	/* not modeled: 0, not a made-up clock */
	EXPECT_EQ(0, hbm.temp);
	ASSERT_EQ(DCMI_OK, dcmi_get_hbm_info(0, 0, &hbm_kb));
	EXPECT_EQ(info.mem_total >> 10, hbm_kb.memory_size);
	EXPECT_EQ(info.mem_used >> 10, hbm_kb.memory_usage);
	ASSERT_EQ(DCMI_OK, dcmi_get_device_utilization_rate(0, 0, DCMI_UTILIZATION_RATE_HBM, &rate));
	EXPECT_EQ((info.mem_used >> 20) * 100 / (info.mem_total >> 20), rate);
	ASSERT_EQ(DCMI_OK, dcmi_get_device_cgroup_info(0, 0, &cg));
	EXPECT_EQ(info.mem_total, cg.limit_in_bytes);
	EXPECT_EQ(info.mem_used, cg.usage_in_bytes);
	EXPECT_LE(cg.usage_in_bytes, cg.max_usage_in_bytes);
	/* no DDR beside the chip */
	memset(&ddr, 0xff, sizeof(ddr));
	ASSERT_EQ(DCMI_OK, dcmi_get_device_memory_info_v3(0, 0, &ddr));
	EXPECT_EQ(0, ddr.memory_size);
	EXPECT_EQ(0, ddr.hugepages_total);
	if (!access(NPU_SMI, X_OK)) {
		ASSERT_EQ(0, run_smi(mem_argv, 0, out, sizeof(out)));
		ASSERT_EQ(0, smi_field(out, "HBM Capacity(MB)", val, sizeof(val)));
		EXPECT_EQ(hbm.memory_size, strtoull(val, NULL, 10));
		ASSERT_EQ(0, run_smi(use_argv, 0, out, sizeof(out)));
		ASSERT_EQ(0, smi_field(out, "HBM Usage Rate(%)", val, sizeof(val)));
		EXPECT_EQ(rate, strtoul(val, NULL, 10));
		/* the holder moves nothing: the DMA engine idles */
		ASSERT_EQ(0, smi_field(out, "NPU Utilization(%)", val, sizeof(val)));
		EXPECT_LE(0, smi_percent(val));
		EXPECT_GE(5, smi_percent(val));
	}
	release(holder, hold);
}

/* What the chip has no counter or sensor for: NOT_SUPPORT, no number. */
TEST(no_sensors)
{
	static const int types[] = {
		DCMI_UTILIZATION_RATE_DDR, DCMI_UTILIZATION_RATE_AICORE,
		DCMI_UTILIZATION_RATE_AICPU, DCMI_UTILIZATION_RATE_CTRLCPU,
		DCMI_UTILIZATION_RATE_DDR_BANDWIDTH, DCMI_UTILIZATION_RATE_HBM_BANDWIDTH,
		DCMI_UTILIZATION_RATE_VECTORCORE,
	};
	unsigned int rate, i;
	int v;

	NEED_DEVICE();
	ASSERT_EQ(DCMI_OK, dcmi_init());
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		EXPECT_EQ(DCMI_ERR_CODE_NOT_SUPPORT,
			  dcmi_get_device_utilization_rate(0, 0, types[i], &rate));
	EXPECT_EQ(DCMI_ERR_CODE_NOT_SUPPORT, dcmi_get_device_temperature(0, 0, &v));
	EXPECT_EQ(DCMI_ERR_CODE_NOT_SUPPORT, dcmi_get_device_power_info(0, 0, &v));
	/* the ids are checked first */
	EXPECT_EQ(DCMI_ERR_CODE_INVALID_PARAMETER, dcmi_get_device_temperature(0, 1, &v));
	EXPECT_EQ(DCMI_ERR_CODE_INVALID_PARAMETER, dcmi_get_device_power_info(0, 0, NULL));
}

/* dcmi_get_device_utilization_rate(NPU) of card @card, -1 if it fails; its duration. */
static int npu_rate(int card, double *ms)
{
	struct timespec t0, t1;
	unsigned int rate;
	int ret;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = dcmi_get_device_utilization_rate(card, 0, DCMI_UTILIZATION_RATE_NPU, &rate);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (ms)
		*ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
	return ret ? -1 : (int)rate;
}

/*
 * DCMI_UTILIZATION_RATE_NPU is the DMA engine's busy time over 50 ms: low
 * while device 0 idles, high while a process keeps it copying (and as
 * npu-smi's usages page says), low again once it stopped; only device 0
 * works. The AI-core and vector-core rates stay NOT_SUPPORT meanwhile.
 */
TEST(npu_utilization_follows_the_dma_engine)
{
	char *use_argv[] = { "npu-smi", "info", "-t", "usages", "-i", "0", NULL };
	int hold[2], status, rate;
	unsigned int u;
	char val[32];
	double ms;
	pid_t loop;

	NEED_DEVICE();
	ASSERT_EQ(DCMI_OK, dcmi_init());
	rate = npu_rate(0, &ms);
	TH_LOG("idle: %d%% in %.1f ms", rate, ms);
	EXPECT_LE(0, rate);
	EXPECT_GE(5, rate);
	EXPECT_LE(50.0, ms);	/* the window, documented */

	loop = npu_busy_loop(0, hold);
	ASSERT_LT(0, loop);
	rate = npu_rate(0, NULL);
	TH_LOG("busy: %d%%", rate);
	EXPECT_LE(50, rate);
	EXPECT_GE(100, rate);
	if (npu_device_count() > 1) {
		rate = npu_rate(1, NULL);
		EXPECT_LE(0, rate);
		EXPECT_GE(5, rate);
	}
	EXPECT_EQ(DCMI_ERR_CODE_NOT_SUPPORT,
		  dcmi_get_device_utilization_rate(0, 0, DCMI_UTILIZATION_RATE_AICORE, &u));
	EXPECT_EQ(DCMI_ERR_CODE_NOT_SUPPORT,
		  dcmi_get_device_utilization_rate(0, 0, DCMI_UTILIZATION_RATE_VECTORCORE, &u));
	if (!access(NPU_SMI, X_OK)) {
		ASSERT_EQ(0, run_smi(use_argv, 0, out, sizeof(out)));
		ASSERT_EQ(0, smi_field(out, "NPU Utilization(%)", val, sizeof(val)));
		TH_LOG("busy: npu-smi usages says %s%%", val);
		EXPECT_LE(50, smi_percent(val));
	}
	close(hold[1]);
	ASSERT_EQ(loop, waitpid(loop, &status, 0));
	EXPECT_EQ(0, status);

	rate = npu_rate(0, NULL);
	EXPECT_LE(0, rate);
	EXPECT_GE(5, rate);
}

/* The holder's entry: its pid, 64 MiB, as fdinfo and npu-smi proc-mem say. */
static void check_holder(pid_t holder, bool smi)
{
	char *argv[] = { "npu-smi", "info", "-t", "proc-mem", "-i", "0", NULL };
	struct dcmi_proc_mem_info procs[32];
	char want[96];
	int num = -1, i, fd, found = 0;

	ASSERT_EQ(DCMI_OK, dcmi_get_device_resource_info(0, 0, procs, &num));
	for (i = 0; i < num; i++) {
		if (procs[i].proc_id != holder)
			continue;
		found++;
		EXPECT_EQ(64UL << 20, procs[i].proc_mem_usage);
	}
	EXPECT_EQ(1, found);
	fd = npu_fd_of(holder, 0);
	ASSERT_LE(0, fd);
	EXPECT_EQ(64 << 10, fdinfo_device_kib(holder, fd));
	if (smi && !access(NPU_SMI, X_OK)) {
		ASSERT_EQ(0, run_smi(argv, 0, out, sizeof(out)));
		snprintf(want, sizeof(want), "Process id:%-7d Process name:%-17s Process memory(MB):64\n",
			 holder, "dcmi_api_test");
		EXPECT_NONNULL(strstr(out, want));
	}
}

TEST(process_memory_agrees_with_fdinfo)
{
	int hold[2];
	pid_t holder;

	NEED_DEVICE();
	ASSERT_EQ(DCMI_OK, dcmi_init());
	holder = npu_holder(0, 64 << 20, 0, 0, hold);
	ASSERT_LT(0, holder);
	check_holder(holder, true);
	release(holder, hold);
}

/* A process that opened the device twice is one entry, its memory summed. */
TEST(process_opened_twice_is_one_entry)
{
	struct dcmi_proc_mem_info procs[32];
	int fd1 = npu_open(0), fd2 = npu_open(0), num, i, found = 0;
	uint32_t h1, h2;

	NEED_DEVICE();
	ASSERT_LE(0, fd1);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, npu_alloc(fd1, SZ_2M, SZ_2M, &h1));
	ASSERT_EQ(0, npu_alloc(fd2, 2 * SZ_2M, SZ_2M, &h2));
	ASSERT_EQ(DCMI_OK, dcmi_init());
	ASSERT_EQ(DCMI_OK, dcmi_get_device_resource_info(0, 0, procs, &num));
	for (i = 0; i < num; i++) {
		if (procs[i].proc_id == getpid()) {
			found++;
			EXPECT_EQ(3 * SZ_2M, procs[i].proc_mem_usage);
		}
	}
	EXPECT_EQ(1, found);
	close(fd1);
	close(fd2);
}

#define CHILD_CHECK(cond) do {							\
	if (!(cond)) {								\
		printf("# %s:%d: child: check failed: %s\n", __FILE__,		\
		       __LINE__, #cond);					\
		fflush(stdout);							\
		_exit(1);							\
	}									\
} while (0)

static void become_nobody(void)
{
	CHILD_CHECK(setgroups(1, (gid_t[]){ NPU_GID }) == 0);
	CHILD_CHECK(setresgid(NOBODY, NOBODY, NOBODY) == 0);
	CHILD_CHECK(setresuid(NOBODY, NOBODY, NOBODY) == 0);
}

static void on_event(struct dcmi_event *e)
{
	(void)e;
}

/*
 * Unprivileged: the devices and their memory are there, of the processes
 * only its own (not root's holder), no fault events (OPER_NOT_PERMITTED,
 * the family's rule); npu-smi as that user shows the same.
 */
TEST(unprivileged_sees_what_the_family_shows)
{
	char *argv[] = { "npu-smi", "info", NULL };
	int hold[2], status;
	pid_t holder, child;

	NEED_DEVICE();
	holder = npu_holder(0, 64 << 20, 0, 0, hold);
	ASSERT_LT(0, holder);
	/* root sees the holder */
	ASSERT_EQ(DCMI_OK, dcmi_init());
	check_holder(holder, false);
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		struct dcmi_proc_mem_info procs[32];
		struct dcmi_event_filter flt = { 0 };
		struct dcmi_hbm_info hbm;
		struct dcmi_event ev;
		int fd, num = -1, i, mine = 0, n, list[MAX_CARD_NUM];
		unsigned int health, rate;
		uint32_t h;

		become_nobody();
		fd = npu_open(0);
		CHILD_CHECK(fd >= 0);
		CHILD_CHECK(npu_alloc(fd, SZ_2M, SZ_2M, &h) == 0);
		CHILD_CHECK(dcmi_init() == DCMI_OK);
		CHILD_CHECK(dcmi_get_card_list(&n, list, MAX_CARD_NUM) == DCMI_OK);
		CHILD_CHECK(n == npu_device_count());
		CHILD_CHECK(dcmi_get_device_hbm_info(0, 0, &hbm) == DCMI_OK);
		CHILD_CHECK(hbm.memory_usage >= 66);	/* the holder's 64 MiB, our 2 */
		CHILD_CHECK(dcmi_get_device_health(0, 0, &health) == DCMI_OK);
		/* the busy time is the device's, not the processes': everyone's */
		CHILD_CHECK(dcmi_get_device_utilization_rate(0, 0, DCMI_UTILIZATION_RATE_NPU,
							     &rate) == DCMI_OK && rate <= 100);
		CHILD_CHECK(dcmi_get_device_resource_info(0, 0, procs, &num) == DCMI_OK);
		for (i = 0; i < num; i++) {
			CHILD_CHECK(procs[i].proc_id != holder);
			if (procs[i].proc_id == getpid()) {
				mine++;
				CHILD_CHECK(procs[i].proc_mem_usage == SZ_2M);
			}
		}
		CHILD_CHECK(mine == 1);
		CHILD_CHECK(dcmi_get_fault_event(0, 0, 0, flt, &ev) ==
			    DCMI_ERR_CODE_OPER_NOT_PERMITTED);
		CHILD_CHECK(dcmi_subscribe_fault_event(-1, -1, flt, on_event) ==
			    DCMI_ERR_CODE_OPER_NOT_PERMITTED);
		printf("# child: %d process(es) visible, its own only\n", num);
		fflush(stdout);
		/* npu-smi as nobody: our pid, not the holder's */
		if (!access(NPU_SMI, X_OK)) {
			char pid[32];

			CHILD_CHECK(run_smi(argv, 0, out, sizeof(out)) == 0);
			snprintf(pid, sizeof(pid), "| %-13d |", getpid());
			CHILD_CHECK(strstr(out, pid));
			snprintf(pid, sizeof(pid), "| %-13d |", holder);
			CHILD_CHECK(!strstr(out, pid));
		}
		_exit(0);
	}
	ASSERT_EQ(child, waitpid(child, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	release(holder, hold);
}

/* A copy between unmapped VAs on device 0: one DMA fault (a write). */
static uint64_t bad_copy(int fd, uint32_t *stream)
{
	uint64_t src = npu_hole(SZ_2M, SZ_2M), dst = npu_hole(SZ_2M, SZ_2M);

	if (npu_stream_create(fd, stream))
		return 0;
	npu_expect_dma_faults(true);
	if (npu_run(fd, *stream, npu_copy_cmd(dst, src, SZ_4K, 0)) != -EIO)
		dst = 0;
	npu_expect_dma_faults(false);
	return dst;
}

static void reset_counters(void)
{
	char *argv[] = { "npu-smi", "reset-counters", NULL };
	struct nl_sock_t s;
	struct nl_req r;

	if (!access(NPU_SMI, X_OK)) {
		run_smi(argv, 0, NULL, 0);
		return;
	}
	if (nl_open(&s))
		return;
	nl_req_init(&r, s.family, NPU_NL_CMD_COUNTERS_RESET, 0);
	nl_talk(&s, &r, NULL, NULL);
	close(s.fd);
}

/*
 * A DMA fault: dcmi_get_fault_event returns it (the first call joins, so
 * nothing comes before it: TIME_OUT); health turns to minor alarm with
 * npu's error code, as npu-smi's health page and summary show; a counter
 * reset makes it OK again. A filter that does not take the event leaves
 * the wait to time out.
 */
TEST(fault_event_and_health)
{
	char *health_argv[] = { "npu-smi", "info", "-t", "health", "-i", "0", NULL };
	char *sum_argv[] = { "npu-smi", "info", "-i", "0", NULL };
	struct dcmi_event_filter flt = { 0 }, other = { 0 };
	const struct dcmi_dms_fault_event *d;
	unsigned int health, codes[4];
	unsigned char text[256];
	struct dcmi_event ev;
	char want[64], val[128];
	uint32_t stream;
	uint64_t dst;
	int fd, n;

	NEED_DEVICE();
	reset_counters();
	ASSERT_EQ(DCMI_OK, dcmi_init());
	ASSERT_EQ(DCMI_OK, dcmi_get_device_health(0, 0, &health));
	EXPECT_EQ(0, health);
	ASSERT_EQ(DCMI_OK, dcmi_get_device_errorcode_v2(0, 0, &n, codes, 4));
	EXPECT_EQ(0, n);
	memset(&ev, 0xff, sizeof(ev));
	ASSERT_EQ(DCMI_ERR_CODE_TIME_OUT, dcmi_get_fault_event(0, 0, 0, flt, &ev));
	EXPECT_EQ(0, ev.event_t.dms_event.event_id);	/* zeroed on failure */
	/* a subscription and the polling form exclude each other */
	EXPECT_EQ(DCMI_ERR_CODE_RESOURCE_OCCUPIED, dcmi_subscribe_fault_event(-1, -1, flt, on_event));

	fd = npu_open(0);
	ASSERT_LE(0, fd);
	dst = bad_copy(fd, &stream);
	ASSERT_NE(0, dst);
	ASSERT_EQ(DCMI_OK, dcmi_get_fault_event(0, 0, 5000, flt, &ev));
	d = &ev.event_t.dms_event;
	EXPECT_EQ(DCMI_DMS_FAULT_EVENT, ev.type);
	EXPECT_EQ(DCMI_NPU_EVENT_ID_DMA_FAULT, d->event_id);
	EXPECT_EQ(0, d->deviceid);
	EXPECT_EQ(1, d->severity);
	EXPECT_EQ(2, d->assertion);
	EXPECT_LT(0, d->event_serial_num);
	EXPECT_LT(0ULL, d->alarm_raised_time);
	snprintf(want, sizeof(want), "pid %d stream %u", getpid(), stream);
	EXPECT_STREQ(want, d->additional_info);
	snprintf(want, sizeof(want), "DMA fault: write va 0x%llx: ", (unsigned long long)dst);
	EXPECT_EQ(0, strncmp(d->event_name, want, strlen(want)));
	TH_LOG("event: %s (%s)", d->event_name, d->additional_info);

	ASSERT_EQ(DCMI_OK, dcmi_get_device_health(0, 0, &health));
	EXPECT_EQ(1, health);
	ASSERT_EQ(DCMI_OK, dcmi_get_device_errorcode_v2(0, 0, &n, codes, 4));
	ASSERT_EQ(1, n);
	EXPECT_EQ(DCMI_NPU_ERRCODE_DMA_FAULT, codes[0]);
	ASSERT_EQ(DCMI_OK, dcmi_get_device_errorcode_string(0, 0, codes[0], text, sizeof(text)));
	EXPECT_NONNULL(strstr((char *)text, "DMA fault"));
	/* a 48-byte buffer gets the beginning */
	ASSERT_EQ(DCMI_OK, dcmi_get_device_errorcode_string(0, 0, codes[0], text, 48));
	EXPECT_EQ(47, strlen((char *)text));
	if (!access(NPU_SMI, X_OK)) {
		ASSERT_EQ(0, run_smi(health_argv, 0, out, sizeof(out)));
		ASSERT_EQ(0, smi_field(out, "Health", val, sizeof(val)));
		EXPECT_STREQ("Warning", val);
		ASSERT_EQ(0, smi_field(out, "Error Code", val, sizeof(val)));
		EXPECT_STREQ("4E500001", val);
		ASSERT_EQ(0, run_smi(sum_argv, 0, out, sizeof(out)));
		EXPECT_NONNULL(strstr(out, "| Warning       |"));
	}
	/* an event the filter does not take is not returned */
	other.filter_flag = DCMI_EVENT_FILTER_FLAG_EVENT_ID;
	other.event_id = 0x1234;
	ASSERT_NE(0, bad_copy(fd, &stream));
	EXPECT_EQ(DCMI_ERR_CODE_TIME_OUT, dcmi_get_fault_event(0, 0, 300, other, &ev));
	reset_counters();
	ASSERT_EQ(DCMI_OK, dcmi_get_device_health(0, 0, &health));
	EXPECT_EQ(0, health);
	close(fd);
}

static int ev_pipe[2];

static void to_pipe(struct dcmi_event *e)
{
	if (write(ev_pipe[1], e, sizeof(*e)) != sizeof(*e))
		_exit(3);
}

/* A subscriber of every device gets the fault on its callback thread. */
TEST(subscribe_gets_fault)
{
	struct dcmi_event_filter flt = { .filter_flag = DCMI_EVENT_FILTER_FLAG_SERVERITY,
					 .severity = 1 };
	struct pollfd pfd;
	struct dcmi_event ev;
	uint32_t stream;
	int fd;

	NEED_DEVICE();
	ASSERT_EQ(0, pipe(ev_pipe));
	ASSERT_EQ(DCMI_OK, dcmi_init());
	ASSERT_EQ(DCMI_OK, dcmi_subscribe_fault_event(-1, -1, flt, to_pipe));
	/* once a process, and not with the polling form */
	EXPECT_EQ(DCMI_ERR_CODE_RESOURCE_OCCUPIED, dcmi_subscribe_fault_event(0, 0, flt, to_pipe));
	EXPECT_EQ(DCMI_ERR_CODE_RESOURCE_OCCUPIED, dcmi_get_fault_event(0, 0, 0, flt, &ev));
	fd = npu_open(0);
	ASSERT_LE(0, fd);
	ASSERT_NE(0, bad_copy(fd, &stream));
	pfd.fd = ev_pipe[0];
	pfd.events = POLLIN;
	ASSERT_EQ(1, poll(&pfd, 1, 5000));
	ASSERT_EQ(sizeof(ev), read(ev_pipe[0], &ev, sizeof(ev)));
	EXPECT_EQ(DCMI_NPU_EVENT_ID_DMA_FAULT, ev.event_t.dms_event.event_id);
	EXPECT_EQ(0, ev.event_t.dms_event.deviceid);
	reset_counters();
	close(fd);
}

TEST_HARNESS_MAIN
