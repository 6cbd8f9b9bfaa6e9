/* SPDX-License-Identifier: ISC */
#include "json.h"

const char *json_strerror(int err)
{
	static const char *const MSG[] = {
		[JSON_OK] = "no error",
		[JSON_ETOOBIG] = "longer than 65536 bytes",
		[JSON_ESYNTAX] = "not JSON",
		[JSON_EDEPTH] = "nested deeper than 16 levels",
		[JSON_EUTF8] = "invalid UTF-8 in a string",
		[JSON_ESURROGATE] = "half a surrogate pair in a \\u escape",
		[JSON_EDUP] = "a key twice in one object",
		[JSON_EPATH] = "a key path longer than 512 bytes",
		[JSON_EKEYS] = "more than 512 keys in open objects",
		[JSON_ESTOP] = "stopped",
	};
	_Static_assert(sizeof(MSG) / sizeof(MSG[0]) == JSON_NUM_ERR, "a message for each error");

	if (err < 0 || err >= JSON_NUM_ERR)
		return "unknown error";
	return MSG[err];
}
