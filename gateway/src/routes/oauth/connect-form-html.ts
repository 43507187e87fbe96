import type { Provider } from "@junction/contracts/connection/v1/connection_service_pb";
import { queryObject } from "../../http/read-json.ts";
import type { RouteContext } from "../../router.ts";
import { queryParams } from "./authorization-routes.ts";
import { formFields } from "./connect-form.ts";
import { escapeHtml } from "./html-page.ts";
import { startingOrigin } from "./opener.ts";

/** The form's hidden field naming the page that opened the flow (opener.ts); not a credential field. */
export const OPENER_FIELD = "opener_origin";
/** The form's hidden field carrying the frontend SDK's WebSocket id from the popup's URL. */
export const SOCKET_FIELD = "ws_client_id";

/** The connect form of the path's integration: its provider's fields, the session token and the hidden fields. */
export function formHtml(ctx: RouteContext, token: string, provider: Provider): string {
  const key = ctx.params.integration as string;
  const query = queryObject(ctx.url);
  // Fields the SDK passed as `params[key]` are filled in; secrets never travel in a URL.
  const given = queryParams(query);
  const inputs = formFields(provider)
    .map((f) => {
      const id = `field-${escapeHtml(f.key)}`;
      // https only (definitions are checked so when saved; a link shown to an end user never runs script).
      const where = f.docsUrl.startsWith("https://")
        ? ` <a class="docs" href="${escapeHtml(f.docsUrl)}" target="_blank" rel="noopener">Where to find it</a>`
        : "";
      const type = f.secret ? "password" : "text";
      const value = !f.secret && given[f.key] ? ` value="${escapeHtml(given[f.key] as string)}"` : "";
      return `<p><label for="${id}">${escapeHtml(f.label)}</label>${where}<br><input id="${id}" name="${escapeHtml(f.key)}" type="${type}"${value} autocomplete="off"></p>`;
    })
    .join("");
  const action = `${ctx.baseUrl}/connect/form/${encodeURIComponent(key)}`;
  const opener = startingOrigin(ctx.req, ctx.url);
  const origin = opener ? `<input type="hidden" name="${OPENER_FIELD}" value="${escapeHtml(opener)}">` : "";
  const socketId = typeof query[SOCKET_FIELD] === "string" ? query[SOCKET_FIELD] : "";
  const socket = socketId ? `<input type="hidden" name="${SOCKET_FIELD}" value="${escapeHtml(socketId)}">` : "";
  return `<form id="connect-form" method="post" action="${escapeHtml(action)}"><input type="hidden" name="connect_session_token" value="${escapeHtml(token)}">${origin}${socket}${inputs}<p><button type="submit">Connect</button></p></form>`;
}
