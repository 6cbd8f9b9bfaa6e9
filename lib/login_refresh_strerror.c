/* SPDX-License-Identifier: ISC */
#include "login.h"

const char *login_refresh_strerror(int err)
{
	static const char *const MSG[] = {
		[LOGIN_REFRESH_OK] = "no error",
		[LOGIN_REFRESH_ETOOBIG] = "the body is too long",
		[LOGIN_REFRESH_ENOTOKEN] = "the profile has no token endpoint",
		[LOGIN_REFRESH_ECTYPE] = "the content type is not the token endpoint's",
		[LOGIN_REFRESH_EJSON] = "the body is not strict JSON",
		[LOGIN_REFRESH_EFORM] = "the body is not a clean form",
		[LOGIN_REFRESH_EDUP] = "a key or parameter is there twice",
		[LOGIN_REFRESH_EKEY] = "the field name is escaped, encoded or nested",
		[LOGIN_REFRESH_EMISSING] = "no refresh token field",
		[LOGIN_REFRESH_ENOTSTR] = "the refresh token's field is not a string",
		[LOGIN_REFRESH_EESCAPE] = "a token holds an escape",
		[LOGIN_REFRESH_ENOTPHANTOM] = "the field holds no refresh token's phantom",
		[LOGIN_REFRESH_ESTRAY] = "a phantom is elsewhere in the body",
		[LOGIN_REFRESH_EENCODE] = "the real token cannot be written as the phantom was",
		[LOGIN_REFRESH_EECHO] = "a real token is elsewhere in the answer",
		[LOGIN_REFRESH_ESWAP] =
		    "a token field holds another role's real or another's value",
		[LOGIN_REFRESH_ELEN] = "a token's length is out of bounds",
		[LOGIN_REFRESH_ESHORT] = "a token is too short for a phantom",
		[LOGIN_REFRESH_ESAME] = "the phantom came out as the token",
		[LOGIN_REFRESH_EFILE] =
		    "the login file is not strict JSON, or a field is twice or odd",
		[LOGIN_REFRESH_ENOSPC] = "the login file does not fit",
	};
	_Static_assert(sizeof(MSG) / sizeof(MSG[0]) == LOGIN_REFRESH_NUM_ERR,
		       "a message for each error");

	if (err < 0 || err >= LOGIN_REFRESH_NUM_ERR)
		return "unknown error";
	return MSG[err];
}
