/* SPDX-License-Identifier: ISC */
/*
 * otoask: a terminal decider for otonet --ask-fd (otorun --ask): each
 * request the relay writes is shown as one line on the terminal, with a
 * countdown; y allows once, a for the session, n (or Enter, or the
 * countdown's end) denies; the answer goes back on the socket.
 *
 * Consumes: argv; the --fd socket, or the one connection to --listen;
 * the terminal (/dev/tty).
 * Writes: --save FILE, the otorun config lines of what was allowed.
 * Exits: 0 when the session's socket ended; 100 usage, 111 a system call
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
	/* 2. The relay's socket: given, or the first connection to --listen. */
	sock = xask_socket(&o);
	/* 3. Ask, answer, until the session ends. */
	xask_serve(&o, sock);
}
