import { createOnEvent } from "nango";

// Before the connection is deleted, delete its Graph subscription
// (DELETE /v1.0/subscriptions/{id}, https://learn.microsoft.com/en-us/graph/api/subscription-delete).
// A failure is logged and must not block the deletion; with no stored id, nothing is called.

export default createOnEvent({
  event: "pre-connection-deletion",
  description: "Deletes the Outlook calendar subscription before the connection is deleted",
  version: "1.0.0",
  exec: async (nango) => {
    const metadata = await nango.getMetadata();
    const id = typeof metadata.outlookSubscriptionId === "string" ? metadata.outlookSubscriptionId : "";
    if (!id) {
      nango.log("no Outlook subscription stored: nothing to delete");
      return { deleted: false };
    }
    try {
      await nango.delete({ endpoint: `/v1.0/subscriptions/${encodeURIComponent(id)}` });
      nango.log(`deleted Outlook subscription ${id}`);
      return { deleted: true };
    } catch (err) {
      const status = (err as { status?: unknown }).status;
      nango.log(`could not delete Outlook subscription ${id} (status ${status ?? "none"}): ${(err as Error).message}`, {
        level: "error",
      });
      return { deleted: false };
    }
  },
});
