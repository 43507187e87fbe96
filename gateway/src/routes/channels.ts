import { type Channel, ChannelState } from "@junction/contracts/channel/v1/channel_service_pb";
import { failedPrecondition, fromConnectError, JunctionError } from "@junction/platform";
import { z } from "zod";
import { iso, json } from "../http/json.ts";
import { parseWith, queryObject, readJson } from "../http/read-json.ts";
import { createUpstreamProxy, type UpstreamProxyOptions } from "../proxy/upstream-proxy.ts";
import type { Route, RouteContext } from "../router.ts";

const STATES = {
  active: ChannelState.ACTIVE,
  stopped: ChannelState.STOPPED,
  expired: ChannelState.EXPIRED,
} as const;
type StateName = keyof typeof STATES;
const stateName = (s: ChannelState) => (Object.keys(STATES) as StateName[]).find((k) => STATES[k] === s) ?? "unknown";

/**
 * Where a provider's channels are stopped, as a proxy path (spec: Upstream calendar API calls:
 * POST {calendar_api_base}/v3/channels/stop; the calendar template's proxy paths start at /calendar).
 */
const STOP_PATHS: Record<string, string> = { "google-calendar": "/calendar/v3/channels/stop" };
/** Upstream stop calls in flight at once during a rollback. */
const STOP_CONCURRENCY = 4;
/** Bytes of an upstream refusal kept in the answer. */
const REFUSAL_SNIPPET = 300;

const str = z.string().min(1).max(255);
const listQuery = z
  .object({
    integration: str.optional(),
    connection: str.optional(),
    state: z.enum(Object.keys(STATES) as [StateName, ...StateName[]]).optional(),
  })
  .strict();
const stopAllBody = z.object({ integration: str }).strict();

function present(c: Channel) {
  return {
    id: c.id,
    resource_id: c.resourceId,
    provider_config_key: c.providerConfigKey,
    connection_id: c.connectionId,
    resource_uri: c.resourceUri,
    expiration: iso(c.expirationMs),
    state: stateName(c.state),
    created_at: iso(c.createdAtMs),
    last_message_number: Number(c.lastMessageNumber),
  };
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
 * ("stop webhooks by calling channel stop for each channel"): every active channel of an integration
 * is stopped upstream through the proxy, with its connection's credentials, so the registry sees
 * each stop as it sees any other.
 */
export function channelRoutes(options: UpstreamProxyOptions = {}): Route[] {
  const proxy = createUpstreamProxy(options);

  async function stopOne(ctx: RouteContext, path: string, c: Channel): Promise<StopFailure | null> {
    const url = new URL(`/proxy${path}`, ctx.url);
    const req = new Request(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "provider-config-key": c.providerConfigKey,
        "connection-id": c.connectionId,
      },
      body: JSON.stringify({ id: c.id, resourceId: c.resourceId }),
    });
    const fail = (status: number | null, code: string, message: string) => ({
      channel_id: c.id,
      connection_id: c.connectionId,
      status,
      code,
      message,
    });
    try {
      const res = await proxy({ ...ctx, req, url, params: { "*": path.slice(1) } });
      const text = await res.text();
      if (res.ok) return null;
      return fail(
        res.status,
        "upstream_refused",
        `The upstream answered ${res.status}: ${text.slice(0, REFUSAL_SNIPPET)}`,
      );
    } catch (err) {
      const e = err instanceof JunctionError ? err : fromConnectError(err);
      if (e.code === "internal_error")
        ctx.logger.error("channel stop failed", { requestId: ctx.requestId, error: err });
      return fail(null, e.code, e.message);
    }
  }

  return [
    {
      method: "GET",
      pattern: "/channels",
      handler: async ({ clients, url }) => {
        const q = parseWith(listQuery, queryObject(url), "invalid_query_params");
        const { channels } = await clients.channel.listChannels({
          providerConfigKey: q.integration ?? "",
          connectionId: q.connection ?? "",
          state: q.state ? STATES[q.state] : ChannelState.UNSPECIFIED,
        });
        return json({ data: channels.map(present) });
      },
    },
    {
      method: "POST",
      pattern: "/channels/stop-all",
      handler: async (ctx) => {
        const body = parseWith(stopAllBody, await readJson(ctx.req, 4096), "invalid_body");
        const { integration } = await ctx.clients.connection.getIntegration({ uniqueKey: body.integration });
        const path = STOP_PATHS[integration?.provider ?? ""];
        if (!path) {
          throw failedPrecondition(
            "integration_has_no_channels",
            `Integration "${body.integration}" is of a provider without notification channels.`,
          );
        }
        const { channels } = await ctx.clients.channel.listChannels({
          providerConfigKey: body.integration,
          state: ChannelState.ACTIVE,
        });
        const stopped: string[] = [];
        const failed: StopFailure[] = [];
        let next = 0;
        const worker = async () => {
          for (let c = channels[next++]; c; c = channels[next++]) {
            const failure = await stopOne(ctx, path, c);
            if (failure) failed.push(failure);
            else stopped.push(c.id);
          }
        };
        await Promise.all(Array.from({ length: Math.min(STOP_CONCURRENCY, channels.length) }, worker));
        ctx.logger.info("channels stopped", {
          requestId: ctx.requestId,
          stopped: stopped.length,
          failed: failed.length,
        });
        return json({ data: { integration: body.integration, stopped, failed } });
      },
    },
  ];
}
