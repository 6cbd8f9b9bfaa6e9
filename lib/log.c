/* SPDX-License-Identifier: ISC */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oto.h"

const char *log_prog = "oto";
int log_verbosity = LOG_INFO;
void (*log_at_die)(void);
void (*log_before_die)(void);

void log_init(const char *argv0)
{
	const char *slash = argv0 ? strrchr(argv0, '/') : NULL;

	if (argv0 && *argv0)
		log_prog = slash ? slash + 1 : argv0;
}

static void log_write(enum log_level lvl, int err, const char *fmt, va_list ap, char *buf,
		      size_t size)
{
	int saved = errno;
	size_t n = log_format(buf, size, log_prog, lvl, err, fmt, ap);
	ssize_t w;

	do
		w = write(2, buf, n);
	while (w < 0 && errno == EINTR);
	errno = saved;
}

void log_msg(enum log_level lvl, int err, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	if ((int)lvl > log_verbosity)
		return;
	va_start(ap, fmt);
	log_write(lvl, err, fmt, ap, buf, sizeof(buf));
	va_end(ap);
}

/*
 * The message, then ": strerror(err)" when err is set, then hint (" (the
 * fix)"), in one write; the status line carries the same text and err.
 */
static noreturn void vdie(int code, int err, const char *hint, const char *fmt, va_list ap)
{
	char buf[1024];
	size_t skip = strlen(log_prog) + strlen(": fatal: ");
	size_t n;
	ssize_t w;

	if (log_before_die)
		log_before_die();
	n = log_format(buf, sizeof(buf), log_prog, LOG_FATAL, err, fmt, ap);
	if (hint && *hint && n > 0) {
		size_t h = strlen(hint);

		n--; /* the newline goes after the hint */
		if (h > sizeof(buf) - 2 - n)
			h = sizeof(buf) - 2 - n;
		memcpy(buf + n, hint, h);
		n += h;
		buf[n++] = '\n';
		buf[n] = 0;
	}
	do
		w = write(2, buf, n);
	while (w < 0 && errno == EINTR);
	/* The status line carries the same message, without prefix and newline. */
	buf[strcspn(buf, "\n")] = 0;
	status_report(code, err, strlen(buf) > skip ? buf + skip : buf);
	if (log_at_die)
		log_at_die();
	_exit(code);
}

void die(int code, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdie(code, err, NULL, fmt, ap);
}

void die_hint(int code, int err, const char *hint, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdie(code, err, hint, fmt, ap);
}

void die_usage(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdie(EXIT_USAGE, 0, NULL, fmt, ap);
}
