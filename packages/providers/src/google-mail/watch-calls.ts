import { createHash } from "node:crypto";
import { ChannelCall } from "@junction/contracts/events/v1/events_pb";
import type { ChannelAdapter, ChannelCallFacts, ChannelCreation, UpstreamCall } from "../adapter.ts";
import { millis, parseObject, text } from "../google/json-fields.ts";
import { SETTING } from "./settings.ts";

// Gmail's mailbox watch (https://developers.google.com/workspace/gmail/api/guides/push): one watch per
// mailbox, no channel id or token of its own; `watch` again replaces it, `stop` ends it.

const WATCH_PATH = /^\/?gmail\/v1\/users\/[^/]+\/watch$/;
const STOP_PATH = /^\/?gmail\/v1\/users\/[^/]+\/stop$/;
const WATCH = "/gmail/v1/users/me/watch";
const STOP = "/gmail/v1/users/me/stop";
const CHANNEL_PREFIX = "gmail-watch-";
/** Channel ids are at most 64 characters (the registry's limit, as the upstream's for calendars). */
const MAX_CHANNEL_ID = 64;
const DAY_MS = 24 * 3600 * 1000;

/** Whether a proxied call creates (watch) or stops a mailbox watch. */
export function watchCallOf(method: string, path: string): ChannelCall | undefined {
  if (method !== "POST") return undefined;
  const bare = path.split("?", 1)[0] ?? "";
  if (WATCH_PATH.test(bare)) return ChannelCall.WATCH;
  if (STOP_PATH.test(bare)) return ChannelCall.STOP;
  return undefined;
}

/**
 * The registry's id of a connection's watch: Gmail names none, and a mailbox has one watch, so the
 * connection names it (a hash of it when the id would be too long).
 */
export function watchChannelId(connectionId: string): string {
  const plain = `${CHANNEL_PREFIX}${connectionId}`;
  if (plain.length <= MAX_CHANNEL_ID) return plain;
  return `${CHANNEL_PREFIX}${createHash("sha256").update(connectionId).digest("hex").slice(0, 48)}`;
}

/**
 * A watch sends `{topicName, labelIds?, labelFilterBehavior?}` and gets back `{historyId, expiration}`
 * (Unix ms as a string); a stop sends and gets nothing. The watched resource is the topic; there is
 * no resource id or token (both "", so a stop matches its watch in the registry).
 */
export function readWatchCall(
  call: ChannelCall,
  requestBody: Uint8Array,
  responseBody: Uint8Array,
  context: { connectionId: string },
): ChannelCallFacts | null {
  if (!context.connectionId) return null;
  const facts = { channelId: watchChannelId(context.connectionId), resourceId: "", token: "" };
  if (call !== ChannelCall.WATCH) return { ...facts, resourceUri: "", expirationMs: 0 };
  return {
    ...facts,
    resourceUri: text(parseObject(requestBody).topicName),
    expirationMs: millis(parseObject(responseBody).expiration),
  };
}

/** The watch Junction makes itself: the integration's topic, the inbox's changes. */
function createWatch(input: ChannelCreation): UpstreamCall {
  const topicName = input.settings[SETTING.topic] ?? "";
  if (!topicName) {
    throw new Error(
      `the integration has no "${SETTING.topic}" setting (projects/{project}/topics/{topic}); Gmail watches need one`,
    );
  }
  return { method: "POST", path: WATCH, body: JSON.stringify({ topicName, labelIds: ["INBOX"] }) };
}

/** The channel adapter of Gmail's mailbox watches. */
export const gmailWatches: ChannelAdapter = {
  label: "mailbox watch",
  callOf: watchCallOf,
  readCall: readWatchCall,
  stopCall: () => ({ method: "POST", path: STOP }),
  // https://developers.google.com/workspace/gmail/api/guides/push: "you must re-call watch at least
  // every 7 days or else you will stop receiving updates"; Google recommends once per day.
  maxLifetimeMs: 7 * DAY_MS,
  renewMarginMs: 6 * DAY_MS,
  create: createWatch,
  readCreated: (input, responseBody) => {
    const got = parseObject(responseBody);
    const expirationMs = millis(got.expiration);
    if (!expirationMs && !text(got.historyId)) return null;
    return {
      channelId: input.channelId,
      resourceId: "",
      resourceUri: input.settings[SETTING.topic] ?? "",
      expirationMs,
      token: "",
    };
  },
  // A watch again extends the mailbox's one watch in place.
  renew: (_channel, input) => createWatch(input),
};
