/* SPDX-License-Identifier: ISC */
/*
 * A writer's offer for the agent's file: a socket pair, the chain's end
 * added to OTO_WHY_FD (a list: otogate, otonet and otons each add theirs)
 * for otomount, which makes the file and sends its fd on every end listed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "oto.h"

void why_init(struct why *w, const char *who)
{
	w->sock = w->child = w->fd = -1;
	w->left = 0;
	w->spent = 0;
	w->last = 0;
	w->who = who;
}

int why_offer(struct why *w)
{
	const char *old = getenv("OTO_WHY_FD");
	char val[256];
	int sv[2], e;

	/* Ours non-blocking: why_note looks for the fd without waiting. */
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -1;
	if (fcntl(sv[0], F_SETFL, O_NONBLOCK) < 0 || fd_cloexec(sv[1], 0) < 0)
		goto fail;
	if (old && *old)
		snprintf(val, sizeof(val), "%s,%d", old, sv[1]);
	else
		snprintf(val, sizeof(val), "%d", sv[1]);
	if (strlen(val) >= sizeof(val) - 1 || setenv("OTO_WHY_FD", val, 1) < 0) {
		errno = E2BIG;
		goto fail;
	}
	w->sock = sv[0];
	w->child = sv[1];
	return 0;
fail:
	e = errno;
	close(sv[0]);
	close(sv[1]);
	errno = e;
	return -1;
}

void why_parent(struct why *w)
{
	if (w->child >= 0)
		close(w->child);
	w->child = -1;
}
