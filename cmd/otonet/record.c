/* SPDX-License-Identifier: ISC */
/*
 * The relay's lines on --log-fd (relay.h, "record.c"), bounded as otons'
 * are (lib/record_thin.c): a flood of one kind is thinned to its first
 * RECORD_FIRST lines and then each power of ten, each line with the kind's
 * count, and the relay's lines together never pass the byte budget. One
 * thread refusing connects in a loop wrote 38 MiB in 5 s before; a kind
 * needs a line of about 200 bytes 14 times for 100,000 decisions.
 *
 * A kind's key is kept whole (not a hash of it), so no name the agent
 * picks can share another's count and hide its lines. The table holds
 * RECORD_KEYS / 4 * 3 kinds for the session; a line of a kind past that
 * is written as it comes, without a count, and the budget bounds them.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "oto.h"
#include "otonet.h"
#include "relay.h"

int record_init(struct record *rc, int log_fd, unsigned long long budget)
{
	memset(rc, 0, sizeof(*rc));
	rc->budget.budget = rc->budget.left = budget ? budget : RECORD_BUDGET;
	if (log_fd < 0)
		return 0;
	rc->kinds = calloc(RECORD_KEYS, sizeof(*rc->kinds));
	if (!rc->kinds) {
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

void record_fini(struct record *rc)
{
	free(rc->kinds);
	rc->kinds = NULL;
}

/*
 * The count of key's kind, this line included (open addressing, linear
 * probing); 0 when the table has no room for a new kind.
 */
static unsigned long kind_count(struct record *rc, const char *key)
{
	uint32_t h = 2166136261u;
	size_t n = strlen(key);

	if (n >= RECORD_KEY_MAX)
		n = RECORD_KEY_MAX - 1;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (uint8_t)key[i]) * 16777619u;
	for (unsigned long k = 0; k < RECORD_KEYS; k++) {
		struct record_kind *s = &rc->kinds[(h + k) % RECORD_KEYS];

		if (!s->count) {
			/* Three quarters full: the rest share a count, the probes stay short. */
			if (rc->used >= RECORD_KEYS / 4 * 3)
				break;
			s->hash = h;
			memcpy(s->key, key, n);
			s->key[n] = 0;
			rc->used++;
			return ++s->count;
		}
		if (s->hash == h && !strncmp(s->key, key, n) && !s->key[n]) {
			if (s->count < UINT32_MAX)
				s->count++;
			return s->count;
		}
	}
	return 0;
}

/*
 * line's n bytes, if the budget allows; the line that says it is spent,
 * once. The agent's short line for it too (lib/why_note.c: its own bound).
 */
static void record_write(struct relay *r, const char *source, const char *line, size_t n)
{
	char notice[512];
	struct timespec ts;
	int take;

	if (r->cfg->why)
		why_note(r->cfg->why, line, n);
	if (r->cfg->log_fd < 0)
		return;
	take = record_budget_take(&r->rec.budget, n);
	if (take < 0) {
		r->sys->clock_gettime(CLOCK_REALTIME, &ts);
		n = record_budget_line(notice, sizeof(notice), &ts, source, r->cfg->session->id,
				       &r->rec.budget, 0);
		line = notice;
	} else if (!take) {
		return;
	}
	if (n && r->sys->write(r->cfg->log_fd, line, n) < 0)
		log_msg(LOG_DEBUG, errno, "relay: unable to write a decision to --log-fd");
}

/* fmt's text after the head into line: its length, 0 when it does not fit. */
static size_t format(struct relay *r, char *line, size_t size, const char *source, const char *fmt,
		     va_list ap)
{
	struct timespec ts;
	int h, n;

	r->sys->clock_gettime(CLOCK_REALTIME, &ts);
	h = event_head(line, size, &ts, source, r->cfg->session->id);
	if (!h)
		return 0;
	n = vsnprintf(line + h, size - (size_t)h, fmt, ap);
	/* A line that does not fit is not written: never a cut one. */
	if (n <= 0 || (size_t)n >= size - (size_t)h)
		return 0;
	return (size_t)h + (size_t)n;
}

void relay_log(struct relay *r, const char *source, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	size_t n;

	if (r->cfg->log_fd < 0 && !r->cfg->why)
		return;
	va_start(ap, fmt);
	n = format(r, line, sizeof(line), source, fmt, ap);
	va_end(ap);
	if (n)
		record_write(r, source, line, n);
}

void relay_log_thin(struct relay *r, const char *source, const char *key, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	unsigned long count;
	size_t n;
	int k;

	if (!r->rec.kinds) {
		/*
		 * No record, no table of kinds (its memory is the log's): the
		 * agent's file alone gets the line, unthinned; its budget bounds
		 * it, and why_note drops a line that repeats the one before.
		 */
		if (!r->cfg->why)
			return;
		va_start(ap, fmt);
		n = format(r, line, sizeof(line), source, fmt, ap);
		va_end(ap);
		if (n)
			why_note(r->cfg->why, line, n);
		return;
	}
	count = kind_count(&r->rec, key);
	if (count && !record_worth_a_line(count))
		return;
	va_start(ap, fmt);
	n = format(r, line, sizeof(line), source, fmt, ap);
	va_end(ap);
	if (n < 2 || memcmp(line + n - 2, "}\n", 2))
		return;
	/* The first of a kind stands for itself: its count, 1, goes without saying. */
	if (count <= 1) {
		record_write(r, source, line, n);
		return;
	}
	k = snprintf(line + n - 2, sizeof(line) - (n - 2), ",\"count\":%lu}\n", count);
	if (k <= 0 || (size_t)k >= sizeof(line) - (n - 2))
		return;
	record_write(r, source, line, n - 2 + (size_t)k);
}

void relay_log_end(struct relay *r)
{
	char line[512];
	struct timespec ts;
	size_t n;

	if (r->cfg->log_fd < 0 || !r->rec.budget.spent)
		return;
	r->sys->clock_gettime(CLOCK_REALTIME, &ts);
	n = record_budget_line(line, sizeof(line), &ts, "net", r->cfg->session->id, &r->rec.budget,
			       1);
	if (n && r->sys->write(r->cfg->log_fd, line, n) < 0)
		log_msg(LOG_DEBUG, errno, "relay: unable to write the record's last line");
}
