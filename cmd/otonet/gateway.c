/* SPDX-License-Identifier: ISC */
/*
 * The relay's way to otogate (OTO_GATEWAY): a flow for the gateway gets one
 * end of a new socket pair as its host socket, the other end handed to
 * otogate with the port it is for. flow.c opens a gateway flow so;
 * namecheck.c hands a transparent grant's flow over so, once its
 * ClientHello named the grant's host.
 */
#include <errno.h>
#include <stdint.h>
#include <sys/socket.h>

#include "oto.h"
#include "otonet.h"
#include "relay.h"

/*
 * A gateway flow's host socket: one end of a new socket pair, the other end
 * sent to otogate on its socket with the port the agent asked for (one
 * message: the port as an int, the fd by SCM_RIGHTS; MSG_DONTWAIT, as the
 * relay never waits). The fd, or -1 with errno (a dead or saturated gateway:
 * the agent's flow is refused, nothing goes any other way).
 */
#define GATEWAY_SNDBUF (256 * 1024)
int gateway_socket(struct relay *r, uint16_t port)
{
	int sv[2], msg = port, sndbuf = GATEWAY_SNDBUF;
	struct fd_msg x;
	ssize_t n;

	if (r->sys->socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) < 0)
		return -1;
	/*
	 * Each way's send buffer, the relay's (the agent's upload) and the
	 * gateway's (the response), at GATEWAY_SNDBUF rather than wmem_default:
	 * the relay's window towards the agent is this buffer's room, and a
	 * small one made the agent wait for the gateway at every few segments.
	 * The kernel caps it at wmem_max and doubles it; a failure leaves the
	 * default, slower and no less correct.
	 */
	for (int i = 0; i < 2; i++)
		r->sys->setsockopt(sv[i], SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	fd_msg_init(&x, &msg, sizeof(msg), sv[1]);
	n = r->sys->sendmsg(r->cfg->gateway_fd, &x.m, MSG_DONTWAIT | MSG_NOSIGNAL);
	r->sys->close(sv[1]);
	if (n != (ssize_t)sizeof(msg)) {
		int e = n < 0 ? errno : EPROTO;

		r->sys->close(sv[0]);
		errno = e;
		return -1;
	}
	return sv[0];
}
