import { createOnEvent } from "nango";

// Gmail push: before the connection is deleted, stop its mailbox's watch
// (POST /gmail/v1/users/me/stop, https://developers.google.com/workspace/gmail/api/guides/push).
// The stop names no watch, so it is called whatever the metadata holds; a failure is logged at error
// level and the deletion goes on (the watch then lapses within 7 days).

export default createOnEvent({
  event: "pre-connection-deletion",
  description: "Stops the Gmail inbox watch before the connection is deleted",
  version: "1.0.0",
  exec: async (nango) => {
    try {
      await nango.post({ endpoint: "/gmail/v1/users/me/stop" });
      nango.log("stopped the mailbox watch");
      return { stopped: true };
    } catch (err) {
      const status = (err as { status?: unknown }).status;
      nango.log(`could not stop the mailbox watch (status ${status ?? "none"}): ${(err as Error).message}`, {
        level: "error",
      });
      return { stopped: false };
    }
  },
});
