/* SPDX-License-Identifier: ISC */
/* The tools' random source for phantom_shape and login_phantom: libsodium's. */
#include <stddef.h>
#include <stdint.h>

#include <sodium.h>

#include "login.h"

void phantom_rand(uint8_t *buf, size_t n, void *arg)
{
	(void)arg;
	randombytes_buf(buf, n);
}
