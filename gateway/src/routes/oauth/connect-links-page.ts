import { queryObject } from "../../http/read-json.ts";
import type { RouteContext } from "../../router.ts";
import type { GatewayAttempt } from "./authorization-refusals.ts";
import { browserError } from "./browser-error.ts";
import { usesForm } from "./connect-form.ts";
import { escapeHtml, htmlPage } from "./html-page.ts";
import { startingOrigin } from "./opener.ts";

/**
 * The connect page without scripts, at /connect?connect_session_token=…: a list of links, each to the
 * integration's consent screen or form. The link older connect links open (and a browser without
 * scripts); the Connect UI at /connect/ is the page new links open.
 */
export async function connectLinksPage(ctx: RouteContext, attempt: GatewayAttempt): Promise<Response> {
  try {
    const token = queryObject(ctx.url).connect_session_token;
    const session = await ctx.clients.connection.getConnectSession({
      token: typeof token === "string" ? token : "",
    });
    const { providers } = await ctx.clients.connection.listProviders({});
    // This page sends no Referer on: the app that opened it is named to the next page explicitly.
    const opener = startingOrigin(ctx.req, ctx.url);
    const originParam = opener ? `&origin=${encodeURIComponent(opener)}` : "";
    const links = session.integrations
      .map((i) => {
        // A provider with an API key, a password or client credentials is connected through a form.
        const path = usesForm(providers.find((p) => p.name === i.provider)) ? "connect/form" : "oauth/connect";
        const href = `${ctx.baseUrl}/${path}/${encodeURIComponent(i.uniqueKey)}?connect_session_token=${encodeURIComponent(token as string)}${originParam}`;
        const docs = session.overrides[i.uniqueKey]?.docsConnect;
        const docsLink = docs ? ` <a class="docs" href="${escapeHtml(docs)}">Docs</a>` : "";
        return `<li><a href="${escapeHtml(href)}">${escapeHtml(i.displayName)}</a> <span class="code">${escapeHtml(i.uniqueKey)}</span>${docsLink}</li>`;
      })
      .join("");
    return htmlPage(
      200,
      {
        title: "Connect",
        code: "connect_session",
        heading: session.reconnectConnectionId ? "Authorize again" : "Connect an account",
        message:
          session.integrations.length > 0
            ? "Choose what to connect. You will be sent to the provider to sign in and allow access."
            : "This session allows no integration that exists.",
        extraHtml: `<ul id="integrations">${links}</ul>`,
      },
      ctx.requestId,
    );
  } catch (err) {
    await attempt.refused(err);
    return browserError(err, ctx, true, "Cannot connect");
  }
}
