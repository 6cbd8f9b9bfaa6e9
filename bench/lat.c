/* SPDX-License-Identifier: ISC */
/*
 * lat: round trips of small messages, with as little of its own time in the
 * figure as a program can have (bench/net.sh builds it with cc).
 *
 *   lat serve PORT             TCP and UDP echo on PORT (one process each,
 *                              a process per TCP connection); runs until the
 *                              first process is killed
 *   lat tcp|udp HOST PORT N    N round trips of 32 bytes over one connection
 *                              (TCP_NODELAY) or one connected UDP socket;
 *                              prints "P50 P99" in microseconds
 *   lat http PORT              an HTTP/1.1 server (a process per connection,
 *                              keep-alive) that reads each request's body
 *                              (Content-Length) and answers 200 "ok"
 *   lat post HOST PORT SIZE N  N POSTs of SIZE bytes, each on a new
 *                              connection, written as curl writes them
 *                              (TCP_NODELAY, the header, then the body in
 *                              64 KiB writes); prints "P50 P90 CPU" in
 *                              microseconds, from connect to the answer;
 *                              CPU: the machine's busy time per POST (all
 *                              its cores in /proc/stat: user, nice,
 *                              system, irq, softirq), over the timed ones
 *
 * Exit 0; 1 on usage; 2 when a call fails or a round trip is lost (UDP:
 * no reply within 1 s).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MSG 32

static void fail(const char *what)
{
	fprintf(stderr, "lat: %s: %s\n", what, strerror(errno));
	exit(2);
}

static int bound(int type, int port)
{
	struct sockaddr_in6 a = { .sin6_family = AF_INET6, .sin6_port = htons((uint16_t)port) };
	int one = 1, fd = socket(AF_INET6, type, 0);

	if (fd < 0)
		fail("socket");
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
		fail("bind");
	return fd;
}

static void serve_tcp(int port)
{
	int l = bound(SOCK_STREAM, port), one = 1;

	if (listen(l, 64) < 0)
		fail("listen");
	signal(SIGCHLD, SIG_IGN);
	for (;;) {
		char b[4096];
		ssize_t n;
		int c = accept(l, NULL, NULL);

		if (c < 0)
			continue;
		if (fork() != 0) {
			close(c);
			continue;
		}
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		while ((n = read(c, b, sizeof(b))) > 0)
			if (write(c, b, (size_t)n) != n)
				break;
		_exit(0);
	}
}

static void serve_udp(int port)
{
	int u = bound(SOCK_DGRAM, port);

	for (;;) {
		struct sockaddr_in6 from;
		socklen_t fl = sizeof(from);
		char b[4096];
		ssize_t n = recvfrom(u, b, sizeof(b), 0, (struct sockaddr *)&from, &fl);

		if (n >= 0)
			sendto(u, b, (size_t)n, 0, (struct sockaddr *)&from, fl);
	}
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void client(int udp, const char *host, int port, int n)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	double *t = calloc((size_t)n, sizeof(*t));
	char m[MSG], r[MSG];
	int one = 1, fd;

	if (!t || inet_pton(AF_INET, host, &a.sin_addr) != 1) {
		fprintf(stderr, "lat: %s: not an IPv4 address\n", host);
		exit(1);
	}
	fd = socket(AF_INET, udp ? SOCK_DGRAM : SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
		fail("connect");
	if (!udp)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	memset(m, 'x', sizeof(m));
	for (int i = 0; i < n + 50; i++) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		double t0 = now_us();
		size_t got = 0;

		if (write(fd, m, sizeof(m)) != (ssize_t)sizeof(m))
			fail("write");
		while (got < sizeof(r)) {
			ssize_t k;

			if (poll(&p, 1, 1000) != 1) {
				errno = ETIMEDOUT;
				fail("no reply");
			}
			k = read(fd, r + got, sizeof(r) - got);
			if (k <= 0)
				fail("read");
			got += (size_t)k;
		}
		if (i >= 50) /* the first 50: warm-up */
			t[i - 50] = now_us() - t0;
	}
	qsort(t, (size_t)n, sizeof(*t), cmp);
	printf("%.0f %.0f\n", t[n / 2], t[(size_t)((double)n * 0.99)]);
}

/* Read until "\r\n\r\n" (kept in h, NUL-terminated); the bytes after it stay in h too. */
static ssize_t read_head(int c, char *h, size_t size, size_t *have, size_t *end)
{
	for (;;) {
		char *e;
		ssize_t k;

		h[*have] = 0;
		e = strstr(h, "\r\n\r\n");
		if (e) {
			*end = (size_t)(e - h) + 4;
			return 1;
		}
		if (*have + 1 >= size)
			return -1;
		k = read(c, h + *have, size - 1 - *have);
		if (k <= 0)
			return k;
		*have += (size_t)k;
	}
}

static void serve_http(int port)
{
	int l = bound(SOCK_STREAM, port), one = 1;

	if (listen(l, 256) < 0)
		fail("listen");
	signal(SIGCHLD, SIG_IGN);
	for (;;) {
		static const char OK[] = "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n";
		char h[8192], b[1 << 16];
		size_t have = 0, end;
		int c = accept(l, NULL, NULL);

		if (c < 0)
			continue;
		if (fork() != 0) {
			close(c);
			continue;
		}
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		while (read_head(c, h, sizeof(h), &have, &end) == 1) {
			const char *cl = strcasestr(h, "\r\ncontent-length:");
			long left = cl ? atol(cl + 17) : 0;

			left -= (long)(have - end);
			while (left > 0) {
				ssize_t k =
				    read(c, b, (size_t)left < sizeof(b) ? (size_t)left : sizeof(b));

				if (k <= 0)
					_exit(0);
				left -= k;
			}
			/* Pipelined bytes past this body are not expected: dropped. */
			have = 0;
			if (write(c, OK, sizeof(OK) - 1) != (ssize_t)sizeof(OK) - 1)
				break;
		}
		_exit(0);
	}
}

/* The time every core of the machine has been busy, µs (/proc/stat's first line). */
static double busy_us(void)
{
	unsigned long long v[8] = { 0 };
	FILE *f = fopen("/proc/stat", "r");

	if (!f || fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
			 &v[3], &v[4], &v[5], &v[6], &v[7]) != 8)
		fail("/proc/stat");
	fclose(f);
	/* user, nice, system, irq, softirq: not idle, iowait, steal. */
	return (double)(v[0] + v[1] + v[2] + v[5] + v[6]) * 1e6 / (double)sysconf(_SC_CLK_TCK);
}

static void post(const char *host, int port, long size, int n)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	double *t = calloc((size_t)n, sizeof(*t));
	char *body = malloc((size_t)size + 1), head[256], r[4096];
	int one = 1;
	double cpu0 = 0, cpu;

	if (!t || !body || inet_pton(AF_INET, host, &a.sin_addr) != 1) {
		fprintf(stderr, "lat: %s: not an IPv4 address\n", host);
		exit(1);
	}
	memset(body, 'x', (size_t)size);
	for (int i = 0; i < n + 3; i++) {
		double t0;

		if (i == 3)
			cpu0 = busy_us();
		t0 = now_us();
		int fd = socket(AF_INET, SOCK_STREAM, 0), hl;
		size_t have = 0, end;

		if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
			fail("connect");
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		hl = snprintf(
		    head, sizeof(head),
		    "POST /v1/messages HTTP/1.1\r\nHost: %s\r\nContent-Length: %ld\r\n\r\n", host,
		    size);
		if (write(fd, head, (size_t)hl) != hl)
			fail("write");
		for (long off = 0; off < size;) {
			size_t k = (size_t)(size - off) < 65536 ? (size_t)(size - off) : 65536;
			ssize_t w = write(fd, body + off, k);

			if (w <= 0)
				fail("write");
			off += w;
		}
		if (read_head(fd, r, sizeof(r), &have, &end) != 1 || strncmp(r, "HTTP/1.1 200", 12))
			fail("answer");
		while (have < end + 3) {
			ssize_t k = read(fd, r + have, sizeof(r) - 1 - have);

			if (k <= 0)
				fail("answer");
			have += (size_t)k;
		}
		close(fd);
		if (i >= 3) /* the first 3: warm-up */
			t[i - 3] = now_us() - t0;
	}
	cpu = (busy_us() - cpu0) / n;
	qsort(t, (size_t)n, sizeof(*t), cmp);
	printf("%.0f %.0f %.0f\n", t[n / 2], t[(size_t)((double)n * 0.9)], cpu);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "http"))
		serve_http(atoi(argv[2]));
	if (argc == 6 && !strcmp(argv[1], "post") && atol(argv[4]) > 0 && atoi(argv[5]) > 0) {
		post(argv[2], atoi(argv[3]), atol(argv[4]), atoi(argv[5]));
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "serve")) {
		int port = atoi(argv[2]);

		if (fork() == 0) {
			/* Both servers end with the first process (net.sh kills it). */
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			serve_udp(port);
		}
		serve_tcp(port);
	}
	if (argc == 5 && (!strcmp(argv[1], "tcp") || !strcmp(argv[1], "udp")) &&
	    atoi(argv[4]) > 0) {
		client(!strcmp(argv[1], "udp"), argv[2], atoi(argv[3]), atoi(argv[4]));
		return 0;
	}
	fprintf(stderr, "usage: lat serve PORT | lat tcp|udp HOST PORT N | lat http PORT | "
			"lat post HOST PORT SIZE N\n");
	return 1;
}
