/* SPDX-License-Identifier: ISC */
#include "login.h"

const char *login_role_name(enum login_role role)
{
	static const char *const NAME[] = {
		[LOGIN_ACCESS] = "access", [LOGIN_REFRESH] = "refresh", [LOGIN_ID] = "id"
	};
	_Static_assert(sizeof(NAME) / sizeof(NAME[0]) == LOGIN_NUM_ROLES, "a name for each role");

	return (unsigned)role < LOGIN_NUM_ROLES ? NAME[role] : "unknown";
}
