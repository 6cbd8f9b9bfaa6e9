#!/bin/sh
# The hostile-upstream tests of tests/test_otogate.sh again, each grant
# transparent (OTO_GATE_TRANSPARENT): the agent reaches the fake API by its
# name over TLS (gateclient.py, https://HOST from API_KEY_URL), trusting
# the session CA alone, and every outcome is the same as through
# 10.0.2.4: the value where the grant puts it and nowhere else, no form of
# it back from an upstream that reflects everything, an encoded response
# refused, a close inside a response an error, bulk both ways exact, the
# hop-by-hop headers left at the gateway.
# run-as: root
OTO_GATE_TRANSPARENT=1

suite() {
	for t in test_the_upstream_gets_the_real_value_in_headers \
		test_a_phantom_in_the_body_or_query_reaches_the_upstream_unchanged \
		test_expect_100_continue test_an_echoed_value_returns_as_the_phantom \
		test_a_reflecting_upstream_returns_no_form_of_the_value \
		test_an_encoded_response_is_refused \
		test_basic_credentials_are_swapped_inside_their_base64 \
		test_hop_by_hop_headers_stay_at_the_gateway \
		test_a_grant_names_its_header test_a_body_delimited_by_the_close \
		test_the_first_event_arrives_before_the_upstream_finishes \
		test_flows_are_served_concurrently test_bulk_both_ways_on_fast_and_slow_links \
		test_a_wrong_ca_is_a_502_and_nothing_is_sent \
		test_a_wrong_host_name_is_a_502_and_nothing_is_sent \
		test_an_upstream_that_closes_is_an_error_for_the_agent \
		test_an_idle_upstream_close_is_not_an_error; do
		suite_addTest "$t"
	done
}

. "$(dirname "$0")/test_otogate.sh"
