import { createOnEvent, type Nango } from "nango";

// Gmail push (https://developers.google.com/workspace/gmail/api/guides/push): after a connection is
// created, watch its mailbox so that Gmail publishes the inbox's changes to the Pub/Sub topic whose
// push subscription points at the integration's webhook URL; store the watch's facts in metadata, and the
// mailbox's address as `emailAddress`, which Junction matches each push's `emailAddress` against (as it
// does the emailAddressHash written at authorization; an imported connection may have none).
// Scripts cannot import each other: the watch helpers are repeated in watch-renewal.ts on purpose.

/** Your topic, projects/{project}/topics/{topic}; a connection's `gmailTopicName` metadata overrides it. */
const TOPIC_NAME = "projects/YOUR-PROJECT/topics/YOUR-TOPIC";

/** The topic to watch with: the connection's own, else the one above once it is edited. */
function topicOf(metadata: Record<string, unknown>): string {
  const own = typeof metadata.gmailTopicName === "string" ? metadata.gmailTopicName : "";
  const topic = own || TOPIC_NAME;
  if (!/^projects\/[^/]+\/topics\/[^/]+$/.test(topic) || topic.includes("YOUR-")) {
    throw new Error("no Pub/Sub topic: set TOPIC_NAME in the script, or gmailTopicName in the connection's metadata");
  }
  return topic;
}

/** Watches the inbox; throws when Gmail refuses (status ≥ 400) or answers without an expiration. */
async function watchMailbox(nango: Nango, topicName: string): Promise<Record<string, string>> {
  const res = await nango.post<{ historyId?: unknown; expiration?: unknown }>({
    endpoint: "/gmail/v1/users/me/watch",
    data: { topicName, labelIds: ["INBOX"], labelFilterBehavior: "INCLUDE" },
  });
  const historyId = String(res.data?.historyId ?? "");
  const expiration = String(res.data?.expiration ?? "");
  if (res.status !== 200 || !/^\d+$/.test(expiration)) {
    throw new Error(`the watch call answered ${res.status} without an expiration`);
  }
  return { gmailTopicName: topicName, gmailWatchHistoryId: historyId, gmailWatchExpiration: expiration };
}

/** The mailbox's address (GET /gmail/v1/users/me/profile); throws when Gmail names none. */
async function mailboxAddress(nango: Nango): Promise<string> {
  const res = await nango.get<{ emailAddress?: unknown }>({ endpoint: "/gmail/v1/users/me/profile" });
  const address = typeof res.data?.emailAddress === "string" ? res.data.emailAddress : "";
  if (!address) throw new Error(`the profile call answered ${res.status} without an emailAddress`);
  return address;
}

export default createOnEvent({
  event: "post-connection-creation",
  description:
    "Watches the Gmail inbox (Pub/Sub push) and stores the watch and the mailbox address in the connection's metadata",
  version: "1.0.0",
  exec: async (nango) => {
    const topic = topicOf(await nango.getMetadata());
    const emailAddress = await mailboxAddress(nango);
    const watch: Record<string, string> = { ...(await watchMailbox(nango, topic)), emailAddress };
    await nango.updateMetadata(watch);
    nango.log(`watching the mailbox on ${watch.gmailTopicName} until ${watch.gmailWatchExpiration}`);
    return watch;
  },
});
