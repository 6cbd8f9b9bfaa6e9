/* SPDX-License-Identifier: ISC */
/*
 * The tool's side: listen on a new socket, and give each connection to a new
 * process of the tool, on its stdin and stdout (the ucspi way: s6-ipcserver,
 * tcpserver), through pipes that relay.c fills and drains. At most --max at
 * once: past that, connections wait in the listen backlog, unaccepted, and a
 * client's connect(2) waits (or fails with EAGAIN when non-blocking) once the
 * backlog is full too. Nothing a client does ends the server: a connection
 * that fails, a tool that crashes, too many files or processes for now are
 * each one line, then the next.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "oto.h"
#include "otoconnect.h"

#define BACKLOG 64

static int xlisten(const struct otoconnect_opts *o)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	mode_t old;

	if (s < 0)
		die(EXIT_SYS, errno, "unable to make a Unix socket");
	memcpy(sa.sun_path, o->path, strlen(o->path) + 1); /* fits: connect_path_ok */
	/*
	 * bind(2) creates the file with 0777 & ~umask: the mode is right from
	 * its first instant, no chmod after a moment when anyone may connect.
	 * An existing file is never removed (EADDRINUSE): it could be anyone's.
	 */
	old = umask(0777 & ~o->mode);
	if (bind(s, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		die(EXIT_SYS, errno, "unable to bind the socket %s%s", o->path,
		    errno == EADDRINUSE ? " (it exists: remove it, or choose another)" : "");
	umask(old);
	if (listen(s, BACKLOG) < 0)
		die(EXIT_SYS, errno, "unable to listen on %s", o->path);
	return s;
}

/* Collect the tool processes that ended; block for one when hang. */
static unsigned long reap(unsigned long running, int hang)
{
	int status;
	pid_t pid;

	while (running && (pid = waitpid(-1, &status, hang ? 0 : WNOHANG)) != 0) {
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			return 0; /* ECHILD: none left */
		}
		debugx("connection process %d ended: %d (the tool's code)", (int)pid,
		       wait_code(status));
		running--;
		hang = 0;
	}
	return running;
}

/* A transient shortage (files, processes, memory): not the client's fault, not fatal. */
static void pause_briefly(void)
{
	struct timespec t = { 0, 50 * 1000 * 1000 };

	nanosleep(&t, NULL);
}

void xserve_run(const struct otoconnect_opts *o)
{
	unsigned long running = 0;
	int s = xlisten(o);

	/* A client gone must not kill the server through a write of ours. */
	signal(SIGPIPE, SIG_IGN);
	debugx("serving %s: %s, at most %lu at once", o->path, o->argv[0], o->max);
	for (;;) {
		pid_t pid;
		int c;

		running = reap(running, running >= o->max);
		if (running >= o->max)
			continue;
		c = accept4(s, NULL, NULL, SOCK_CLOEXEC);
		if (c < 0) {
			switch (errno) {
			case EINTR:
			case ECONNABORTED:
			case EPROTO:
				continue;
			case EMFILE:
			case ENFILE:
			case ENOBUFS:
			case ENOMEM:
				warnx("unable to accept on %s: %s (retrying)", o->path,
				      strerror(errno));
				pause_briefly();
				continue;
			default:
				die(EXIT_SYS, errno, "unable to accept on %s", o->path);
			}
		}
		pid = fork();
		if (pid == 0)
			xrelay_run(o, s, c);
		if (pid < 0) {
			warnx("unable to fork for a connection on %s: %s (dropped)", o->path,
			      strerror(errno));
			pause_briefly();
		} else {
			running++;
			debugx("connection: process %d (a relay and the tool)", (int)pid);
		}
		close(c);
	}
}
