import { METADATA_KEY_RULES } from "@junction/providers";
import { errorResponse } from "../http/error-response.ts";
import { ADMIN_SCOPE, allows } from "../middleware/scopes.ts";
import { json } from "../http/json.ts";
import { dashboardApiHandler } from "../dashboard/dashboard-api.ts";
import { type Asset, DashboardAssets } from "../dashboard/dashboard-assets.ts";
import { DashboardAuth, sameOrigin, sessionCookie } from "../dashboard/dashboard-auth.ts";
import { dashboardHeaders, htmlResponse, loginPage, shellPage } from "../dashboard/dashboard-pages.ts";
import { DashboardSessions } from "../dashboard/dashboard-sessions.ts";
import { LoginThrottle } from "../dashboard/login-throttle.ts";
import { readForm } from "../dashboard/read-form.ts";
import { watchUriHint } from "../dashboard/watch-uri-hints.ts";
import type { Route, RouteContext, Router } from "../router.ts";

export interface DashboardOptions {
  /** The gateway's router: /dashboard/api/* runs the same REST handlers. */
  router: () => Router;
  now?: () => number;
  sessions?: DashboardSessions;
  /** The client address of a request (the server's peer; a reverse proxy's own address behind one). */
  addressOf?: (req: Request) => string | undefined;
  /** What the operator switched on at start (JUNCTION_METRICS_TOKEN, OTEL_EXPORTER_OTLP_ENDPOINT): shown read-only. */
  observability?: { metrics: boolean; tracing: boolean };
}

const API_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
const redirect = (location: string, headers: Record<string, string> = {}) =>
  new Response(null, { status: 303, headers: { location, "cache-control": "no-store", ...headers } });

/** The known connection metadata keys, as the dashboard's metadata editor shows and checks them. */
const DASHBOARD_METADATA_KEYS = [
  { key: "emailAddress", type: "string", description: "the account's email (matching rule 2)" },
  { key: "email", type: "string", description: "an email (matching rule 2)" },
  ...METADATA_KEY_RULES.map((rule) => ({
    key: rule.key,
    type: rule.type,
    description: rule.matchKey ? `${rule.description}, matched exactly` : rule.description,
    ...(rule.matchKey ? { match_key: rule.matchKey } : {}),
  })),
];

/** What the dashboard's handlers share: its sessions, the login throttle and the assets. */
interface Dashboard {
  options: DashboardOptions;
  sessions: DashboardSessions;
  auth: DashboardAuth;
  throttle: LoginThrottle;
  addressOf: (req: Request) => string | undefined;
  assets: DashboardAssets;
}

/**
 * The dashboard, served by the gateway under /dashboard: a login with a secret key that
 * sets a signed session cookie (HttpOnly, SameSite=Strict, Path=/dashboard), one page whose script
 * renders every view, and /dashboard/api/* for that script. Nothing but the login page and the
 * stylesheet answers without a session.
 */
export function dashboardRoutes(options: DashboardOptions): Route[] {
  const now = options.now ?? Date.now;
  const sessions = options.sessions ?? new DashboardSessions({ now });
  const auth = new DashboardAuth(sessions, now);
  const d: Dashboard = {
    options,
    sessions,
    auth,
    throttle: new LoginThrottle(now),
    addressOf: options.addressOf ?? (() => undefined),
    assets: new DashboardAssets(),
  };
  const api = dashboardApiHandler(auth, options.router);
  return [
    open("GET", "/", async () => redirect("/dashboard")),
    open("GET", "/dashboard", (ctx) => shell(ctx, d)),
    open("GET", "/dashboard/login", async (ctx) =>
      (await auth.session(ctx)) ? redirect("/dashboard") : htmlResponse(200, loginPage()),
    ),
    open("POST", "/dashboard/login", (ctx) => logIn(ctx, d)),
    open("POST", "/dashboard/logout", async (ctx) => {
      sessions.logOut(await auth.require(ctx));
      return json({ success: true }, 200, { "set-cookie": sessionCookie(ctx, "", 0) });
    }),
    open("GET", "/dashboard/assets/dashboard.css", async (ctx) => serveAsset(ctx, await d.assets.stylesheet())),
    open("GET", "/dashboard/assets/app.js", async (ctx) => {
      await auth.require(ctx);
      return serveAsset(ctx, await d.assets.appScript());
    }),
    open("GET", "/dashboard/api/session", (ctx) => sessionAnswer(ctx, d)),
    open("GET", "/dashboard/api/webhook-messages/:id/watch-uri-hints", async (ctx) => {
      await auth.require(ctx);
      return json({ data: await watchUriHint(ctx.clients, ctx.params.id ?? "") });
    }),
    ...API_METHODS.map((method) => open(method, "/dashboard/api/*", api)),
    open("GET", "/dashboard/*", async (ctx) =>
      errorResponse(404, "not_found", `No dashboard page at ${ctx.url.pathname}; the dashboard is at /dashboard.`),
    ),
  ];
}

/** A dashboard route: each checks the session itself (the login page and the stylesheet need none). */
function open(method: string, pattern: string, handler: Route["handler"]): Route {
  return { method, pattern, auth: false, handler };
}

/** GET /dashboard: the page whose script renders every view, or the login. */
async function shell(ctx: RouteContext, d: Dashboard): Promise<Response> {
  const session = await d.auth.session(ctx);
  if (!session) return redirect("/dashboard/login");
  return htmlResponse(200, shellPage(d.sessions.csrfToken(session), ctx.baseUrl));
}

/** POST /dashboard/login: a full-access secret key opens a session; failures are throttled per address and key. */
async function logIn(ctx: RouteContext, d: Dashboard): Promise<Response> {
  if (!sameOrigin(ctx)) return htmlResponse(403, loginPage("Log in from this Junction's own login page."));
  const form = await readForm(ctx.req, 4096);
  const key = (form.secret_key ?? "").trim();
  const address = d.addressOf(ctx.req) ?? "unknown";
  const wait = d.throttle.retryAfterSeconds(address, key);
  if (wait > 0) return throttled(wait);
  const refused = () => {
    d.throttle.failed(address, key);
    return htmlResponse(401, loginPage("That secret key is not valid, or it was revoked."));
  };
  if (key === "") return refused();
  const verified = await ctx.clients.connection.verifySecretKey({ secretKey: key });
  if (!verified.valid) return refused();
  // The dashboard can do everything: a key limited to scopes does not open it.
  if (!allows(verified.scopes, ADMIN_SCOPE)) {
    return htmlResponse(403, loginPage("That secret key is limited to scopes; log in with a full-access key."));
  }
  const { cookieValue } = d.sessions.issue(verified.environmentId, verified.keyId);
  ctx.logger.info("dashboard login", { requestId: ctx.requestId, keyId: verified.keyId });
  return redirect("/dashboard", { "set-cookie": sessionCookie(ctx, cookieValue, d.sessions.ttl) });
}

/** GET /dashboard/api/session: what the script shows of the session and the operator's settings. */
async function sessionAnswer(ctx: RouteContext, d: Dashboard): Promise<Response> {
  const session = await d.auth.require(ctx);
  const { environment } = await ctx.clients.connection.getEnvironment({});
  return json({
    data: {
      environment_id: session.environmentId,
      key_id: session.keyId,
      // The operator's JUNCTION_CREDENTIAL_READS, shown read-only: no API call changes it.
      credential_reads: environment?.credentialReads === true,
      base_url: ctx.baseUrl,
      redirect_uri: `${ctx.baseUrl}/oauth/callback`,
      expires_at: new Date(session.expiresAtMs).toISOString(),
      metrics_enabled: d.options.observability?.metrics === true,
      tracing_enabled: d.options.observability?.tracing === true,
      // The metadata editor's known keys: the spec's, then those the providers declare.
      metadata_keys: DASHBOARD_METADATA_KEYS,
    },
  });
}

/** 429 with Retry-After: too many failed logins from this address, or with this key. */
function throttled(seconds: number): Response {
  const page = loginPage(`Too many failed logins from here. Try again in ${seconds} seconds.`);
  return htmlResponse(429, page, { "retry-after": String(seconds) });
}

/** An asset with its ETag; a matching If-None-Match gets 304. Private: the app script is behind the login. */
function serveAsset(ctx: RouteContext, a: Asset): Response {
  const headers = dashboardHeaders(a.contentType, { etag: a.etag, "cache-control": "private, no-cache" });
  if (ctx.req.headers.get("if-none-match") === a.etag) return new Response(null, { status: 304, headers });
  return new Response(a.body, { headers });
}
