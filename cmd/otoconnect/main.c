/* SPDX-License-Identifier: ISC */
/*
 * otoconnect: a stdio program behind a Unix socket, and back. A tool runs in
 * a chain of its own (its own view, network exceptions, uid); the agent
 * reaches it only through the socket, bound into its view by otomount
 * --socket, with otoconnect as the client its configuration names.
 *
 * Consumes: argv; OTO_STATUS_FD (reported to). Client: stdin, stdout.
 * Passes on (--serve): the rest of argv, exec'd once per connection with
 * pipes to and from the connection as stdin and stdout (relay.c: bytes
 * only, never a descriptor); stderr, the environment and every other
 * inherited fd unchanged.
 * Exits: client 0 when the socket's data ended; 100 usage, 111 a system call
 * failed (connect, listen, a read or write). --serve runs until a signal;
 * a connection's failure never ends it. The tool's processes exit 126/127
 * when PROG cannot be run.
 */
#include "oto.h"
#include "otoconnect.h"

int main(int argc, char **argv)
{
	struct otoconnect_opts o;

	log_init(argv[0]);
	xotoconnect_parse(&o, argc, argv);
	if (o.serve)
		xserve_run(&o);
	xclient_run(&o);
}
