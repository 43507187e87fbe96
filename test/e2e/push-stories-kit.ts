import { expect } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { providerAdapter } from "@junction/providers";
import type { WebhookReceiver } from "../fake-upstream/index.ts";
import type { TestJunction } from "../support/embedded-junction.ts";
import { waitFor } from "../support/wait-for.ts";
import { CLIENT } from "./oauth-e2e-kit.ts";

// Shared by the Gmail and Outlook stories: what the calendar story does inline,
// for an integration of any provider with settings, its templates deployed through the Scripts API.

export interface ForwardedWebhook {
  type: string;
  from: string;
  providerConfigKey: string;
  connectionId?: string;
  payload: Record<string, unknown>;
}

/** The integration body's OAuth client (the fakes' registered one) and scopes. */
export function testClient(scopes: string[]) {
  return { type: "OAUTH2", client_id: CLIENT.clientId, client_secret: CLIENT.clientSecret, scopes };
}

/** Creates an integration with its provider settings through the API; its webhook URL. */
export async function createIntegration(
  j: TestJunction,
  body: Record<string, unknown> & { unique_key: string },
  providerSettings: Record<string, string>,
): Promise<string> {
  const created = await j.api("POST", "/integrations", { ...body, provider_settings: providerSettings });
  if (created.status !== 200) throw new Error(`integration: ${created.status} ${created.text}`);
  expect(created.body.data.provider_settings).toMatchObject(providerSettings);
  return created.body.data.webhook_url as string;
}

/** Deploys a provider's script templates as a customer does, each source edited by `edit` first. */
export async function deployTemplates(
  j: TestJunction,
  provider: string,
  key: string,
  edit: (source: string) => string = (s) => s,
): Promise<void> {
  const templates = providerAdapter(provider)?.scriptTemplates;
  if (!templates) throw new Error(`${provider} has no script templates`);
  for (const name of templates.names) {
    const source = edit(readFileSync(join(templates.directory, `${name}.ts`), "utf8"));
    const deployed = await j.api("POST", "/scripts", {
      provider_config_key: key,
      name,
      filename: `${name}.ts`,
      source,
    });
    expect(deployed.status).toBe(201);
  }
}

export interface ScriptRun {
  id: string;
  script_name: string;
  status: string;
  trigger: string;
}

/** Script runs of an integration matching `query`, and one run's log lines as "level: message". */
export function scriptRuns(j: TestJunction, key: string) {
  return {
    async list(query: string): Promise<ScriptRun[]> {
      return (await j.api("GET", `/scripts/runs?provider_config_key=${key}&${query}`)).body.data as ScriptRun[];
    },
    async logs(id: string): Promise<string[]> {
      const run = (await j.api("GET", `/scripts/runs/${id}`)).body.data;
      return (run.logs as { level: string; message: string }[]).map((l) => `${l.level}: ${l.message}`);
    },
    /** The first finished run of `script` (after `skip` earlier ones). */
    finished(script: string, skip = 0): Promise<ScriptRun> {
      return waitFor(`a finished run of ${script}`, async () => {
        const done = (await this.list(`script=${script}`)).filter((r) => r.status !== "running");
        return done.length > skip ? done[done.length - 1 - skip] : null;
      });
    },
  };
}

/** The connection's metadata once `ready` holds for it. */
export function metadataOf(j: TestJunction, key: string, connectionId: string) {
  return (what: string, ready: (m: Record<string, unknown>) => boolean) =>
    waitFor(what, async () => {
      const m = (await j.api("GET", `/connection/${connectionId}?provider_config_key=${key}`)).body.metadata ?? {};
      return ready(m) ? (m as Record<string, unknown>) : null;
    });
}

/** The `forward` webhooks the customer received for an integration, in arrival order. */
export function forwardsOf(receiver: WebhookReceiver, key: string): ForwardedWebhook[] {
  return receiver.received
    .map((r) => JSON.parse(r.body) as ForwardedWebhook)
    .filter((b) => b.type === "forward" && b.providerConfigKey === key);
}

/** The channel registry's channels of a connection, as `[id, state]`. */
export async function registryOf(j: TestJunction, connectionId: string): Promise<[string, string][]> {
  const res = await j.api("GET", `/channels?connection=${encodeURIComponent(connectionId)}`);
  return (res.body.data as { id: string; state: string }[]).map((c) => [c.id, c.state]);
}

/** The registry's expiration of one channel of a connection, Unix ms; null when unknown or not listed. */
export async function registryExpirationOf(j: TestJunction, connectionId: string, id: string): Promise<number | null> {
  const res = await j.api("GET", `/channels?connection=${encodeURIComponent(connectionId)}`);
  const channel = (res.body.data as { id: string; expiration: string | null }[]).find((c) => c.id === id);
  return channel?.expiration ? Date.parse(channel.expiration) : null;
}

/** Fails when a secret shows in Junction's logs. */
export function expectNoSecretsLogged(j: TestJunction, secrets: Iterable<string>): void {
  const logs = j.logLines.join("\n");
  for (const secret of secrets) expect(logs).not.toContain(secret);
}
