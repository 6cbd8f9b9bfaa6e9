/* SPDX-License-Identifier: ISC */
/*
 * otonet's one input, struct otonet_opts: the option loop, then the
 * environment (OTO_GATEWAY, OTO_GATE_GO, OTO_TEST_*), each value checked
 * where it enters. Exits 0 for --help and --version, 100 for bad usage,
 * 111 when an fd given cannot be kept from the program.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "oto.h"
#include "otonet.h"

static const char USAGE[] =
    "usage: otonet [OPTION]... [--] PROG [ARG]...\n"
    "Run PROG in a new user and network namespace whose only link is a TUN\n"
    "device, relayed to the host's network through a filter: the public\n"
    "internet is reachable, private and special-purpose addresses are not.\n"
    "\n"
    "  --allow PROTO:HOST:PORT  let flows to HOST:PORT through (PROTO tcp or udp;\n"
    "                     HOST an address, [IPv6] or a name resolved once at start);\n"
    "                     repeatable\n"
    "  --allow-name PATTERN[:PORT]  let flows through to the addresses the agent's\n"
    "                     DNS answers gave for a name PATTERN matches (a name, or\n"
    "                     *.SUFFIX: the names under SUFFIX), while the answer's TTL\n"
    "                     lasts (1 min to 1 day): on PORT, any protocol; without\n"
    "                     PORT on 80 and 443, where under --no-public the TLS SNI\n"
    "                     and every HTTP request's Host must be one of those names;\n"
    "                     other names are NXDOMAIN then; repeatable\n"
    "  --public CIDR      treat CIDR as public internet (labs, tests); repeatable\n"
    "  --no-public        allowlist mode: only --allow exceptions, --allow-name\n"
    "                     names and DNS\n"
    "  --kernel-wall      also refuse the private ranges with prohibit routes in\n"
    "                     the sandbox (EACCES at once), a second wall in front of\n"
    "                     the relay; those refusals are then not in --log-fd\n"
    "  --dns IP           the resolver DNS flows go to (default: the first\n"
    "                     nameserver of /etc/resolv.conf)\n"
    "  --log-fd N         one JSON line per filter decision on fd N; run as root,\n"
    "                     also the kernel audit's socket for the otons behind\n"
    "                     (OTO_AUDIT: Landlock's refusals in its --log-fd)\n"
    "  --log-budget SIZE  bytes of the relay's lines on --log-fd (K, M, G; default\n"
    "                     64M): past it, one line says so and the rest is counted\n"
    "  --ask-fd N         a new TCP flow or DNS name that --no-public or the name\n"
    "                     rules refuse is held and asked about on fd N, a unix\n"
    "                     stream socket to a decider (one JSON request line out,\n"
    "                     \"ID allow-once|allow-session|deny\" back: otonet(1))\n"
    "  --ask-timeout SECONDS  no answer in this time is a deny (default 30)\n"
    "  --max-flows N      bound on concurrent flows (default 4096)\n"
    "  --max-half-open N  bound on TCP flows not yet established (default 256)\n"
    "  --max-udp-flows N  bound on concurrent UDP flows (default 1024)\n"
    "  --tcp-idle SECONDS an established TCP flow idle this long is reset\n"
    "                     (default 3600)\n"
    "  --udp-idle SECONDS a UDP flow idle this long is closed (default 60)\n"
    "  --busy-poll USEC   after traffic, poll this long before sleeping: lower\n"
    "                     latency for some CPU (default 50; 0: never)\n"
    "  --as USER[:GROUP]  when run by root: the unprivileged account to become first\n"
    "  -v, --verbose      more messages on stderr\n"
    "  -h, --help         this text\n"
    "      --version      the version\n"
    "\n"
    "Exit: the program's code, 128+N if it died of signal N; 100 usage, 111 system\n"
    "error, 126 not executable, 127 not found.\n";

enum {
	OPT_ALLOW = 256,
	OPT_PUBLIC,
	OPT_NOPUBLIC,
	OPT_DNS,
	OPT_LOGFD,
	OPT_LOGBUDGET,
	OPT_MAXFLOWS,
	OPT_MAXHALF,
	OPT_MAXUDP,
	OPT_TCPIDLE,
	OPT_UDPIDLE,
	OPT_BUSYPOLL,
	OPT_AS,
	OPT_ALLOWNAME,
	OPT_KERNELWALL,
	OPT_ASKFD,
	OPT_ASKTIMEOUT,
};

/*
 * OTO_GATEWAY, from otogate: the socket the relay hands the gateway's flows
 * on, and the ports it serves. Consumed: no later stage sees it, and the
 * socket closes at the child's exec.
 */
static void xgateway_take(struct otonet_opts *o)
{
	const char *v = getenv("OTO_GATEWAY");
	int type = 0, dom = 0, *fd = &o->relay.gateway_fd;
	socklen_t l = sizeof(type);

	*fd = -1;
	o->ngw = o->ngates = 0;
	if (!v)
		return;
	if (gateway_parse(v, fd, o->gw_port, &o->ngw, o->gates, &o->ngates) < 0)
		die_usage("OTO_GATEWAY=%s: not FD:PORT[=HOST:PORT][,PORT[=HOST:PORT]]... (at most "
			  "%d ports)",
			  v, NET_MAX_GATEWAY);
	if (getsockopt(*fd, SOL_SOCKET, SO_TYPE, &type, &l) < 0 ||
	    getsockopt(*fd, SOL_SOCKET, SO_DOMAIN, &dom, &l) < 0 || dom != AF_UNIX ||
	    (type != SOCK_STREAM && type != SOCK_SEQPACKET))
		die_usage("OTO_GATEWAY: fd %d is not a unix stream or seqpacket socket", *fd);
	if (fcntl(*fd, F_SETFD, FD_CLOEXEC) < 0)
		die(EXIT_SYS, errno, "unable to make the gateway's fd %d close-on-exec", *fd);
	unsetenv("OTO_GATEWAY");
}

/*
 * OTO_GATE_GO, from otogate: a pipe's read end on which the gateway writes
 * "g" once it holds the values (or which ends when it failed: it said
 * why). The child waits for it after it built the network, before the rest
 * of the chain may run; the relay has no use for it.
 */
static void xgo_take(struct otonet_opts *o)
{
	const char *v = getenv("OTO_GATE_GO");
	unsigned long fd;
	struct stat st;

	o->gate_go = -1;
	if (!v)
		return;
	/* Never standard input, output or error, as OTO_GATEWAY's socket never is. */
	if (opt_ulong(v, 65535, &fd) < 0 || fd < 3 || fstat((int)fd, &st) < 0 ||
	    !S_ISFIFO(st.st_mode))
		die_usage("OTO_GATE_GO=%s: not the fd of a pipe (3 or more)", v);
	o->gate_go = (int)fd;
	if (fcntl(o->gate_go, F_SETFD, FD_CLOEXEC) < 0)
		die(EXIT_SYS, errno, "unable to keep the gateway's go pipe from the program");
	unsetenv("OTO_GATE_GO");
}

/*
 * --ask-fd: the decider's socket is the relay's alone (close-on-exec: the
 * child's exec, so the sandbox, never has it).
 */
static void xask_take(struct otonet_opts *o)
{
	int type = 0, dom = 0, fd = o->relay.ask_fd;
	socklen_t l = sizeof(type);

	o->relay.ask = fd >= 0;
	if (fd < 0)
		return;
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &l) < 0 ||
	    getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &dom, &l) < 0 || dom != AF_UNIX ||
	    type != SOCK_STREAM)
		die_usage("--ask-fd %d: not a unix stream socket", fd);
	if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0)
		die(EXIT_SYS, errno, "unable to make the decider's fd %d close-on-exec", fd);
}

/* The environment's part, after argv: the switches for tests and benchmarks first. */
static void xenv_take(struct otonet_opts *o)
{
	struct relay_cfg *c = &o->relay;

	c->no_peek_off = (int)xtest_switch("OTO_TEST_NO_PEEK_OFF", 0, 0, 1,
					   "the relay's buffered path, as without SO_PEEK_OFF");
	c->badcall = (int)xtest_switch("OTO_TEST_RELAY_BADCALL", 0, 0, 1,
				       "SIGUSR2 makes the relay call outside its seccomp filter");
	o->tun_mtu =
	    (unsigned int)xtest_switch("OTO_TEST_TUN_MTU", NET_MTU, 1280, NET_MTU, "the TUN's MTU");
	c->name_ttl_min = xtest_switch("OTO_TEST_NAME_TTL_MIN", NAMES_TTL_MIN, 1, NAMES_TTL_MIN,
				       "the shortest life of a name binding, in seconds");
	c->clock_fd = (int)xtest_switch("OTO_TEST_CLOCK_FD", 0, 3, 1023,
					"each byte read on it moves the relay's clock a second on");
	if (c->clock_fd && fcntl(c->clock_fd, F_SETFD, FD_CLOEXEC) < 0)
		die(EXIT_SYS, errno, "unable to keep OTO_TEST_CLOCK_FD=%d from the program",
		    c->clock_fd);
	xgateway_take(o);
	xgo_take(o);
	xask_take(o);
}

void xotonet_parse(struct otonet_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "allow", required_argument, NULL, OPT_ALLOW },
		{ "allow-name", required_argument, NULL, OPT_ALLOWNAME },
		{ "public", required_argument, NULL, OPT_PUBLIC },
		{ "no-public", no_argument, NULL, OPT_NOPUBLIC },
		{ "kernel-wall", no_argument, NULL, OPT_KERNELWALL },
		{ "dns", required_argument, NULL, OPT_DNS },
		{ "log-fd", required_argument, NULL, OPT_LOGFD },
		{ "log-budget", required_argument, NULL, OPT_LOGBUDGET },
		{ "ask-fd", required_argument, NULL, OPT_ASKFD },
		{ "ask-timeout", required_argument, NULL, OPT_ASKTIMEOUT },
		{ "max-flows", required_argument, NULL, OPT_MAXFLOWS },
		{ "max-half-open", required_argument, NULL, OPT_MAXHALF },
		{ "max-udp-flows", required_argument, NULL, OPT_MAXUDP },
		{ "tcp-idle", required_argument, NULL, OPT_TCPIDLE },
		{ "udp-idle", required_argument, NULL, OPT_UDPIDLE },
		{ "busy-poll", required_argument, NULL, OPT_BUSYPOLL },
		{ "as", required_argument, NULL, OPT_AS },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ 0 },
	};
	char host[256];
	int c, proto;
	uint16_t port;
	unsigned long n;
	struct ipaddr ip;

	memset(o, 0, sizeof(*o));
	o->relay.log_fd = -1;
	o->relay.log_budget = RECORD_BUDGET;
	o->relay.ask_fd = -1;
	o->relay.ask_timeout_ms = 30 * 1000;
	o->relay.max_flows = 4096;
	o->relay.max_half_open = 256;
	o->relay.max_udp_flows = 1024;
	o->relay.tcp_idle_ms = 3600 * 1000;
	o->relay.udp_idle_ms = 60 * 1000;
	o->relay.busy_poll_us = 50;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:hv", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_ALLOW:
			if (rule_split(optarg, &proto, host, sizeof(host), &port) < 0)
				die_usage("--allow %s: expected tcp:HOST:PORT or udp:HOST:PORT",
					  optarg);
			if (o->nallow == NET_MAX_ALLOW)
				die_usage("--allow: at most %d exceptions", NET_MAX_ALLOW);
			o->allow_spec[o->nallow++] = optarg;
			break;
		case OPT_ALLOWNAME:
			if (o->nnames == NET_MAX_NAMES)
				die_usage("--allow-name: at most %d rules", NET_MAX_NAMES);
			if (name_rule_parse(optarg, o->names[o->nnames].pat,
					    &o->names[o->nnames].port) < 0)
				die_usage(
				    "--allow-name %s: expected NAME or *.SUFFIX (two labels at "
				    "least), then :PORT (1 to 65535) or nothing",
				    optarg);
			o->nnames++;
			break;
		case OPT_PUBLIC:
			if (o->npub == NET_MAX_PUBLIC)
				die_usage("--public: at most %d ranges", NET_MAX_PUBLIC);
			if (cidr_parse(optarg, &o->pub[o->npub]) < 0)
				die_usage("--public %s: not a CIDR prefix", optarg);
			o->npub++;
			break;
		case OPT_NOPUBLIC:
			o->no_public = 1;
			break;
		case OPT_KERNELWALL:
			o->kernel_wall = 1;
			break;
		case OPT_DNS:
			if (ipaddr_parse(optarg, &ip) < 0)
				die_usage("--dns %s: not an IP address", optarg);
			o->dns = optarg;
			break;
		case OPT_LOGFD:
			if (opt_ulong(optarg, 1 << 20, &n) < 0)
				die_usage("--log-fd %s: not a file descriptor", optarg);
			o->relay.log_fd = (int)n;
			break;
		case OPT_LOGBUDGET:
			if (record_budget_parse(optarg, &o->relay.log_budget) < 0)
				die_usage("--log-budget %s: expected 4K to 1T bytes", optarg);
			break;
		case OPT_ASKFD:
			if (opt_ulong(optarg, 1 << 20, &n) < 0 || n < 3)
				die_usage("--ask-fd %s: not a file descriptor from 3", optarg);
			o->relay.ask_fd = (int)n;
			break;
		case OPT_ASKTIMEOUT:
			if (opt_ulong(optarg, 3600, &n) < 0 || n == 0)
				die_usage("--ask-timeout %s: expected 1 to 3600 seconds", optarg);
			o->relay.ask_timeout_ms = (uint64_t)n * 1000;
			break;
		case OPT_MAXFLOWS:
			if (opt_ulong(optarg, 65536, &n) < 0 || n == 0)
				die_usage("--max-flows %s: expected 1 to 65536", optarg);
			o->relay.max_flows = n;
			break;
		case OPT_MAXHALF:
			if (opt_ulong(optarg, 65536, &n) < 0 || n == 0)
				die_usage("--max-half-open %s: expected 1 to 65536", optarg);
			o->relay.max_half_open = n;
			break;
		case OPT_MAXUDP:
			if (opt_ulong(optarg, 65536, &n) < 0 || n == 0)
				die_usage("--max-udp-flows %s: expected 1 to 65536", optarg);
			o->relay.max_udp_flows = n;
			break;
		case OPT_TCPIDLE:
		case OPT_UDPIDLE:
			/* A week at most: idle flows hold host sockets. */
			if (opt_ulong(optarg, 604800, &n) < 0 || n == 0)
				die_usage("--%s %s: expected 1 to 604800 seconds",
					  c == OPT_TCPIDLE ? "tcp-idle" : "udp-idle", optarg);
			if (c == OPT_TCPIDLE)
				o->relay.tcp_idle_ms = (uint64_t)n * 1000;
			else
				o->relay.udp_idle_ms = (uint64_t)n * 1000;
			break;
		case OPT_BUSYPOLL:
			if (opt_ulong(optarg, 1000, &n) < 0)
				die_usage("--busy-poll %s: expected 0 to 1000 microseconds",
					  optarg);
			o->relay.busy_poll_us = n;
			break;
		case OPT_AS:
			o->as = optarg;
			break;
		default:
			xopt_common(c, USAGE, argv);
			break;
		}
	}
	if (optind >= argc)
		die_usage("no program to run (see --help)");
	o->argv = argv + optind;
	xenv_take(o);
}
