/* SPDX-License-Identifier: ISC */
/*
 * The three built-in profiles, as a person would write a fourth. What each
 * says was read in the CLI's own code; where, in its comments.
 */
#include <string.h>

#include "login.h"

static const char CLAUDE[] =
    "# Claude Code 2.1 (read in its native binary, 2.1.332): the login is\n"
    "# ~/.claude/.credentials.json, {\"claudeAiOauth\": {accessToken (sk-ant-oat01-),\n"
    "# refreshToken (sk-ant-ort01-), expiresAt (ms since the epoch), scopes,\n"
    "# subscriptionType, rateLimitTier}}. Model calls: BASE_API_URL\n"
    "# https://api.anthropic.com, Authorization: Bearer. Refresh: a POST to\n"
    "# TOKEN_URL https://platform.claude.com/v1/oauth/token, a JSON body\n"
    "# {grant_type \"refresh_token\", refresh_token, client_id, scope}; the\n"
    "# answer's access_token, refresh_token (kept when absent), expires_in (s).\n"
    "file .claude/.credentials.json\n"
    "secret claudeAiOauth.accessToken access\n"
    "secret claudeAiOauth.refreshToken refresh\n"
    "expiry claudeAiOauth.expiresAt ms\n"
    "host api.anthropic.com\n"
    "token https://platform.claude.com/v1/oauth/token json refresh_token\n";

static const char CODEX[] =
    "# codex, ChatGPT sign-in (openai/codex, codex-rs/login/src/auth/storage.rs,\n"
    "# token_data.rs, auth/manager.rs): $CODEX_HOME/auth.json, {auth_mode,\n"
    "# OPENAI_API_KEY, tokens: {id_token (a JWT whose claims it reads: plan,\n"
    "# account), access_token (a JWT), refresh_token, account_id},\n"
    "# last_refresh (RFC 3339)}. It refreshes when the access token's exp has\n"
    "# passed. Model calls: https://chatgpt.com/backend-api/codex, Bearer, and\n"
    "# an account header. Refresh: REFRESH_TOKEN_URL\n"
    "# https://auth.openai.com/oauth/token, a JSON body {client_id, grant_type\n"
    "# \"refresh_token\", refresh_token}; the answer's id_token, access_token and\n"
    "# refresh_token, each optional.\n"
    "file .codex/auth.json\n"
    "secret tokens.access_token access\n"
    "secret tokens.refresh_token refresh\n"
    "secret tokens.id_token id\n"
    "expiry tokens.access_token jwt\n"
    "host chatgpt.com\n"
    "token https://auth.openai.com/oauth/token json refresh_token\n";

static const char GEMINI[] =
    "# gemini-cli, Google sign-in (google-gemini/gemini-cli,\n"
    "# packages/core/src/code_assist/oauth2.ts, server.ts; google-auth-library's\n"
    "# OAuth2Client): ~/.gemini/oauth_creds.json, google-auth-library's\n"
    "# Credentials as they are: access_token (ya29.), refresh_token (1//),\n"
    "# expiry_date (ms since the epoch), id_token (a JWT, when Google sent\n"
    "# one), scope, token_type. Model calls: https://cloudcode-pa.googleapis.com\n"
    "# (v1internal), Bearer; at start (0.61.0) it also posts to\n"
    "# oauth2.googleapis.com's tokeninfo and gets www.googleapis.com's\n"
    "# userinfo, each with the Bearer (a 401 there: exit 41). Refresh: a POST to\n"
    "# https://oauth2.googleapis.com/token, a form body {refresh_token,\n"
    "# client_id, client_secret, grant_type \"refresh_token\"}; the answer's\n"
    "# access_token, expires_in, id_token, and refresh_token when Google\n"
    "# rotates it.\n"
    "file .gemini/oauth_creds.json\n"
    "secret access_token access\n"
    "secret refresh_token refresh\n"
    "secret id_token id optional\n"
    "expiry expiry_date ms\n"
    "host cloudcode-pa.googleapis.com\n"
    "host oauth2.googleapis.com\n"
    "host www.googleapis.com\n"
    "token https://oauth2.googleapis.com/token form refresh_token\n";

const char *login_profile_text(const char *name)
{
	if (!strcmp(name, "claude"))
		return CLAUDE;
	if (!strcmp(name, "codex"))
		return CODEX;
	if (!strcmp(name, "gemini"))
		return GEMINI;
	return NULL;
}
