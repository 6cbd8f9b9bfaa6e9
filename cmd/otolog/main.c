/* SPDX-License-Identifier: ISC */
/*
 * otolog: a --log-fd record (one session's or many's, interleaved) read
 * for a person: per session what was refused, grouped and counted, and
 * what was asked and decided (--json: the same as JSON); --policy, the
 * otorun config lines that would have allowed it, for review; --follow, a
 * line per refusal as it comes.
 *
 * Consumes: argv; the files it names, else stdin (untrusted: the agent
 * chose names and paths in them). Writes: stdout; a warning on stderr
 * for the lines it could not read.
 * Exits: 0 every line read; 101 some were not (malformed, too long, cut:
 * the summary is of the rest); 100 usage; 111 a file cannot be opened or
 * read, or memory ran out.
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "oto.h"
#include "otolog.h"

/* What is in c's output so far, to stdout. */
static void xflush(struct otolog *c)
{
	if (c->out.failed)
		die(EXIT_SYS, ENOMEM, "unable to write the summary");
	if (c->out.len && fd_write_all(1, c->out.buf, c->out.len) < 0)
		die(EXIT_SYS, errno, "unable to write to stdout");
	c->out.len = 0;
}

static void xread_fd(struct otolog *c, int fd, const char *name)
{
	static char buf[65536]; /* the reads' scratch, off the stack */
	ssize_t n;

	for (;;) {
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die(EXIT_SYS, errno, "unable to read %s", name);
		if (!n)
			return;
		if (otolog_feed(c, buf, (size_t)n) < 0)
			die(EXIT_SYS, errno, "unable to read %s: out of memory", name);
		/* --follow: each refusal's line as soon as it is read. */
		if (c->follow)
			xflush(c);
	}
}

int main(int argc, char **argv)
{
	struct otolog_opts o;
	struct otolog c;
	char warn[512];

	log_init(argv[0]);
	/* 1. The options. */
	xotolog_parse(&o, argc, argv);
	if (otolog_init(&c, o.mode, o.follow) < 0)
		die(EXIT_SYS, errno, "unable to start: out of memory");
	/* 2. The record: each file in turn, one stream (a session may go on in the next). */
	if (!*o.files)
		xread_fd(&c, 0, "stdin");
	for (char **f = o.files; *f; f++) {
		int fd = open(*f, O_RDONLY | O_CLOEXEC);

		if (fd < 0)
			die(EXIT_SYS, errno, "unable to open %s", *f);
		xread_fd(&c, fd, *f);
		close(fd);
	}
	/* 3. The summary, then what could not be read. */
	if (otolog_end(&c) < 0)
		die(EXIT_SYS, errno, "unable to make the summary");
	xflush(&c);
	otolog_skipped_text(&c, warn, sizeof(warn));
	if (*warn)
		warnx("%s", warn);
	return otolog_skipped(&c) ? EXIT_REJECT : 0;
}
