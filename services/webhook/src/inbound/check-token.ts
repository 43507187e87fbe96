import type { NotificationItem } from "@junction/providers";
import type { WebhookServiceContext } from "../context.ts";
import type { ItemCheck, ReceivedRequest } from "./notification-event.ts";
import { checkChannel } from "./notification-lookups.ts";

/**
 * What receipt's channel check said of an item: "mismatch" (its token differs) or "unknown" (a strict
 * integration, and the registry does not hold its channel) when it must be dropped; otherwise whether
 * the registry answered (`checked`: false when it could not, and the worker checks before forwarding)
 * and the channel's connection ("" when none or unknown).
 */
export type ChannelChecked = "mismatch" | "unknown" | ItemCheck;

/**
 * The channel check of an item (see ChannelChecked). A strict integration's item naming no channel
 * is unknown, unless it is matched by the email it names (its provider authenticates those
 * otherwise, e.g. a signed push).
 */
export async function checkToken(
  ctx: WebhookServiceContext,
  req: ReceivedRequest,
  item: NotificationItem,
): Promise<ChannelChecked> {
  if (item.channelId === undefined) return req.strict && item.match?.by !== "email" ? "unknown" : PASSED;
  try {
    const n = { channelId: item.channelId, channelToken: item.token, messageNumber: item.messageNumber };
    const check = await checkChannel(ctx.lookups, req.environmentId, req.providerConfigKey, n);
    if (!check.tokenMatches) return "mismatch";
    if (req.strict && !check.known) return "unknown";
    return check.connectionId === "" ? PASSED : { checked: true, connectionId: check.connectionId };
  } catch (err) {
    ctx.logger.warn("channel registry unavailable at receipt; the token is checked before forwarding", {
      providerConfigKey: req.providerConfigKey,
      channelId: item.channelId,
      error: err,
    });
    return UNCHECKED;
  }
}

const PASSED: ItemCheck = { checked: true, connectionId: "" };
const UNCHECKED: ItemCheck = { checked: false, connectionId: "" };
