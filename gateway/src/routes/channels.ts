import { type Channel, ChannelState, StopOutcome } from "@junction/contracts/channel/v1/channel_service_pb";
import { providerAdapter } from "@junction/providers";
import { z } from "zod";
import { iso, json } from "../http/json.ts";
import { parseWith, queryObject, readJson } from "../http/read-json.ts";
import { dataOf, isoOrNull, type RouteDoc } from "../openapi/route-doc.ts";
import type { Route, RouteContext } from "../router.ts";

const STATES = {
  active: ChannelState.ACTIVE,
  stopped: ChannelState.STOPPED,
  expired: ChannelState.EXPIRED,
} as const;
type StateName = keyof typeof STATES;
const stateName = (s: ChannelState) => (Object.keys(STATES) as StateName[]).find((k) => STATES[k] === s) ?? "unknown";

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
/** `expiring_within`: a whole number and a unit, e.g. `1d`, `12h`, `30m`, `90s`; at most 366 days. */
const duration = z
  .string()
  .regex(/^\d{1,6}[smhd]$/, "must be a whole number followed by s, m, h or d, e.g. 1d")
  .transform((v) => Number(v.slice(0, -1)) * UNIT_MS[v.slice(-1) as keyof typeof UNIT_MS])
  .refine((ms) => ms > 0 && ms <= 366 * UNIT_MS.d, "must be more than 0 and at most 366d");

const str = z.string().min(1).max(255);
const listQuery = z
  .object({
    integration: str.optional(),
    connection: str.optional(),
    state: z.enum(Object.keys(STATES) as [StateName, ...StateName[]]).optional(),
    expiring_within: duration.optional(),
  })
  .strict();
const stopAllBody = z.object({ integration: str }).strict();

function present(c: Channel, kind: string) {
  return {
    id: c.id,
    kind,
    resource_id: c.resourceId,
    provider_config_key: c.providerConfigKey,
    connection_id: c.connectionId,
    resource_uri: c.resourceUri,
    expiration: iso(c.expirationMs),
    state: stateName(c.state),
    created_at: iso(c.createdAtMs),
    stopped_at: iso(c.stoppedAtMs),
    expiry_warned_at: iso(c.expiryWarnedAtMs),
    last_message_number: Number(c.lastMessageNumber),
  };
}

const channelAnswer = z
  .object({
    id: z.string(),
    kind: z
      .string()
      .describe('What its provider calls it ("watch channel", "mailbox watch", "subscription"); "" when unknown.'),
    resource_id: z.string(),
    provider_config_key: z.string(),
    connection_id: z.string(),
    resource_uri: z.string(),
    expiration: isoOrNull,
    state: z.enum([...(Object.keys(STATES) as StateName[]), "unknown"]),
    created_at: isoOrNull,
    stopped_at: isoOrNull,
    expiry_warned_at: isoOrNull,
    last_message_number: z.number(),
  })
  .meta({ id: "Channel" });
const stopAllAnswer = z.object({
  integration: z.string(),
  stopped: z.array(z.string()),
  gone: z.array(z.string()).describe("Channels the upstream no longer knew (404); counted as stopped."),
  failed: z.array(
    z.object({
      channel_id: z.string(),
      connection_id: z.string(),
      status: z.number().int().nullable(),
      code: z.string(),
      message: z.string(),
    }),
  ),
});

/** Each listed integration's channel kind, as its provider's adapter names it. */
async function channelKinds(clients: RouteContext["clients"], channels: Channel[]): Promise<Map<string, string>> {
  const kinds = new Map<string, string>();
  if (channels.length === 0) return kinds;
  const { integrations } = await clients.connection.listIntegrations({});
  for (const i of integrations) kinds.set(i.uniqueKey, providerAdapter(i.provider)?.channels?.label ?? "");
  return kinds;
}

interface StopFailure {
  channel_id: string;
  connection_id: string;
  status: number | null;
  code: string;
  message: string;
}

/**
 * /channels: the channel registry (read-only), and POST /channels/stop-all, the spec's rollback
 * ("stop webhooks by calling channel stop for each channel"): the channel service stops every active
 * channel of the integration upstream, with its connection's credentials, and records each outcome.
 * A channel the upstream no longer knows (404) is gone: it counts as stopped and is listed in `gone`.
 */
export function channelRoutes(): Route[] {
  return [
    { method: "GET", pattern: "/channels", handler: listChannels, doc: listDoc },
    { method: "POST", pattern: "/channels/stop-all", handler: stopAll, doc: stopAllDoc },
  ];
}

async function listChannels({ clients, url }: RouteContext): Promise<Response> {
  const q = parseWith(listQuery, queryObject(url), "invalid_query_params", "query");
  const { channels } = await clients.channel.listChannels({
    providerConfigKey: q.integration ?? "",
    connectionId: q.connection ?? "",
    state: q.state ? STATES[q.state] : ChannelState.UNSPECIFIED,
    expiringWithinMs: BigInt(q.expiring_within ?? 0),
  });
  const kinds = await channelKinds(clients, channels);
  return json({ data: channels.map((c) => present(c, kinds.get(c.providerConfigKey) ?? "")) });
}

/** Stops every channel of the integration; answers which stopped, which were gone, which failed. */
async function stopAll(ctx: RouteContext): Promise<Response> {
  const body = parseWith(stopAllBody, await readJson(ctx.req, 4096), "invalid_body", "body");
  const { results } = await ctx.clients.channel.stopChannels({ providerConfigKey: body.integration });
  const stopped: string[] = [];
  const gone: string[] = [];
  const failed: StopFailure[] = [];
  for (const r of results) {
    if (r.outcome === StopOutcome.FAILED) {
      failed.push({
        channel_id: r.channelId,
        connection_id: r.connectionId,
        status: r.status || null,
        code: r.code,
        message: r.message,
      });
      continue;
    }
    stopped.push(r.channelId);
    if (r.outcome === StopOutcome.GONE) gone.push(r.channelId);
  }
  ctx.logger.info("channels stopped", {
    requestId: ctx.requestId,
    stopped: stopped.length,
    gone: gone.length,
    failed: failed.length,
  });
  return json({ data: { integration: body.integration, stopped, gone, failed } });
}

const listDoc: RouteDoc = {
  summary: "List notification channels",
  tags: ["Channels"],
  query: listQuery,
  responses: { 200: dataOf(z.array(channelAnswer)) },
  errors: ["invalid_request"],
};

const stopAllDoc: RouteDoc = {
  summary: "Stop every channel of an integration",
  description: "The rollback: each active channel is stopped upstream with its connection's credentials.",
  tags: ["Channels"],
  body: stopAllBody,
  responses: { 200: dataOf(stopAllAnswer) },
  errors: ["unknown_provider_config", "integration_has_no_channels", "channel_stops_unavailable", "invalid_request"],
};
