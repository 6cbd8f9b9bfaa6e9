/* SPDX-License-Identifier: ISC */
#include "login.h"

const char *login_strerror(int err)
{
	static const char *const MSG[] = {
		[LOGIN_OK] = "no error",
		[LOGIN_EJSON] = "not strict JSON",
		[LOGIN_EMISSING] = "is missing",
		[LOGIN_ETWICE] = "is there twice",
		[LOGIN_ENOTSTR] = "is not a string",
		[LOGIN_EESCAPE] = "holds a backslash escape",
		[LOGIN_ESHORT] = "is too short for a phantom (16 random characters at least)",
		[LOGIN_ESAME] = "came out as its own phantom",
	};
	_Static_assert(sizeof(MSG) / sizeof(MSG[0]) == LOGIN_NUM_ERR, "a message for each error");

	if (err < 0 || err >= LOGIN_NUM_ERR)
		return "unknown error";
	return MSG[err];
}
