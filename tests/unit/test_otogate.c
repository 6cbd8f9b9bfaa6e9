// UNIT: cmd/otogate/parse.c cmd/otogate/allow.c lib/store_name_ok.c lib/opt.c
/* Unit tests of otogate's pure parts: --grant, OTO_GATEWAY, the log line. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "oto.h"
#include "otogate/otogate.h"

static int grant(const char *s, struct grant *g, const char **why)
{
	static char buf[512];

	strcpy(buf, s);
	return grant_parse(buf, g, why);
}

static void test_grants(void **state)
{
	struct grant g;
	const char *why = NULL;

	(void)state;
	assert_int_equal(grant("API_KEY=https://Api.Example.test", &g, &why), 0);
	assert_string_equal(g.name, "API_KEY");
	assert_string_equal(g.host, "api.example.test");
	assert_int_equal(g.port, 443);
	assert_string_equal(g.hosthdr, "api.example.test");
	assert_int_equal(g.is_ip, 0);
	assert_int_equal(grant("K=https://api.example.test:8443/", &g, &why), 0);
	assert_int_equal(g.port, 8443);
	assert_string_equal(g.hosthdr, "api.example.test:8443");
	assert_int_equal(grant("K=https://203.0.113.10", &g, &why), 0);
	assert_int_equal(g.is_ip, 1);
	/* The headers that carry the credential: the default two, or those named. */
	assert_int_equal(g.nheaders, 2);
	assert_string_equal(g.headers[0], "Authorization");
	assert_string_equal(g.headers[1], "x-api-key");
	assert_int_equal(grant("K=https://a.test:8443/,header=X-Goog-Api-Key", &g, &why), 0);
	assert_string_equal(g.host, "a.test");
	assert_int_equal(g.port, 8443);
	assert_int_equal(g.nheaders, 1);
	assert_string_equal(g.headers[0], "X-Goog-Api-Key");
	assert_int_equal(grant("K=https://a,header=authorization,header=PRIVATE-TOKEN", &g, &why),
			 0);
	assert_int_equal(g.nheaders, 2);
	assert_string_equal(g.headers[1], "PRIVATE-TOKEN");
	assert_int_equal(grant("K=https://a,header=a,header=b,header=c,header=d,header=e,header=f,"
			       "header=g,header=h",
			       &g, &why),
			 0);
	assert_int_equal(g.nheaders, 8);
	assert_int_equal(g.transparent, 0);
	/* transparent: one more option, beside header= and in any order with it. */
	assert_int_equal(grant("GH=https://github.com,transparent", &g, &why), 0);
	assert_int_equal(g.transparent, 1);
	assert_int_equal(g.nheaders, 2);
	assert_int_equal(grant("GH=https://git.test:9443,header=X-T,transparent", &g, &why), 0);
	assert_int_equal(g.transparent, 1);
	assert_int_equal(g.port, 9443);
	assert_int_equal(g.nheaders, 1);
	assert_int_equal(grant("GH=https://git.test,transparent,header=X-T", &g, &why), 0);
	assert_int_equal(g.transparent, 1);
	assert_string_equal(g.headers[0], "X-T");
	static const char *const BAD[] = {
		"K=https://a,transparent,transparent",
		"K=https://203.0.113.10,transparent",
		"K=https://a,Transparent",
		"K=https://a,transparent=1",
		"K=https://a,transparent,",
		"K=https://a.x1234567890123456789012345678901234567890123456789012345678901234."
		"test,transparent",
		"K",
		"=https://a",
		"1K=https://a",
		"K=http://a",
		"K=https://",
		"K=https://a:",
		"K=https://a:0",
		"K=https://a:65536",
		"K=https://a/v1",
		"K=https://u@a",
		"K=https://a?x",
		"K=https://[::1]",
		"K=https://.a",
		"K=https://a..b",
		"K=https://a_b",
		"K=https://a:1x",
		"K=https://a,",
		"K=https://a,header=",
		"K=https://a,header=a b",
		"K=https://a,header=a:b",
		"K=https://a,head=x",
		"K=https://a,header=x,header=X",
		"K=https://a,header=Host",
		"K=https://a,header=content-length",
		"K=https://a,header=Transfer-Encoding",
		"K=https://a,header=Accept-Encoding",
		"K=https://a,header=Proxy-Authorization",
		"K=https://a,header=proxy-connection",
		"K=https://a,header=a,header=b,header=c,header=d,header=e,header=f,header=g,"
		"header=h,header=i",
		"K=https://"
		"a,header=x12345678901234567890123456789012345678901234567890123456789012345",
	};
	for (size_t i = 0; i < ARRAY_SIZE(BAD); i++) {
		why = NULL;
		assert_int_equal(grant(BAD[i], &g, &why), -1);
		assert_non_null(why);
	}
}

static void test_gateway_env(void **state)
{
	char buf[64];

	(void)state;
	struct grant g[3] = { { .gw_port = 8001 }, { .gw_port = 8002 }, { .gw_port = 8003 } };

	assert_int_equal(gateway_env_format(buf, sizeof(buf), 5, g, 3), strlen("5:8001,8002,8003"));
	assert_string_equal(buf, "5:8001,8002,8003");
	assert_int_equal(gateway_env_format(buf, 8, 5, g, 3), 0);
	/* A transparent grant's port: with its host, which otonet hands it the flows of. */
	g[1].transparent = 1;
	g[1].port = 443;
	strcpy(g[1].host, "github.com");
	assert_int_equal(gateway_env_format(buf, sizeof(buf), 5, g, 3),
			 strlen("5:8001,8002=github.com:443,8003"));
	assert_string_equal(buf, "5:8001,8002=github.com:443,8003");
	assert_int_equal(gateway_env_format(buf, 20, 5, g, 3), 0);
	assert_int_equal(gate_fd_parse("7"), 7);
	assert_int_equal(gate_fd_parse("-1"), -1);
	assert_int_equal(gate_fd_parse("65536"), -1);
}

static void test_log_line(void **state)
{
	char buf[512];
	struct gate_logrec r = { .sec = 1700000000,
				 .msec = 7,
				 .grant = "K",
				 .host = "h.test",
				 .method = "GET",
				 .method_len = 3,
				 .path = "/a\"b?key=secret",
				 .path_len = 15,
				 .status = 200,
				 .up = 10,
				 .down = 20 };
	const char *want = "{\"time\":1700000000.007,\"grant\":\"K\",\"method\":\"GET\",\"host\":"
			   "\"h.test\",\"path\":\"/a\\u0022b\",\"status\":200,\"bytes_up\":10,"
			   "\"bytes_down\":20}\n";

	(void)state;
	assert_int_equal(gate_log_format(buf, sizeof(buf), &r), strlen(want));
	assert_string_equal(buf, want);
	assert_int_equal(gate_log_format(buf, 20, &r), 0);
	r.error = "x";
	assert_true(gate_log_format(buf, sizeof(buf), &r) > 0);
	assert_non_null(strstr(buf, ",\"error\":\"x\"}\n"));
}

static void test_error_answer(void **state)
{
	char buf[256];
	const char *want = "HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain\r\n"
			   "Content-Length: 13\r\nConnection: close\r\n\r\notogate: why\n";

	(void)state;
	assert_int_equal(gate_error_format(buf, sizeof(buf), 502, "why"), strlen(want));
	assert_string_equal(buf, want);
	assert_int_equal(gate_error_format(buf, 10, 502, "why"), 0);
	/* A 426 names the one protocol the gateway takes. */
	want = "HTTP/1.1 426 Upgrade Required\r\nUpgrade: HTTP/1.1\r\nContent-Type: text/plain\r\n"
	       "Content-Length: 13\r\nConnection: close\r\n\r\notogate: why\n";
	assert_int_equal(gate_error_format(buf, sizeof(buf), 426, "why"), strlen(want));
	assert_string_equal(buf, want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grants),
		cmocka_unit_test(test_gateway_env),
		cmocka_unit_test(test_log_line),
		cmocka_unit_test(test_error_answer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
