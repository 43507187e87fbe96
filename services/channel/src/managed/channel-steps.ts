import type { ChannelTokens } from "../channel-tokens.ts";
import type { Integration } from "@junction/contracts/connection/v1/connection_service_pb";
import { newId, randomToken } from "@junction/platform";
import {
  type ChannelAdapter,
  type ChannelCreation,
  providerAdapter,
  providerSettings,
  type UpstreamCall,
} from "@junction/providers";
import { channelProvider } from "../channel-providers.ts";
import type { ManagedSlotKey } from "../store/managed-records.ts";
import type { ChannelRecord } from "../store/records.ts";
import type { ChannelStore } from "../store/store.ts";
import {
  callUpstream,
  refusal,
  type UpstreamAnswer,
  type UpstreamCallDeps,
  type UpstreamFailure,
} from "../upstream-call.ts";

/** A create or renew call's outcome: the channel as recorded, or why there is none. */
export type StepResult = { channel: ChannelRecord } | { failure: UpstreamFailure } | { gone: true };

export interface StepDeps extends UpstreamCallDeps {
  store: ChannelStore;
  tokens: ChannelTokens;
}

/** Random bytes of a managed channel's token (its `clientState` on Graph, at most 128 characters). */
const TOKEN_BYTES = 32;

/** What a creation or renewal sends: the integration's webhook URL and settings (defaults applied). */
export function creationInput(
  integration: Integration,
  channelId: string,
  token: string,
  now: number,
): ChannelCreation {
  return {
    channelId,
    token,
    webhookUrl: integration.webhookUrl,
    settings: providerSettings(providerAdapter(integration.provider), integration.providerSettings),
    now,
  };
}

/**
 * Creates a new channel upstream with a fresh id and a fresh secret token, and records it in the
 * registry as the connection's (spec: lifecycle, "Creation").
 */
export async function createChannel(
  deps: StepDeps,
  key: ManagedSlotKey,
  integration: Integration,
  now: number,
): Promise<StepResult> {
  const input = creationInput(integration, newId("chn", now), randomToken(TOKEN_BYTES), now);
  if (channelProvider(integration.provider)?.createWatchesAccount) {
    const email = await accountEmail(deps, key, integration.provider);
    if (typeof email !== "string") return { failure: email };
    input.accountEmail = email;
  }
  let adapter: ChannelAdapter | undefined;
  const label = {
    action: "create" as const,
    environmentId: key.environmentId,
    channelId: input.channelId,
    answeredId: (body: Uint8Array) => adapter?.readCreated?.(input, body)?.channelId,
  };
  const res = await callUpstream(deps, key, label, (provider) => {
    adapter = provider;
    return provider.create ? built(() => provider.create?.(input)) : notManageable();
  });
  return record(deps, key, res, input, now, adapter);
}

/**
 * The account's email, read with the provider's reader and the connection's credentials (for an
 * adapter whose channels watch a resource named by it).
 */
async function accountEmail(deps: StepDeps, key: ManagedSlotKey, provider: string): Promise<string | UpstreamFailure> {
  const read = providerAdapter(provider)?.readAccountEmail;
  if (!read) return "";
  const resolved = await deps.proxy.resolveUpstream({ ...key, forceRefresh: false });
  const bearer = Object.entries(resolved.headers).find(([name]) => name.toLowerCase() === "authorization")?.[1] ?? "";
  const got = await read(deps.fetch, resolved.baseUrl, bearer.replace(/^Bearer\s+/i, ""), deps.timeoutMs);
  if (got.ok) return got.email;
  return {
    status: 0,
    code: "account_email_unavailable",
    message: `The account's email could not be read: ${got.reason}.`,
  };
}

/**
 * Renews an active channel in place with the provider's renew call (its id and token kept). `gone`
 * when the upstream no longer knows it (404), so that the caller creates a new one.
 */
export async function renewInPlace(
  deps: StepDeps,
  key: ManagedSlotKey,
  integration: Integration,
  channel: ChannelRecord,
  now: number,
): Promise<StepResult> {
  const token = deps.tokens.open(channel);
  const input = creationInput(integration, channel.id, token, now);
  const ref = {
    id: channel.id,
    resourceId: channel.resourceId,
    resourceUri: channel.resourceUri,
    connectionId: channel.connectionId,
    expirationMs: channel.expiration ?? 0,
    token,
  };
  let adapter: ChannelAdapter | undefined;
  const label = { action: "renew" as const, environmentId: key.environmentId, channelId: channel.id };
  const res = await callUpstream(deps, key, label, (provider) => {
    adapter = provider;
    const renew = provider.renew;
    return typeof renew === "function" ? built(() => renew(ref, input)) : notManageable();
  });
  if (!("code" in res) && res.status === 404) return { gone: true };
  return record(deps, key, res, input, now, adapter);
}

/** Reads the answer with the adapter and records the channel; a failure (its token redacted) otherwise. */
async function record(
  deps: StepDeps,
  key: ManagedSlotKey,
  res: UpstreamAnswer | UpstreamFailure,
  input: ChannelCreation,
  now: number,
  adapter: ChannelAdapter | undefined,
): Promise<StepResult> {
  if ("code" in res) return { failure: redact(res, input.token) };
  if (res.status < 200 || res.status > 299) return { failure: refusal(res, input.token) };
  const facts = adapter?.readCreated?.(input, res.body) ?? null;
  if (!facts) {
    return {
      failure: { status: res.status, code: "unreadable_answer", message: "The upstream's answer named no channel." },
    };
  }
  const { channel } = await deps.store.recordWatch({
    environmentId: key.environmentId,
    channelId: facts.channelId,
    resourceId: facts.resourceId,
    providerConfigKey: key.providerConfigKey,
    connectionId: key.connectionId,
    resourceUri: facts.resourceUri,
    expiration: facts.expirationMs || null,
    ...deps.tokens.seal(key.environmentId, facts.channelId, facts.token),
    at: now,
  });
  return { channel };
}

/**
 * The adapter's call, or a failure when it refuses to build one: a setting the provider needs is
 * missing (a mail topic). Its message names the setting, never a value.
 */
function built(make: () => UpstreamCall | undefined): UpstreamCall | UpstreamFailure {
  try {
    const call = make();
    return call ?? notManageable();
  } catch (err) {
    return { status: 0, code: "invalid_provider_settings", message: err instanceof Error ? err.message : String(err) };
  }
}

function notManageable(): UpstreamFailure {
  return {
    status: 0,
    code: "managed_channels_unsupported",
    message: "The integration's provider has no channels Junction can create or renew itself.",
  };
}

/** A failure's message without the channel's secret token, should the upstream have echoed it. */
function redact(failure: UpstreamFailure, token: string): UpstreamFailure {
  if (!token || !failure.message.includes(token)) return failure;
  return { ...failure, message: failure.message.split(token).join("[redacted]") };
}
