/* SPDX-License-Identifier: ISC */
/*
 * The session's record (oto.h): its id, who opens it; its first and last
 * lines written (session_line.c makes them).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "oto.h"

static long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void xsession_begin(struct session *s, int log_fd)
{
	const char *id = getenv("OTO_SESSION"), *mark = getenv("OTO_SESSION_LOG");
	char file[64];
	struct stat st;

	memset(s, 0, sizeof(*s));
	s->start_ns = mono_ns();
	if (id) {
		if (!session_id_ok(id))
			die_usage(
			    "OTO_SESSION=%.80s: not a session id (1 to %d of A-Z a-z 0-9 . _ : -)",
			    id, SESSION_ID_MAX);
		strcpy(s->id, id);
	} else {
		unsigned char rnd[16];

		if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
			die(EXIT_SYS, errno, "unable to make the session's id (getrandom)");
		for (size_t i = 0; i < sizeof(rnd); i++)
			snprintf(s->id + 2 * i, 3, "%02x", rnd[i]);
		if (setenv("OTO_SESSION", s->id, 1) < 0)
			die(EXIT_SYS, errno, "unable to set OTO_SESSION");
	}
	if (log_fd < 0 || fstat(log_fd, &st) < 0)
		return;
	snprintf(file, sizeof(file), "%llu:%llu", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino);
	if (mark && !strcmp(mark, file)) {
		s->inherits = 1;
		return;
	}
	s->opens = 1;
	if (setenv("OTO_SESSION_LOG", file, 1) < 0)
		die(EXIT_SYS, errno, "unable to set OTO_SESSION_LOG");
}

static void session_write(int log_fd, const char *line, size_t n)
{
	if (n && write(log_fd, line, n) != (ssize_t)n)
		log_msg(LOG_WARN, errno, "unable to write the session's line to --log-fd %d",
			log_fd);
}

void session_open(const struct session *s, int log_fd, const char *stage, const char *const argv[])
{
	char line[16384];
	char account[256];
	struct timespec ts;
	uid_t uid = geteuid();

	if (!s->opens)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	session_write(
	    log_fd, line,
	    session_open_line(line, sizeof(line), &ts, s, stage, (unsigned int)uid,
			      user_name(uid, account, sizeof(account)) < 0 ? NULL : account, argv));
}

void session_close(const struct session *s, int log_fd, int code, enum session_end end,
		   int grace_kill)
{
	char line[512];
	struct timespec ts;

	if (!s->opens && !(end == SESSION_END_PARENT && s->inherits))
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	session_write(log_fd, line,
		      session_close_line(line, sizeof(line), &ts, s, code, end, grace_kill,
					 mono_ns() - s->start_ns));
}
