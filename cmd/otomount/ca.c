/* SPDX-License-Identifier: ISC */
/*
 * --ca-file: a private or corporate CA trusted by every tool in the view.
 * The view's bundle at the distribution's path becomes the host's bundle
 * and FILE's certificates after it (nothing else of FILE: a private key in
 * it refuses it), a file of its own (a tmpfs) bound read-only over the
 * host's, and SSL_CERT_FILE, CURL_CA_BUNDLE, REQUESTS_CA_BUNDLE,
 * NODE_EXTRA_CA_CERTS and GIT_SSL_CAINFO name it for the tools that do not
 * read that path (node, python's requests, git built with another TLS).
 * Nothing on the host changes.
 *
 * OTO_GATE_CA=FD, from otogate: its session CA's certificate (a sealed
 * memfd), for its transparent grants, added after FILE (or alone) the same
 * way; consumed: the variable removed, the fd closed.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "oto.h"
#include "otomount.h"
#include "pem.h"

#define CA_HOST_MAX (16UL << 20) /* the host's bundle: Debian's is 200 KB */
#define CA_FILE_MAX (1UL << 20)

/* Where distributions keep the bundle their TLS libraries read by default. */
static const char *const BUNDLES[] = {
	"/etc/ssl/certs/ca-certificates.crt",		     /* Debian, Ubuntu, Alpine, Arch */
	"/etc/pki/tls/certs/ca-bundle.crt",		     /* Fedora, RHEL (a file there) */
	"/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem", /* ... where the above is a symlink */
	"/etc/ssl/ca-bundle.pem",			     /* openSUSE */
	"/etc/ssl/cert.pem",				     /* others, LibreSSL */
	NULL,
};

static const char *const VARS[] = { "SSL_CERT_FILE",	   "CURL_CA_BUNDLE", "REQUESTS_CA_BUNDLE",
				    "NODE_EXTRA_CA_CERTS", "GIT_SSL_CAINFO", NULL };

/* fd's content appended after buf[*len], at most max bytes in all: 0, or -1 with errno (EFBIG:
 * more). */
static int read_into(int fd, char *buf, size_t *len, size_t max)
{
	ssize_t n = fd_read_all(fd, buf + *len, max - *len);

	if (n < 0)
		return -1;
	*len += (size_t)n;
	return 0;
}

/* OTO_GATE_CA's fd, taken from the environment: -1 when unset; dies 100 when not an fd. */
static int xgate_ca_take(void)
{
	const char *v = getenv("OTO_GATE_CA");
	unsigned long n;

	if (!v)
		return -1;
	if (opt_ulong(v, 65535, &n) < 0 || n < 3 || fcntl((int)n, F_GETFD) < 0)
		die_usage("OTO_GATE_CA=%s: not an open file descriptor", v);
	unsetenv("OTO_GATE_CA");
	return (int)n;
}

/*
 * One source of CAs (what names it in messages: what), read after buf[*len]: its certificates
 * alone are kept there. A private key anywhere in it refuses it whole (lib/pem.h), before any
 * byte of it reaches the view. Dies 101, 111.
 */
static void xca_add(int fd, const char *what, char *buf, size_t *len)
{
	size_t from = *len, n;
	struct pem_scan s;
	char why[256];
	int rc;

	if (read_into(fd, buf, len, from + CA_FILE_MAX) < 0) {
		if (errno == EFBIG)
			die(EXIT_REJECT, 0, "%s: larger than %lu KiB", what, CA_FILE_MAX >> 10);
		die(EXIT_SYS, errno, "%s: unable to read", what);
	}
	close(fd);
	rc = pem_certs(buf + from, *len - from, buf + from, *len - from + 1, &n, &s);
	if (rc != PEM_OK)
		die(EXIT_REJECT, 0, "%s: %s", what, pem_why(rc, &s, why, sizeof(why)));
	*len = from + n;
	if (s.other)
		debugx("%s: %zu PEM blocks that are not certificates left out", what, s.other);
}

void xsources_ca(struct view_state *v, const struct otomount_opts *o)
{
	const char *dst = NULL;
	char *buf, name[PATH_MAX + 16];
	size_t len = 0, host;
	int fd, given, tmp, out, tree, gate = xgate_ca_take();
	struct stat st;

	if (!o->ca_file && gate < 0)
		return;
	if (o->ca_file)
		snprintf(name, sizeof(name), "--ca-file %s", o->ca_file);
	else
		snprintf(name, sizeof(name), "OTO_GATE_CA (the gateway's session CA)");
	for (const char *const *b = BUNDLES; *b && !dst; b++)
		if (lstat(*b, &st) == 0 && S_ISREG(st.st_mode))
			dst = *b;
	if (!dst)
		die(EXIT_SYS, ENOENT,
		    "%s: the host has no CA bundle to add it to (%s, or the like: "
		    "install ca-certificates)",
		    name, BUNDLES[0]);
	buf = malloc(CA_HOST_MAX + 2 * CA_FILE_MAX + 3);
	if (!buf)
		die(EXIT_SYS, ENOMEM, "%s: unable to make the bundle", name);
	fd = open(dst, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || read_into(fd, buf, &len, CA_HOST_MAX) < 0)
		die(EXIT_SYS, errno, "%s: unable to read the host's bundle %s", name, dst);
	close(fd);
	if (len && buf[len - 1] != '\n')
		buf[len++] = '\n';
	host = len;
	if (o->ca_file) {
		/* FILE: a launcher's fd (fd=N), or opened here, no symlink in its path. */
		given = view_src_fd(o->ca_file);
		fd = given >= 0 ? given : host_open(o->ca_file, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			die(EXIT_SYS, errno, "--ca-file %s: unable to open%s", o->ca_file,
			    errno == ELOOP ? " (a symlink is refused)" : "");
		xca_add(fd, name, buf, &len);
	}
	if (gate >= 0)
		xca_add(gate, "OTO_GATE_CA (the gateway's session CA)", buf, &len);
	/* The bundle in a tmpfs of its own, bound read-only over the host's. */
	tmp = mnt_tmpfs(len + 65536, 16, "0755", MNT_RW);
	if (tmp < 0)
		die(EXIT_SYS, errno, "%s: unable to make a tmpfs for the bundle", name);
	out = openat(tmp, "bundle", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (out < 0 || write(out, buf, len) != (ssize_t)len || close(out) < 0)
		die(EXIT_SYS, errno, "%s: unable to write the bundle", name);
	free(buf);
	tree = mnt_clone(tmp, "bundle", MNT_RO);
	if (tree < 0)
		die(EXIT_SYS, errno, "%s: unable to bind the bundle on %s", name, dst);
	close(tmp);
	xplan_tree(&v->plan, dst, tree, 0, "the view's CA bundle");
	for (const char *const *n = VARS; *n; n++)
		if (setenv(*n, dst, 1) < 0)
			die(EXIT_SYS, errno, "unable to set %s", *n);
	debugx("%s: %zu bytes on %s", name, len - host, dst);
}
