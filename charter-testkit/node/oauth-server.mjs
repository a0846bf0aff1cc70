// A real OAuth 2 authorization server for the tests: npm `oauth2-mock-server` (signed JWTs,
// authorization code with PKCE, refresh and client-credentials grants), made strict where the
// mock is lenient, through its event hooks:
// - clients and refresh tokens are checked (`invalid_client`, `invalid_grant`), so a revoked
//   refresh token is refused; its error_description echoes the token (charter must not);
// - an authorization code needs a code_verifier for an S256 challenge and the same redirect_uri;
// - token lifetimes are configurable (expiry tests); refresh tokens are not rotated unless asked
//   (`rotate: true`): then each refresh token is accepted once, as RFC 9700 §4.14 advises, and a
//   spent one is refused with `invalid_grant` (counted in `stats.spent_reused`).
// Control routes (test only): POST /__control (JSON), GET /__stats, POST /__check {token}
// (introspection for the API stub: {active, user}). Modes: "slow" (delay_ms before answering
// /token; a request whose client hung up meanwhile is dropped unprocessed, as by a server that
// had not read it yet, and counted in `stats.dropped`) and "unavailable" (503
// temporarily_unavailable).
//
// Usage: node oauth-server.mjs <npm prefix holding node_modules/oauth2-mock-server>
// Prints {"port": N} once listening on 127.0.0.1 (port 0: the OS picks); exits when stdin closes.

import http from "node:http";
import { pathToFileURL } from "node:url";
import path from "node:path";
import { readJson, json } from "./json.mjs";
import { randomUUID } from "node:crypto";

const prefix = process.argv[2];
const entry = path.join(prefix, "node_modules", "oauth2-mock-server", "dist", "index.mjs");
const { OAuth2Issuer, OAuth2Service, Events } = await import(pathToFileURL(entry).href);

const issuer = new OAuth2Issuer();
await issuer.keys.generate("RS256");
const service = new OAuth2Service(issuer);

const config = { clients: {}, expires_in: 3600, mode: "normal", delay_ms: 0, rotate: false };
const refreshTokens = new Map(); // token -> { user, revoked }
const accessTokens = new Map(); // token -> { user, exp_ms, revoked }
const staticTokens = new Map(); // token -> user (accepted by /__check, never issued)
const codes = new Map(); // code -> { method, redirect_uri }
const stats = { token_requests: 0, by_grant: {}, authorize_requests: 0, checks: 0, dropped: 0, spent_reused: 0, issued_access: [], issued_refresh: [] };

function clientOf(req) {
  const h = req.headers.authorization ?? "";
  if (h.startsWith("Basic ")) {
    const [id, secret] = Buffer.from(h.slice(6), "base64").toString().split(":").map(decodeURIComponent);
    return { id, secret, how: "basic" };
  }
  return { id: req.body.client_id, secret: req.body.client_secret, how: "body" };
}

function refuse(res, status, error, description) {
  res.statusCode = status;
  res.body = { error, error_description: description };
}

service.on(Events.BeforeAuthorizeRedirect, (redirect, req) => {
  stats.authorize_requests += 1;
  const code = redirect.url.searchParams.get("code");
  if (code) codes.set(code, { method: req.query.code_challenge_method, redirect_uri: req.query.redirect_uri, client_id: req.query.client_id });
});

service.on(Events.BeforeTokenSigning, (token, req) => {
  token.payload.exp = Math.floor(Date.now() / 1000) + config.expires_in;
  // Every token distinct (RS256 is deterministic: equal claims would sign to equal tokens).
  token.payload.jti = randomUUID();
  const entry = req.body && refreshTokens.get(req.body.refresh_token);
  if (entry) token.payload.sub = entry.user;
});

service.on(Events.BeforeResponse, (res, req) => {
  const body = req.body;
  const grant = body.grant_type;
  stats.by_grant[grant] = (stats.by_grant[grant] ?? 0) + 1;
  const client = clientOf(req);
  const known = config.clients[client.id];
  if (known === undefined || (known !== null && known !== client.secret)) {
    return refuse(res, 401, "invalid_client", `client ${client.id} with secret ${client.secret} is unknown`);
  }
  let user;
  if (grant === "refresh_token") {
    const entry = refreshTokens.get(body.refresh_token);
    if (!entry || entry.revoked) {
      if (entry && entry.spent) stats.spent_reused += 1;
      return refuse(res, 400, "invalid_grant", `refresh token ${body.refresh_token} is revoked or unknown`);
    }
    user = entry.user;
    if (config.rotate) {
      // Accepted once: the answer carries its successor.
      entry.revoked = true;
      entry.spent = true;
    } else {
      delete res.body.refresh_token;
    }
    delete res.body.id_token;
  } else if (grant === "authorization_code") {
    const issued = codes.get(body.code);
    codes.delete(body.code);
    if (!issued || issued.method !== "S256" || !body.code_verifier || issued.redirect_uri !== body.redirect_uri) {
      return refuse(res, 400, "invalid_grant", "the code, its PKCE verifier or its redirect_uri does not match");
    }
    user = "johndoe";
  } else if (grant === "client_credentials") {
    user = `client:${client.id}`;
    stats.last_scope = body.scope ?? null;
    stats.last_client_auth = client.how;
  } else {
    return refuse(res, 400, "unsupported_grant_type", grant);
  }
  if (res.body.refresh_token) {
    refreshTokens.set(res.body.refresh_token, { user, revoked: false });
    stats.issued_refresh.push(res.body.refresh_token);
  }
  res.body.expires_in = config.expires_in;
  accessTokens.set(res.body.access_token, { user, exp_ms: Date.now() + config.expires_in * 1000, revoked: false });
  stats.issued_access.push(res.body.access_token);
});

async function control(body) {
  if (body.reset_stats) {
    Object.assign(stats, { token_requests: 0, by_grant: {}, authorize_requests: 0, checks: 0, dropped: 0, spent_reused: 0 });
  }
  for (const key of ["expires_in", "mode", "delay_ms", "rotate"]) {
    if (key in body) config[key] = body[key];
  }
  Object.assign(config.clients, body.clients ?? {});
  for (const [token, user] of Object.entries(body.refresh_tokens ?? {})) refreshTokens.set(token, { user, revoked: false });
  for (const [token, user] of Object.entries(body.static_tokens ?? {})) staticTokens.set(token, user);
  for (const token of body.revoke_refresh ?? []) refreshTokens.set(token, { ...(refreshTokens.get(token) ?? {}), revoked: true });
  if (body.revoke_all_access) for (const entry of accessTokens.values()) entry.revoked = true;
}

const server = http.createServer(async (req, res) => {
  const url = new URL(req.url, "http://127.0.0.1");
  if (url.pathname === "/__control" && req.method === "POST") {
    await control(await readJson(req));
    return json(res, 200, { ok: true });
  }
  if (url.pathname === "/__stats") return json(res, 200, stats);
  if (url.pathname === "/__check" && req.method === "POST") {
    const { token } = await readJson(req);
    stats.checks += 1;
    if (staticTokens.has(token)) return json(res, 200, { active: true, user: staticTokens.get(token) });
    const entry = accessTokens.get(token);
    const active = !!entry && !entry.revoked && Date.now() < entry.exp_ms;
    return json(res, 200, { active, user: active ? entry.user : null });
  }
  if (url.pathname === "/token" && req.method === "POST") {
    stats.token_requests += 1;
    if (config.mode === "unavailable") return json(res, 503, { error: "temporarily_unavailable" });
    if (config.mode === "slow") {
      let gone = false;
      res.on("close", () => { if (!res.writableFinished) gone = true; });
      await new Promise((r) => setTimeout(r, config.delay_ms));
      if (gone || req.socket.destroyed) {
        stats.dropped += 1;
        return;
      }
    }
  }
  service.requestHandler(req, res);
});

server.listen(0, "127.0.0.1", () => {
  const { port } = server.address();
  issuer.url = `http://127.0.0.1:${port}`;
  process.stdout.write(JSON.stringify({ port }) + "\n");
});

process.stdin.resume();
process.stdin.on("end", () => process.exit(0));
process.stdin.on("close", () => process.exit(0));
