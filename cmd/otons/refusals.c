/* SPDX-License-Identifier: ISC */
/*
 * --log-fd: the system calls the sandbox's seccomp filter refuses, one JSON
 * line each, written by the supervisor, outside the sandbox.
 *
 * otons offers a socket (OTO_REFUSALS); otoexec, with it, builds its filter
 * so that the refusals that are EPERM become user notifications, and sends
 * the filter's listener here before it execs the agent. For each
 * notification the supervisor writes a line and answers EPERM, the errno the
 * filter gives without a log. It never lets a call through (no
 * SECCOMP_USER_NOTIF_FLAG_CONTINUE) and never reads the agent's memory: a
 * line holds the call's number, its name and its six arguments as the raw
 * integers the kernel passed, pointers included, never what they point to.
 *
 * Bounded: per call, the first OTONS_REFUSALS_FIRST refusals are written,
 * then only the 100th, 1000th, 10000th... (each line counts); 100,000
 * refusals of one call are 14 lines.
 *
 * A flood costs the session, not the host. The supervisor runs outside the
 * session's cgroup, and each notification costs it about 2 us of CPU (its
 * poll, the receive, the answer): four threads of the agent calling bpf()
 * in a loop once kept it busy 0.76 s of every second. So the supervisor
 * spends on notifications at most 1/OTONS_REFUSALS_SHARE of the time (5% of
 * one CPU, measured with its own CPU clock, so the bound holds whatever the
 * machine's speed), with a burst of OTONS_REFUSALS_BURST; once that is
 * spent, it stops polling the listener until OTONS_REFUSALS_CHUNK is back
 * (10 ms). Meanwhile the refused callers wait in the kernel, asleep until
 * their answer: they cost no CPU, and only the session is slowed. Its calls
 * still end as they would: EPERM, never let through (no CONTINUE), or the
 * caller killed with the session (the end answers what is pending). Not in
 * the kernel's answer (the filter cannot count), nor the supervisor in the
 * session's cgroup: the cgroup is optional, and its OOM kill takes the whole
 * group, which must not include the process that reports the exit code.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "oto.h"
#include "otons.h"

void xotons_refusals_offer(struct otons_refusals *r, int log_fd, const char *session,
			   struct otons_audit *au)
{
	int sv[2];
	char val[16];

	memset(r, 0, sizeof(*r));
	r->sock = r->child_sock = r->listener = r->proc_fd = -1;
	r->log_fd = log_fd;
	r->session = session;
	r->audit = au;
	why_init(&au->why_file, "otons");
	if (log_fd < 0)
		return;
	/*
	 * The callers' /proc/PID, in the supervisor's pid namespace: the /proc
	 * seen here, held open, since pid 1 mounts the sandbox's own on it (in
	 * the mount namespace the two share until pid 1 makes its own).
	 */
	r->proc_fd = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (r->proc_fd < 0)
		die(EXIT_SYS, errno, "unable to open /proc for the refusal log");
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0 ||
	    fd_cloexec(sv[1], 0) < 0)
		die(EXIT_SYS, errno, "unable to make the refusal log's socket");
	snprintf(val, sizeof(val), "%d", sv[1]);
	if (setenv("OTO_REFUSALS", val, 1) < 0)
		die(EXIT_SYS, errno, "unable to set OTO_REFUSALS");
	r->sock = sv[0];
	r->child_sock = sv[1];
	/* Its lines are the agent's too: otomount sends the file on this socket. */
	if (why_offer(&au->why_file) < 0)
		die(EXIT_SYS, errno, "unable to offer a socket for the agent's file (OTO_WHY_FD)");
}

void otons_refusals_parent(struct otons_refusals *r)
{
	if (r->child_sock >= 0)
		close(r->child_sock);
	r->child_sock = -1;
	unsetenv("OTO_REFUSALS");
	why_parent(&r->audit->why_file);
}

void otons_refusals_child(struct otons_refusals *r)
{
	/* The log fd is the supervisor's: nothing inside writes to it. */
	if (r->sock >= 0)
		close(r->sock);
	if (r->log_fd >= 0)
		close(r->log_fd);
	/* The host's /proc least of all. */
	if (r->proc_fd >= 0)
		close(r->proc_fd);
	r->sock = r->log_fd = r->proc_fd = -1;
	if (r->audit->why_file.sock >= 0)
		close(r->audit->why_file.sock);
	r->audit->why_file.sock = -1;
	otons_audit_close(r->audit);
}

void otons_record_write(int log_fd, struct why *why, struct record_budget *b, const char *source,
			const char *session, const char *line, size_t n, int *write_failed)
{
	char notice[512];
	struct timespec ts;
	int take;

	why_note(why, line, n);
	take = record_budget_take(b, n);
	if (!take)
		return;
	if (take < 0) {
		clock_gettime(CLOCK_REALTIME, &ts);
		n = record_budget_line(notice, sizeof(notice), &ts, source, session, b, 0);
		line = notice;
	}
	if (n && write(log_fd, line, n) != (ssize_t)n && !*write_failed) {
		*write_failed = 1;
		log_msg(LOG_WARN, errno, "unable to write the refusal log (--log-fd %d)", log_fd);
	}
}

static long long clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The budget grows with the time since its last refill, up to the burst. */
static void budget_refill(struct otons_refusals *r)
{
	long long now = clock_ns(CLOCK_MONOTONIC);
	long long gained = (now - r->refilled) / OTONS_REFUSALS_SHARE;

	/* The remainder of the division stays for the next refill. */
	r->budget += gained;
	r->refilled += gained * OTONS_REFUSALS_SHARE;
	if (r->budget > OTONS_REFUSALS_BURST) {
		r->budget = OTONS_REFUSALS_BURST;
		r->refilled = now;
	}
	if (r->resting && r->budget >= OTONS_REFUSALS_CHUNK)
		r->resting = 0;
}

int otons_refusals_fds(struct otons_refusals *r, struct pollfd *pf, int *timeout)
{
	int n = 0;

	*timeout = -1;
	if (r->sock >= 0)
		pf[n++] = (struct pollfd){ .fd = r->sock, .events = POLLIN };
	if (r->listener >= 0) {
		budget_refill(r);
		if (!r->resting) {
			pf[n++] = (struct pollfd){ .fd = r->listener, .events = POLLIN };
			r->cpu_mark = clock_ns(CLOCK_THREAD_CPUTIME_ID);
		} else {
			/* The time until CHUNK is back, in whole ms, rounded up. */
			long long wait = (OTONS_REFUSALS_CHUNK - r->budget) * OTONS_REFUSALS_SHARE;

			*timeout = (int)((wait + 999999) / 1000000);
		}
	}
	if (r->audit->fd >= 0)
		pf[n++] = (struct pollfd){ .fd = r->audit->fd, .events = POLLIN };
	return n;
}

/*
 * /proc/PID/FILE of the caller into buf: its comm, or (exe) the path of its
 * executable as the kernel resolves it. NULL when unreadable, or when the
 * notification's caller is no longer PID's (the kernel's check after the
 * read: a pid reused meanwhile is never named).
 */
static const char *program(struct otons_refusals *r, const struct seccomp_notif *req,
			   const char *file, char *buf, size_t size)
{
	char path[64];
	ssize_t n;

	snprintf(path, sizeof(path), "%u/%s", (unsigned int)req->pid, file);
	if (!strcmp(file, "exe")) {
		n = readlinkat(r->proc_fd, path, buf, size - 1);
	} else {
		n = file_read_at(r->proc_fd, path, buf, size);
		if (n > 0 && buf[n - 1] == '\n')
			n--;
	}
	if (n <= 0 || seccomp_notify_id_valid(r->listener, req->id) < 0)
		return NULL;
	buf[n] = 0;
	return buf;
}

static void log_line(struct otons_refusals *r, const struct seccomp_notif *req, unsigned long count)
{
	char line[8192], comm[32], exe[4096];
	struct otons_refusal rf = {
		.session = r->session, .pid = req->pid, .nr = req->data.nr, .count = count
	};
	struct timespec ts;
	int n;

	rf.name = seccomp_syscall_resolve_num_arch(req->data.arch, req->data.nr);
	rf.comm = program(r, req, "comm", comm, sizeof(comm));
	rf.exe = program(r, req, "exe", exe, sizeof(exe));
	for (int i = 0; i < 6; i++)
		rf.args[i] = req->data.args[i];
	clock_gettime(CLOCK_REALTIME, &ts);
	n = otons_refusal_format(line, sizeof(line), &ts, &rf);
	free((char *)rf.name);
	if (n > 0)
		otons_record_write(r->log_fd, &r->audit->why_file, &r->audit->record, "seccomp",
				   r->session, line, (size_t)n, &r->write_failed);
}

/* One notification: its line, if due, and the answer EPERM. */
static void take_one(struct otons_refusals *r)
{
	struct seccomp_notif *req;
	struct seccomp_notif_resp *resp;
	unsigned long count = 0;

	if (seccomp_notify_alloc(&req, &resp) < 0)
		return;
	if (seccomp_notify_receive(r->listener, req) < 0) {
		/* ENOENT: the caller is gone already (killed, or a signal). */
		seccomp_notify_free(req, resp);
		return;
	}
	if (req->data.nr >= 0 && req->data.nr < OTONS_REFUSALS_NR)
		count = ++r->count[req->data.nr];
	else
		count = ++r->count_other;
	if (otons_worth_a_line(count))
		log_line(r, req, count);
	resp->id = req->id;
	resp->error = -EPERM;
	resp->val = 0;
	resp->flags = 0;
	/* ENOENT: the caller was interrupted meanwhile; nothing to answer. */
	seccomp_notify_respond(r->listener, resp);
	seccomp_notify_free(req, resp);
}

/* The listener is readable: the next notifications, while they wait; what they cost, charged. */
static void take_batch(struct otons_refusals *r)
{
	struct pollfd one = { .fd = r->listener, .events = POLLIN };

	take_one(r);
	for (int k = 1; k < OTONS_REFUSALS_BATCH && poll(&one, 1, 0) == 1 && (one.revents & POLLIN);
	     k++)
		take_one(r);
	/* Since the mark before the loop's poll: the wake-up is the notification's too. */
	r->budget -= clock_ns(CLOCK_THREAD_CPUTIME_ID) - r->cpu_mark;
	if (r->budget <= 0)
		r->resting = 1;
}

void otons_refusals_events(struct otons_refusals *r, const struct pollfd *pf, int n)
{
	for (int i = 0; i < n; i++) {
		if (!pf[i].revents)
			continue;
		if (pf[i].fd == r->sock) {
			char note[sizeof(OTO_LANDLOCK_NOTE)];
			ssize_t k = recv(r->sock, note, sizeof(note), MSG_PEEK | MSG_DONTWAIT);
			int fd;

			/* First, perhaps: otoexec's Landlock domain logs its refusals (audit.c). */
			if (k == (ssize_t)sizeof(note) - 1 &&
			    !memcmp(note, OTO_LANDLOCK_NOTE, (size_t)k)) {
				if (recv(r->sock, note, sizeof(note), MSG_DONTWAIT) == k)
					otons_audit_note(r->audit);
				continue;
			}
			/* Then, once: the listener, or the peer's end closed (no filter). */
			fd = fd_recv(r->sock);

			if (fd >= 0) {
				r->listener = fd;
				r->budget = OTONS_REFUSALS_BURST;
				r->refilled = clock_ns(CLOCK_MONOTONIC);
			} else if (errno != EAGAIN && errno != ENOMSG)
				log_msg(LOG_WARN, errno, "no seccomp listener for the refusal log");
			close(r->sock);
			r->sock = -1;
		} else if (pf[i].fd == r->audit->fd) {
			otons_audit_read(r->audit, r->log_fd, &r->write_failed);
		} else if (pf[i].fd == r->listener) {
			if (pf[i].revents & POLLIN)
				take_batch(r);
			else if (pf[i].revents & (POLLHUP | POLLERR | POLLNVAL)) {
				/* No process of the filter is left. */
				close(r->listener);
				r->listener = -1;
			}
		}
	}
}

void otons_refusals_finish(struct otons_refusals *r)
{
	struct pollfd one = { .fd = r->listener, .events = POLLIN };

	/*
	 * Pending calls (a process left behind with --share pid) get their
	 * EPERM: once the listener is closed, the kernel would answer ENOSYS.
	 * Each caller has one at a time; the count bounds a caller that goes on.
	 */
	for (int k = 0;
	     r->listener >= 0 && k < 4096 && poll(&one, 1, 0) == 1 && (one.revents & POLLIN); k++)
		take_one(r);
	otons_audit_finish(r->audit, r->log_fd, &r->write_failed);
	/* Past the budget, the last line counts what was and was not written. */
	if (r->log_fd >= 0 && r->audit->record.spent) {
		char line[512];
		struct timespec ts;
		size_t n;

		clock_gettime(CLOCK_REALTIME, &ts);
		n = record_budget_line(line, sizeof(line), &ts, "seccomp", r->session,
				       &r->audit->record, 1);
		if (n && write(r->log_fd, line, n) != (ssize_t)n && !r->write_failed)
			log_msg(LOG_WARN, errno, "unable to write the refusal log (--log-fd %d)",
				r->log_fd);
	}
	if (r->sock >= 0)
		close(r->sock);
	if (r->listener >= 0)
		close(r->listener);
	if (r->proc_fd >= 0)
		close(r->proc_fd);
	r->sock = r->listener = r->proc_fd = -1;
}
