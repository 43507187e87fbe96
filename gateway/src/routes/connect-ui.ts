import { join } from "node:path";
import { z } from "zod";
import { connectUiPage, connectUiHeaders } from "../connect-ui/connect-ui-page.ts";
import type { ConnectUiSettings } from "../connect-ui/connect-ui-settings.ts";
import { type Asset, BundledAssets } from "../http/bundled-assets.ts";
import type { RouteDoc } from "../openapi/route-doc.ts";
import type { Handler, Route, RouteContext } from "../router.ts";
import { GatewayAttempt, type RefusalLog } from "./oauth/authorization-refusals.ts";
import { connectLinksPage } from "./oauth/connect-links-page.ts";

const CLIENT_DIR = join(import.meta.dir, "..", "connect-ui");

/**
 * The Connect UI: GET /connect/ (the page Nango's `openConnectUI` frames, and the connect link opens),
 * its script and stylesheet. /connect?connect_session_token=… (older connect links) keeps its page
 * without scripts (what it refuses is recorded); /connect without either is sent on to /connect/.
 */
export function connectUiRoutes(settings: ConnectUiSettings, refusals: RefusalLog): Route[] {
  const ancestors = settings.connectUiFrameAncestors;
  const assets = new BundledAssets(join(CLIENT_DIR, "client", "main.ts"), join(CLIENT_DIR, "connect-ui.css"));
  return [
    { method: "GET", pattern: "/connect", auth: false, handler: connectPage(ancestors, refusals), doc: connectPageDoc },
    {
      method: "GET",
      pattern: "/connect/ui.js",
      auth: false,
      handler: async (ctx) => serveAsset(ctx, await assets.appScript(), ancestors),
    },
    {
      method: "GET",
      pattern: "/connect/ui.css",
      auth: false,
      handler: async (ctx) => serveAsset(ctx, await assets.stylesheet(), ancestors),
    },
  ];
}

/** GET /connect: the UI at /connect/, the page without scripts for an older link's token, else on to /connect/. */
function connectPage(ancestors: readonly string[], refusals: RefusalLog): Handler {
  return async (ctx) => {
    if (ctx.url.pathname.endsWith("/")) {
      return new Response(connectUiPage(ancestors), {
        headers: connectUiHeaders("text/html; charset=utf-8", ancestors),
      });
    }
    if (ctx.url.searchParams.has("connect_session_token")) {
      return connectLinksPage(ctx, new GatewayAttempt(refusals, ctx, "GET /connect"));
    }
    // The UI's assets are relative to its page: it is always served at a path ending in /.
    return new Response(null, {
      status: 308,
      headers: { location: `${ctx.url.pathname}/${ctx.url.search}`, "cache-control": "no-store" },
    });
  };
}

/** One of the UI's assets, revalidated by its etag on every load (304 when the browser holds it). */
function serveAsset(ctx: RouteContext, a: Asset, ancestors: readonly string[]): Response {
  const headers = connectUiHeaders(a.contentType, ancestors, { etag: a.etag, "cache-control": "no-cache" });
  if (ctx.req.headers.get("if-none-match") === a.etag) return new Response(null, { status: 304, headers });
  return new Response(a.body, { headers });
}

const connectPageDoc: RouteDoc = {
  summary: "The Connect UI",
  description:
    "`/connect/` is the Connect UI, a page for the end user: it takes the session token from `session_token` in its address (the `connect_link`) or from the page that frames it (Nango's `openConnectUI`), lists the integrations the session allows, and connects one (consent screen in a sign-in window, or a form). Framed only by the origins of `JUNCTION_CONNECT_UI_FRAME_ANCESTORS`. `/connect?connect_session_token=…` is the page without scripts older connect links open; `/connect` without either redirects to `/connect/`. See docs/connect-ui.md.",
  tags: ["Connect"],
  query: z.object({
    session_token: z.string().optional(),
    connect_session_token: z.string().optional(),
    lang: z.string().optional(),
    theme: z.enum(["light", "dark", "system"]).optional(),
  }),
  queryUnchecked: true,
  responses: {
    200: { description: "An HTML page.", contentType: "text/html" },
    308: { description: "To /connect/.", headers: { location: "/connect/ with the same query." } },
  },
  errors: ["unknown_connect_session_token", "connect_session_expired"],
};
