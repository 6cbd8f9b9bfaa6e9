/* SPDX-License-Identifier: ISC */
/*
 * For the build's filter generators (cmd/TOOL/gen/bpfgen.c): a libseccomp
 * context exported as the BPF seccomp_load would load, written on stdout as
 * a C array SYM (8-aligned) and SYM_LEN, its size in bytes. The context is
 * released. 0, or -1 with errno (and a line on stderr naming the filter).
 */
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "oto.h"

int seccomp_export_c(void *ctx, const char *name, const char *sym)
{
	int fd = memfd_create("oto-bpf", MFD_CLOEXEC), rc;
	unsigned char b[65536];
	ssize_t len;

	if (!ctx || fd < 0) {
		fprintf(stderr, "bpfgen: unable to build the %s's filter: %s\n", name,
			strerror(errno));
		if (ctx)
			seccomp_release(ctx);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	rc = seccomp_export_bpf(ctx, fd);
	seccomp_release(ctx);
	len = rc < 0 ? -1 : pread(fd, b, sizeof(b), 0);
	close(fd);
	if (len <= 0 || len % 8 || (size_t)len == sizeof(b)) {
		errno = rc < 0 ? -rc : len < 0 ? errno : EINVAL;
		fprintf(stderr, "bpfgen: unable to export the %s's filter: %s\n", name,
			strerror(errno));
		return -1;
	}
	printf("\n/* The %s's filter: %zd instructions. */\n", name, len / 8);
	printf("_Alignas(8) const unsigned char %s[] = {", sym);
	for (ssize_t i = 0; i < len; i++)
		printf("%s0x%02x,", i % 12 ? " " : "\n\t", b[i]);
	printf("\n};\nconst size_t %s_LEN = sizeof(%s);\n", sym, sym);
	return 0;
}
