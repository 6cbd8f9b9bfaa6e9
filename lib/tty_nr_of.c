/* SPDX-License-Identifier: ISC */
/* A terminal's device number as /proc/PID/stat writes tty_nr (oto.h). Pure. */
#include <sys/sysmacros.h>

#include "oto.h"

unsigned long tty_nr_of(dev_t rdev)
{
	unsigned long ma = major(rdev), mi = minor(rdev);

	/* The kernel's new_encode_dev: minor's low byte, major, minor's rest. */
	return (mi & 0xff) | (ma << 8) | ((mi & ~0xffUL) << 12);
}
