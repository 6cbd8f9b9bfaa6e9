/* SPDX-License-Identifier: ISC */
/*
 * otoask: a terminal decider for otonet --ask-fd (otorun --ask), for
 * many sessions at once: each request a relay writes is shown as one line
 * on the terminal, with who asks and a countdown; y allows once, a for the
 * session, n (or Enter, or the countdown's end) denies; the answer goes
 * back on that session's socket. A session on otoask's own terminal ends
 * it: its agent could type the answers.
 *
 * Consumes: argv; the --fd socket, or the connections to --listen;
 * the terminal (/dev/tty).
 * Writes: --save FILE, the otorun config lines of what was allowed.
 * Exits: 0 when the session ended (--once, --fd); 128+N on signal N; 100
 * usage, 101 a session on otoask's own terminal, 111 a system call
 * failed (the socket, the terminal, --save).
 */
#include "oto.h"
#include "otoask.h"

int main(int argc, char **argv)
{
	struct otoask_opts o;
	int sock;

	log_init(argv[0]);
	/* 1. The options, and the terminal to ask at. */
	xotoask_parse(&o, argc, argv);
	o.tty = "/dev/tty";
	/* 2. The session's socket (--fd), or the one sessions connect to. */
	sock = xask_socket(&o);
	/* 3. Ask, answer, until the session ends (--once, --fd) or a signal. */
	xask_serve(&o, sock);
}
