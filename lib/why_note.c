/* SPDX-License-Identifier: ISC */
/*
 * A writer's side of the agent's file (OTO_WHY): the file's fd comes once,
 * from otomount, on the socket the writer offered (why_offer.c); until
 * then a line has nowhere to go (the agent does not run yet). Each writer
 * keeps to WHY_BUDGET bytes of its own, and then writes one last line that
 * says the rest is in the operator's record.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "oto.h"

/* The file, if it came: 1, or 0 (none yet, or never). */
static int why_take(struct why *w)
{
	int fd, fl;

	if (w->fd >= 0)
		return 1;
	if (w->sock < 0)
		return 0;
	fd = fd_recv(w->sock);
	if (fd < 0 && errno == EAGAIN)
		return 0;
	close(w->sock);
	w->sock = -1;
	if (fd < 0)
		return 0;
	/*
	 * Never blocks: otomount's file is a tmpfs file, but whatever came on
	 * the socket is written with O_NONBLOCK, so not even a pipe could hold
	 * a writer (the relay) up.
	 */
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY ||
	    fcntl(fd, F_SETFL, fl | O_APPEND | O_NONBLOCK) < 0) {
		close(fd);
		return 0;
	}
	w->fd = fd;
	w->left = WHY_BUDGET;
	return 1;
}

void why_note(struct why *w, const char *line, size_t n)
{
	char out[WHY_LINE_MAX];
	uint32_t h;
	size_t k;

	if (w->spent || !why_take(w))
		return;
	k = why_format(out, sizeof(out), line, n);
	if (!k)
		return;
	/* The same line again (a client retrying, without the record's counts) says nothing new. */
	h = 2166136261u;
	for (size_t i = 0; i < k; i++)
		h = (h ^ (uint8_t)out[i]) * 16777619u;
	if (h == w->last)
		return;
	w->last = h;
	if (k > w->left) {
		k = (size_t)snprintf(out, sizeof(out),
				     "%s: more than this file holds of its lines (%lu bytes); "
				     "the rest are in the operator's record only\n",
				     w->who, (unsigned long)WHY_BUDGET);
		w->spent = 1;
	} else {
		w->left -= k;
	}
	/* One write per line: the writers' lines never mix. */
	if (write(w->fd, out, k) < 0)
		w->spent = 1;
}
