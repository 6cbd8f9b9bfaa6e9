/* SPDX-License-Identifier: ISC */
/*
 * The child's side: a user namespace owning a new network and mount
 * namespace, the TUN device and its configuration, /etc/resolv.conf, and the
 * TUN fd handed to the relay.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <linux/mount.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "oto.h"
#include "otonet.h"

/*
 * The TUN fd, opened in this new network namespace, where the device is then
 * created: opened by the child itself, as for an unprivileged caller, or,
 * where /dev/net/tun is root's alone and otonet was started by root, by the
 * opener (opener.c). Either way the child creates tun0 on it (TUNSETIFF) with
 * the capabilities of its own user namespace, which owns the network one.
 * The opener is asked first and answered later (xtun_create): meanwhile the
 * child puts up the kernel's walls (xwall), which need no tun0.
 */
static int xtun_open_or_ask(int opener, int *asked, int *err)
{
	int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);

	*asked = 0;
	*err = errno;
	/* Only a refusal is root's to overcome: a missing device stays missing. */
	if (fd < 0 && (errno == EACCES || errno == EPERM) && opener >= 0) {
		debugx("/dev/net/tun: %s; the opener (root) opens it here", strerror(errno));
		if (opener_ask(opener) == 0)
			*asked = 1;
		else if (errno == ENOMSG)
			die(EXIT_SYS, 0, "the TUN opener (root) ended without an answer");
		*err = errno;
	}
	return fd;
}

/*
 * The TUN fd: the one opened, or the opener's answer to the request made
 * (asked); then tun0 created on it. host_st: /dev/net/tun as stat saw it
 * before the new user namespace (its st_mode 0 when it was missing): inside,
 * an owner the namespace does not map reads as the overflow uid (65534),
 * which would name the wrong owner.
 */
static int xtun_create(int fd, int asked, int err, int opener, const struct stat *host_st)
{
	struct ifreq ifr;

	errno = err;
	if (asked) {
		fd = opener_answer(opener);
		if (fd < 0 && errno == ENOMSG)
			die(EXIT_SYS, 0, "the TUN opener (root) ended without an answer");
	}
	if (opener >= 0) {
		int e = errno;

		/* Asked or not, the opener is done: closing lets it exit now. */
		close(opener);
		errno = e;
	}
	if (fd < 0) {
		int e = errno;

		if (host_st->st_mode)
			die(EXIT_SYS, e,
			    "unable to open /dev/net/tun (mode %04o, owner %u); the fix: "
			    "chmod 0666 /dev/net/tun (the Debian default), or map it into the "
			    "container",
			    (unsigned int)(host_st->st_mode & 07777),
			    (unsigned int)host_st->st_uid);
		die(EXIT_SYS, e,
		    "unable to open /dev/net/tun; the fix: mknod /dev/net/tun c 10 200 "
		    "and chmod 0666 it, or map it into the container");
	}
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "tun0");
	ifr.ifr_flags = IFF_TUN | IFF_NO_PI | IFF_VNET_HDR;
	if (ioctl(fd, TUNSETIFF, &ifr) < 0)
		die(EXIT_SYS, errno, "unable to create tun0 (TUNSETIFF)%s", userns_cap_hint(errno));
	/*
	 * Offloads: the agent's kernel leaves TCP and UDP checksums partial and
	 * hands over TCP segments of up to 64 KiB whatever the MTU; the relay
	 * checks every virtio_net_hdr (pkt_parse_vnet).
	 */
	if (ioctl(fd, TUNSETOFFLOAD, TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6) < 0)
		die(EXIT_SYS, errno, "unable to turn on tun0's offloads (TUNSETOFFLOAD)");
	return fd;
}

/* The request failed (it or the batch it was sent in): say which, and why. */
static noreturn void xnl_die(const struct nl_batch *b)
{
	int e = errno;

	if (!*b->failed)
		die(EXIT_SYS, e, "unable to configure the sandbox's network (rtnetlink)");
	die(EXIT_SYS, e, "unable to %s%s", b->failed, userns_cap_hint(e));
}

/*
 * The agent's first flight and first window on a route through tun0, in
 * segments: its peer is the relay, a memory copy away, and the kernel's 10
 * made a 100 KB request wait for a few of the relay's ACKs before it was
 * all sent (each a wake-up of the relay). Congestion happens on the host's
 * side, whose sockets keep the kernel's own.
 */
#define TUN_INITWND 64

static void xroute(struct nl_batch *b, int type, const struct cidr *c, int ifindex,
		   const struct ipaddr *gw, int replace)
{
	char t[64], what[NL_WHAT_LEN];

	snprintf(what, sizeof(what), "add the %s route to %s",
		 type == RTN_PROHIBIT ? "prohibit" : "tun0", cidr_str(c, t, sizeof(t)));
	if (nl_route_add(b, what, type, c, ifindex, gw, replace,
			 type == RTN_UNICAST ? TUN_INITWND : 0) < 0)
		xnl_die(b);
}

static struct cidr host_cidr(const struct ipaddr *a)
{
	struct cidr c = { .addr = *a, .len = a->family == AF_INET ? 32 : 128 };

	return c;
}

static int sysctl_write(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), r = -1;

	if (fd >= 0) {
		r = write(fd, val, strlen(val)) == (ssize_t)strlen(val) ? 0 : -1;
		close(fd);
	}
	return r;
}

/*
 * Ping sockets for the agent's group, so echo goes through the relay's. A
 * sysctl with no rtnetlink equivalent: where /proc/sys is read-only (a
 * container's default), the sandbox still starts, and the agent's ping fails
 * (EACCES), which the warning explains.
 */
static void allow_ping(void)
{
	static const char PATH[] = "/proc/sys/net/ipv4/ping_group_range";
	char buf[64];

	snprintf(buf, sizeof(buf), "%u %u\n", (unsigned int)getegid(), (unsigned int)getegid());
	if (sysctl_write(PATH, buf) == 0)
		return;
	if (errno == EROFS)
		warnx("ping will fail in the sandbox: unable to write %s%s: %s", PATH,
		      PROC_SYS_RO_HINT, strerror(EROFS));
	else
		debugx("%s: %s", PATH, strerror(errno));
}

/*
 * --kernel-wall: a second wall in front of the relay. A connect to a
 * blocked range fails at once with EACCES inside the sandbox, and no packet
 * for it ever reaches the TUN, so no refusal of it reaches --log-fd either
 * (nothing in the kernel reports a prohibit route's refusal): without the
 * option the relay, which refuses the same ranges, sees and logs each one.
 * These routes name no device: they go up in a batch of their own before
 * tun0 exists, while the opener opens the TUN (about 45 routes: the longest
 * part of the set-up). The holes in them come after, in xconfigure's batch,
 * which the kernel handles later.
 */
static void xwall(const struct otonet_opts *o, const struct filter *f, struct nl_batch *b)
{
	const struct cidr_special_range *sp;
	size_t nsp;

	if (nl_batch_open(b) < 0)
		die(EXIT_SYS, errno, "unable to reach rtnetlink in the new network namespace");
	if (!o->kernel_wall)
		return;
	sp = cidr_special_table(&nsp);
	for (size_t i = 0; i < nsp; i++)
		xroute(b, RTN_PROHIBIT, &sp[i].range, 0, NULL, 1);
	for (size_t i = 0; i < f->nhost; i++) {
		struct cidr c = host_cidr(&f->host[i]);

		xroute(b, RTN_PROHIBIT, &c, 0, NULL, 1);
	}
	if (nl_batch_send(b) < 0)
		xnl_die(b);
}

/*
 * tun0 and lo up, the addresses, the routes through tun0: every request
 * queued in one batch (nl.c), which the kernel handles in this order, after
 * xwall's.
 */
static void xconfigure(const struct otonet_opts *o, const struct filter *f, struct nl_batch *b)
{
	int tun = (int)if_nametoindex("tun0"), lo = (int)if_nametoindex("lo");
	struct ipaddr a4, a6, gw4, gw6;
	struct cidr def4 = { .addr.family = AF_INET }, def6 = { .addr.family = AF_INET6 };
	struct cidr gate4 = { .len = 32 }, gate6 = { .len = 128 };
	char what[NL_WHAT_LEN];

	if (!tun || !lo)
		die(EXIT_SYS, errno, "unable to find tun0 and lo in the new network namespace");
	ipaddr_parse("10.0.2.100", &a4);
	ipaddr_parse("fd00::100", &a6);
	ipaddr_parse("10.0.2.2", &gw4);
	ipaddr_parse("fd00::2", &gw6);
	ipaddr_parse("10.0.2.4", &gate4.addr);
	ipaddr_parse("fd00::4", &gate6.addr);
	allow_ping();
	snprintf(what, sizeof(what), "bring up tun0 (MTU %u)", o->tun_mtu);
	/*
	 * No link-local address on tun0: the agent's only IPv6 source is
	 * fd00::100, the one the relay accepts, so even fe80::1%tun0 gets a RST.
	 * Before tun0 goes up, when the kernel would make one; over rtnetlink,
	 * not the addr_gen_mode sysctl, which a container's /proc/sys may not
	 * let anyone write.
	 */
	if (nl_link_addrgen_none(b, "turn off IPv6 address generation on tun0", tun) < 0 ||
	    nl_qdisc_noqueue(b, "give tun0 no queue", tun) < 0 ||
	    nl_link_set(b, "bring up lo", lo, 0, 0) < 0 ||
	    nl_link_set(b, what, tun, o->tun_mtu, 16384) < 0 ||
	    nl_addr_add(b, "add 10.0.2.100/24 to tun0", tun, &a4, 24) < 0 ||
	    nl_addr_add(b, "add fd00::100/64 to tun0", tun, &a6, 64) < 0)
		xnl_die(b);
	xroute(b, RTN_UNICAST, &def4, tun, &gw4, 0);
	xroute(b, RTN_UNICAST, &def6, tun, &gw6, 0);
	/* otogate's address, on tun0's own subnet: a route of its own for its windows. */
	xroute(b, RTN_UNICAST, &gate4, tun, NULL, 0);
	xroute(b, RTN_UNICAST, &gate6, tun, NULL, 0);
	if (!o->kernel_wall)
		goto out;
	/* The holes in xwall's routes: --public ranges and exceptions go back to tun0. */
	for (size_t i = 0; i < f->npub; i++)
		xroute(b, RTN_UNICAST, &f->pub[i], tun, NULL, 1);
	for (size_t i = 0; i < f->nallow; i++) {
		struct cidr c = host_cidr(&f->allow[i].addr);

		xroute(b, RTN_UNICAST, &c, tun, NULL, 1);
	}
	/* The host addresses stay walled even inside a --public range. */
	for (size_t i = 0; i < f->nhost; i++) {
		struct cidr c = host_cidr(&f->host[i]);
		int allowed = 0;

		for (size_t j = 0; j < f->nallow; j++)
			allowed |= ipaddr_equal(&f->allow[j].addr, &f->host[i]);
		if (!allowed)
			xroute(b, RTN_PROHIBIT, &c, 0, NULL, 1);
	}
out:
	if (nl_batch_send(b) < 0)
		xnl_die(b);
	if (b->skipped[0])
		debugx("unable to %s: %s; tun0 keeps the kernel's default queue", b->skipped,
		       strerror(b->skipped_errno));
	nl_batch_close(b);
}

/*
 * The sandbox's resolv.conf names the relay's DNS address. The file lives on
 * a detached tmpfs (new mount API), so no directory of the host is covered,
 * and it is mounted over /etc/resolv.conf itself without following a
 * symlink: a link to a systemd-resolved stub is covered the same way.
 * Returns the tmpfs's own mount, still open: its last close unmounts it,
 * which waits for an RCU grace period, so it goes to the relay with the TUN
 * and closes there, off the sandbox's way.
 */
static int xoverlay_resolv(void)
{
	static const char TEXT[] = "# otonet: the relay forwards this to the host's resolver\n"
				   "nameserver 10.0.2.3\n"
				   "nameserver fd00::3\n";
	int fs, mnt, fd, tree;

	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		die(EXIT_SYS, errno, "unable to make the mount namespace private");
	fs = (int)syscall(SYS_fsopen, "tmpfs", FSOPEN_CLOEXEC);
	if (fs < 0 || syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING, "size", "16k", 0) < 0 ||
	    syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING, "mode", "0755", 0) < 0 ||
	    syscall(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		die(EXIT_SYS, errno, "unable to create a tmpfs for resolv.conf");
	mnt = (int)syscall(SYS_fsmount, fs, FSMOUNT_CLOEXEC,
			   MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC);
	if (mnt < 0)
		die(EXIT_SYS, errno, "unable to mount a tmpfs for resolv.conf");
	fd = openat(mnt, "resolv.conf", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, TEXT, sizeof(TEXT) - 1) != (ssize_t)sizeof(TEXT) - 1)
		die(EXIT_SYS, errno, "unable to write resolv.conf");
	close(fd);
	tree = (int)syscall(SYS_open_tree, mnt, "resolv.conf", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	if (tree < 0)
		die(EXIT_SYS, errno, "unable to clone resolv.conf's mount");
	if (syscall(SYS_move_mount, tree, "", AT_FDCWD, "/etc/resolv.conf",
		    MOVE_MOUNT_F_EMPTY_PATH) < 0)
		die(EXIT_SYS, errno, "unable to mount over /etc/resolv.conf");
	if (mount(NULL, "/etc/resolv.conf", NULL,
		  MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
		die(EXIT_SYS, errno, "unable to make /etc/resolv.conf read-only");
	close(tree);
	close(fs);
	return mnt;
}

void xsetup_sandbox(const struct otonet_opts *o, const struct filter *f, int sock, int opener)
{
	pid_t parent = getppid();
	uid_t uid = geteuid();
	gid_t gid = getegid();
	struct stat tun_st = { 0 };
	int tun, asked, err, resolv;
	/* The rtnetlink batch, 53 KB: off the stack, and this child makes one. */
	static struct nl_batch b;

	/* Fail closed: if the relay dies, so does the sandbox. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		_exit(EXIT_SYS);
	if (stat("/dev/net/tun", &tun_st) < 0)
		tun_st.st_mode = 0;
	if (unshare(CLONE_NEWUSER | CLONE_NEWNET | CLONE_NEWNS) < 0) {
		int e = errno;

		die(EXIT_SYS, e, "unable to create the user and network namespaces (%s)",
		    userns_hint(e));
	}
	if (userns_map_self(0, uid, uid, gid, gid) < 0)
		die(EXIT_SYS, errno, "unable to map uid %u in the new user namespace",
		    (unsigned int)uid);
	/* Credentials changed: set the death signal again, and re-check the race. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		_exit(EXIT_SYS);
	/* The opener asked, what needs no tun0 done, then its answer. */
	tun = xtun_open_or_ask(opener, &asked, &err);
	xwall(o, f, &b);
	resolv = xoverlay_resolv();
	tun = xtun_create(tun, asked, err, opener, &tun_st);
	xconfigure(o, f, &b);
	if (fd_send(sock, tun, 0) < 0) {
		/* The relay ended first (its death signal is on its way): it
		 * said why, and one fatal line is the rule. */
		if (errno == EPIPE || errno == ECONNRESET || errno == ECONNREFUSED)
			_exit(EXIT_SYS);
		die(EXIT_SYS, errno, "unable to pass the TUN fd to the relay");
	}
	/* Failing that, the close below is the last, and waits here. */
	if (fd_send(sock, resolv, 0) < 0)
		debugx("the relay did not take resolv.conf's tmpfs: %s", strerror(errno));
	close(resolv);
	close(tun);
	close(sock);
}
