import { createSync, type Nango } from "nango";

// Gmail push: "you must re-call watch at least every 7 days", and Google recommends once a day
// (https://developers.google.com/workspace/gmail/api/guides/push). A watch again replaces the
// mailbox's one watch, so renewing is watching again: nothing to stop. A refused watch fails the run
// and leaves the metadata as it was (the previous watch runs until its expiration).
// The watch helpers repeat post-connection-creation.ts on purpose: a deployed script is one file
// and may import only "nango".

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

export default createSync({
  description: "Renews the Gmail inbox watch every day (a watch again replaces the previous one)",
  version: "1.0.0",
  frequency: "1d",
  autoStart: true,
  // An identifier of the renewal script, not a service endpoint.
  endpoint: "GET /google-mail/watch-renewal",
  exec: async (nango) => {
    const before = await nango.getMetadata();
    const watch = await watchMailbox(nango, topicOf(before));
    await nango.updateMetadata(watch);
    const previous = typeof before.gmailWatchExpiration === "string" ? before.gmailWatchExpiration : "(none)";
    nango.log(`renewed the mailbox watch: expiration ${previous} → ${watch.gmailWatchExpiration}`);
    return watch;
  },
});
