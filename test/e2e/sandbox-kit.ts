import { expect } from "bun:test";
import type { TestJunction } from "../support/embedded-junction.ts";

// Steps shared by the tests of the built-in sandbox upstream (JUNCTION_SANDBOX_UPSTREAM=true).

/** Creates the integration, turns test mode on; its webhook URL. */
export async function integration(junction: TestJunction, body: Record<string, unknown> & { unique_key: string }) {
  const created = await junction.api("POST", "/integrations", body);
  expect(created.status).toBe(200);
  const mode = await junction.api("PUT", `/integrations/${body.unique_key}/test-mode`, { enabled: true });
  expect(mode.body.data).toMatchObject({ enabled: true, available: true, sandbox: true });
  return created.body.data.webhook_url as string;
}

/** Plays the browser: connect link → the sandbox's consent page → its Allow/Accept button → callback. */
export async function connectInBrowser(
  junction: TestJunction,
  key: string,
  email: string,
  /** Scopes asked for beyond the integration's (Nango's `user_scopes`): what the test's writes need. */
  extraScopes: string[] = [],
): Promise<string> {
  const defaults = extraScopes.length > 0 ? { [key]: { user_scopes: extraScopes.join(",") } } : undefined;
  const session = { end_user: { id: "me" }, ...(defaults ? { integrations_config_defaults: defaults } : {}) };
  const token = (await junction.api("POST", "/connect/sessions", session)).body.data.token;
  const redirect = await fetch(`${junction.url}/oauth/connect/${key}?connect_session_token=${token}`, {
    redirect: "manual",
  });
  expect(redirect.status).toBe(302);
  const consentUrl = new URL(redirect.headers.get("location") as string);
  const form = await (await fetch(consentUrl)).text();
  const decode = (text: string) => text.replace(/&#(\d+);/g, (_, n) => String.fromCharCode(Number(n)));
  const fields = new URLSearchParams();
  for (const m of form.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) {
    fields.set(decode(m[1] as string), decode(m[2] as string));
  }
  fields.set("login_email", email);
  fields.set(
    "decision",
    decode(/<button id="allow" type="submit" name="decision" value="([^"]*)"/.exec(form)?.[1] ?? ""),
  );
  const action = decode(/<form id="consent" method="post" action="([^"]*)"/.exec(form)?.[1] ?? "");
  const approved = await fetch(new URL(action, consentUrl), {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: fields.toString(),
    redirect: "manual",
  });
  expect(approved.status).toBe(302);
  const callback = new URL(approved.headers.get("location") as string);
  const page = await fetch(`${junction.url}/oauth/callback${callback.search}`);
  expect(await page.text()).toContain('<span id="code">connected</span>');
  const list = await junction.api("GET", `/connections?integrationId=${key}`);
  return list.body.connections[0].connection_id as string;
}
