// A real token issuer for the `charter mcp --http --auth` tests: npm `oauth2-mock-server`
// (OpenID metadata at /.well-known/openid-configuration, keys at /jwks, a /token endpoint), on
// 127.0.0.1. Its tokens carry `aud` = the RFC 8707 `resource` parameter of the token request
// (what an MCP client sends), and `sub` = `username` (password grant).
// Test-only routes: POST /__mint {claims, drop, expires_in, key: "main" | "new" | "rogue"} signs a
// token with custom claims (`new`: a key added to the published set now; `rogue`: a key never
// published); GET /__stats {jwks, metadata} counts key set and metadata requests.
//
// Usage: node jwt-issuer.mjs <npm prefix holding node_modules/oauth2-mock-server>
// Prints {"port": N} once listening; exits when stdin closes.

import http from "node:http";
import path from "node:path";
import { readJson, json } from "./json.mjs";
import { pathToFileURL } from "node:url";

const prefix = process.argv[2];
const entry = path.join(prefix, "node_modules", "oauth2-mock-server", "dist", "index.mjs");
const { OAuth2Issuer, OAuth2Service, Events } = await import(pathToFileURL(entry).href);

const issuer = new OAuth2Issuer();
const main = await issuer.keys.generate("RS256");
const rogue = new OAuth2Issuer();
await rogue.keys.generate("RS256");
const service = new OAuth2Service(issuer);
const stats = { jwks: 0, metadata: 0 };

service.on(Events.BeforeTokenSigning, (token, req) => {
  const body = req.body ?? {};
  if (body.resource) token.payload.aud = body.resource;
  if (body.username) token.payload.sub = body.username;
});

async function mint(body) {
  let signer = issuer;
  let kid = main.kid;
  if (body.key === "new") kid = (await issuer.keys.generate("RS256")).kid;
  if (body.key === "rogue") signer = rogue;
  if (signer === rogue) kid = undefined;
  const transform = (_header, payload) => {
    Object.assign(payload, body.claims ?? {});
    for (const claim of body.drop ?? []) delete payload[claim];
  };
  return signer.buildToken({ kid, scopesOrTransform: transform, expiresIn: body.expires_in ?? 3600 });
}

const server = http.createServer(async (req, res) => {
  const url = new URL(req.url, "http://127.0.0.1");
  if (url.pathname === "/__mint" && req.method === "POST") {
    return json(res, 200, { token: await mint(await readJson(req)) });
  }
  if (url.pathname === "/__stats") return json(res, 200, stats);
  if (url.pathname === "/jwks") stats.jwks += 1;
  if (url.pathname.startsWith("/.well-known/")) stats.metadata += 1;
  service.requestHandler(req, res);
});

server.listen(0, "127.0.0.1", () => {
  const { port } = server.address();
  issuer.url = `http://127.0.0.1:${port}`;
  rogue.url = issuer.url;
  process.stdout.write(JSON.stringify({ port }) + "\n");
});

process.stdin.resume();
process.stdin.on("end", () => process.exit(0));
process.stdin.on("close", () => process.exit(0));
