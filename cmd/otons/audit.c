/* SPDX-License-Identifier: ISC */
/*
 * --log-fd, as root: Landlock's refusals, read from the kernel's audit.
 *
 * otoexec enforces its Landlock domain with LANDLOCK_RESTRICT_SELF_LOG_NEW_
 * EXEC_ON when otons asks for refusals, so that the kernel's audit records
 * the agent's denials (LANDLOCK_ACCESS), and tells otons so (a note on the
 * refusal socket). The audit multicasts every record to its read-log group,
 * which a process with CAP_AUDIT_READ may join: otons joins it while it is
 * still root, with the socket kept after it becomes the --as account.
 *
 * The host's records all come; the sandbox's are told apart by the audit
 * session: otons sets its own loginuid (the --as account's uid), which gives
 * it, and everything it starts, a new session id, one the sandbox cannot
 * change (CAP_AUDIT_CONTROL). A LANDLOCK_ACCESS record is held until the
 * SYSCALL record of its event comes (the same serial), which names the
 * session and the caller's pid; one of the sandbox's session becomes a line.
 *
 * Nothing here changes the host's audit: it is not switched on, no rule is
 * added, no daemon replaced. When it is off, or otons is not root, there is
 * nothing to read: a domain's note then brings one warning, which says why.
 * The supervisor never answers anything from here: Landlock has refused
 * already; these lines only say so.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/netlink.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "oto.h"
#include "otons.h"

#ifndef AUDIT_LANDLOCK_ACCESS
#define AUDIT_LANDLOCK_ACCESS 1423
#endif

/* OTO_AUDIT, set by otonet before it: its audit socket, or why it has none. */
static int audit_inherited(struct otons_audit *a, const char *v)
{
	unsigned long fd;
	int dom = 0, proto = 0;
	socklen_t l = sizeof(int);

	if (v[0] == '!') {
		snprintf(a->inherited_why, sizeof(a->inherited_why), "%s", v + 1);
		a->why = a->inherited_why;
		return 0;
	}
	if (opt_ulong(v, 65535, &fd) < 0 || fd < 3 ||
	    getsockopt((int)fd, SOL_SOCKET, SO_DOMAIN, &dom, &l) < 0 ||
	    getsockopt((int)fd, SOL_SOCKET, SO_PROTOCOL, &proto, &l) < 0 || dom != AF_NETLINK ||
	    proto != NETLINK_AUDIT)
		return -1;
	if (fd_cloexec((int)fd, 1) < 0)
		return -1;
	a->fd = (int)fd;
	return 0;
}

void xotons_audit_open(const struct otons_opts *o, struct otons_audit *a)
{
	const char *v = getenv("OTO_AUDIT");
	uid_t uid;
	gid_t gid;

	memset(a, 0, sizeof(*a));
	a->fd = -1;
	a->record.budget = a->record.left = o->log_budget ? o->log_budget : RECORD_BUDGET;
	if (v) {
		if (audit_inherited(a, v) < 0)
			die_usage("OTO_AUDIT=%s: not a kernel audit socket's fd (otonet --log-fd "
				  "sets it)",
				  v);
		unsetenv("OTO_AUDIT");
		/* Without a log of its own, nothing reads it: no later stage holds it. */
		if (o->log_fd < 0 && a->fd >= 0)
			close(a->fd);
		if (o->log_fd < 0)
			a->fd = -1;
	}
	if (o->log_fd < 0 || a->why)
		return;
	if (a->fd < 0 && geteuid() != 0) {
		a->why =
		    "reading the kernel's audit needs root: otons started as root (with --as), "
		    "or otonet --log-fd before it";
		return;
	}
	/* An unknown account: xuser_drop_root says so next, and dies. */
	if (a->fd < 0 && (!o->as || user_lookup(o->as, &uid, &gid) < 0))
		return;
	if (a->fd < 0 && (a->fd = audit_reader_open(uid, &a->why)) < 0) {
		a->why_err = errno;
		return;
	}
	if (audit_reader_session(&a->ses) < 0) {
		a->why = "the sandbox has no audit session";
		a->why_err = errno;
		close(a->fd);
		a->fd = -1;
	}
}

void otons_audit_note(struct otons_audit *a)
{
	a->noted = 1;
	if (a->fd < 0 && a->why && !a->warned) {
		a->warned = 1;
		log_msg(LOG_WARN, a->why_err, "Landlock's refusals are not in the log: %s", a->why);
	}
}

static unsigned long count_kind(struct otons_audit *a, const char *blockers)
{
	for (size_t i = 0; i < a->nkinds; i++)
		if (!strcmp(a->kinds[i].blockers, blockers))
			return ++a->kinds[i].count;
	if (a->nkinds < OTONS_AUDIT_KINDS && strlen(blockers) < sizeof(a->kinds[0].blockers)) {
		snprintf(a->kinds[a->nkinds].blockers, sizeof(a->kinds[0].blockers), "%s",
			 blockers);
		a->kinds[a->nkinds].count = 1;
		return a->kinds[a->nkinds++].count;
	}
	return ++a->count_other;
}

/* One record's line; sys, syslen: its event's SYSCALL record (the program). */
static void emit(struct otons_audit *a, const struct otons_audit_pending *p, unsigned int pid,
		 const char *sys, size_t syslen, int log_fd, int *write_failed)
{
	static char line[8 * OTONS_AUDIT_BODY];
	char blockers[64] = "";
	struct timespec ts = { .tv_sec = (time_t)p->sec, .tv_nsec = (long)p->ms * 1000000 };
	unsigned long count;
	int n;

	if (otons_audit_field(p->body, p->len, "blockers", blockers, sizeof(blockers)) < 0)
		snprintf(blockers, sizeof(blockers), "?");
	count = count_kind(a, blockers);
	if (!otons_worth_a_line(count))
		return;
	n = otons_landlock_format(line, sizeof(line), &ts, a->session, pid, p->body, p->len, sys,
				  syslen, count);
	if (n > 0)
		otons_record_write(log_fd, &a->why_file, &a->record, "landlock", a->session, line,
				   (size_t)n, write_failed);
}

/* Drop the held records of serial; with the session's pid, write them first. */
static void settle(struct otons_audit *a, unsigned long long serial, const unsigned int *pid,
		   const char *sys, size_t syslen, int log_fd, int *write_failed)
{
	size_t k = 0;

	for (size_t i = 0; i < a->npend; i++) {
		if (a->pend[i].serial == serial) {
			if (pid)
				emit(a, &a->pend[i], *pid, sys, syslen, log_fd, write_failed);
			continue;
		}
		if (k != i)
			a->pend[k] = a->pend[i];
		k++;
	}
	a->npend = k;
}

static void take_record(struct otons_audit *a, int type, const char *text, size_t len, int log_fd,
			int *write_failed)
{
	unsigned long long serial;
	long long sec;
	unsigned int ms, pid;
	size_t off;
	char v[32];

	if (type != AUDIT_LANDLOCK_ACCESS && type != AUDIT_SYSCALL && type != AUDIT_EOE)
		return;
	if (otons_audit_stamp(text, len, &sec, &ms, &serial, &off) < 0)
		return;
	text += off;
	len -= off;
	while (len && (text[len - 1] == 0 || text[len - 1] == '\n'))
		len--;
	if (type == AUDIT_LANDLOCK_ACCESS) {
		struct otons_audit_pending *p;

		if (!a->pend && !(a->pend = calloc(OTONS_AUDIT_PENDING, sizeof(*a->pend))))
			return;
		/* Full: the oldest event never had its SYSCALL record; it goes. */
		if (a->npend == OTONS_AUDIT_PENDING)
			memmove(a->pend, a->pend + 1, --a->npend * sizeof(*a->pend));
		p = &a->pend[a->npend++];
		p->serial = serial;
		p->sec = sec;
		p->ms = ms;
		p->len = len < sizeof(p->body) ? len : sizeof(p->body);
		memcpy(p->body, text, p->len);
		return;
	}
	if (!a->npend)
		return;
	if (type == AUDIT_SYSCALL && otons_audit_field(text, len, "ses", v, sizeof(v)) > 0 &&
	    strtoul(v, NULL, 10) == a->ses &&
	    otons_audit_field(text, len, "pid", v, sizeof(v)) > 0) {
		pid = (unsigned int)strtoul(v, NULL, 10);
		settle(a, serial, &pid, text, len, log_fd, write_failed);
		return;
	}
	/* Another session's, or the event ended without a SYSCALL record. */
	settle(a, serial, NULL, NULL, 0, log_fd, write_failed);
}

void otons_audit_read(struct otons_audit *a, int log_fd, int *write_failed)
{
	static char buf[AUDIT_READER_MSG] __attribute__((aligned(NLMSG_ALIGNTO)));

	/* Bounded per wake: the supervisor's other work goes on under a flood. */
	for (int i = 0; a->fd >= 0 && i < 256; i++) {
		ssize_t n = recv(a->fd, buf, sizeof(buf), MSG_DONTWAIT);
		int len = (int)n;

		if (n < 0) {
			/* ENOBUFS: records were lost to a flood; the next ones still come. */
			if (errno == ENOBUFS && !a->lost) {
				a->lost = 1;
				log_msg(LOG_WARN, 0,
					"the kernel's audit dropped records meant for the refusal "
					"log (its socket's buffer was full): some Landlock "
					"refusals are not in it");
			}
			if (errno == EINTR || errno == ENOBUFS)
				continue;
			return;
		}
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, len);
		     h = NLMSG_NEXT(h, len))
			take_record(a, h->nlmsg_type, NLMSG_DATA(h), h->nlmsg_len - NLMSG_HDRLEN,
				    log_fd, write_failed);
	}
}

void otons_audit_finish(struct otons_audit *a, int log_fd, int *write_failed)
{
	struct timespec start, now;

	/*
	 * The audit hands records on from a kernel thread, after the calls
	 * that made them: the last ones may still be on their way when the
	 * sandbox has ended. Read until none came for 100 ms, a second at most.
	 */
	clock_gettime(CLOCK_MONOTONIC, &start);
	while (a->fd >= 0 && a->noted) {
		struct pollfd pf = { .fd = a->fd, .events = POLLIN };

		if (poll(&pf, 1, 100) <= 0)
			break;
		otons_audit_read(a, log_fd, write_failed);
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - start.tv_sec >= 1)
			break;
	}
	otons_audit_close(a);
}

void otons_audit_close(struct otons_audit *a)
{
	if (a->fd >= 0)
		close(a->fd);
	a->fd = -1;
	free(a->pend);
	a->pend = NULL;
	a->npend = 0;
}
