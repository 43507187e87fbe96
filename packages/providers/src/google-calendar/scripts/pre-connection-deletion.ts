import { createOnEvent } from "nango";

// spec: Customer-side scripts, pre-connection-deletion: if both stored ids exist, stop the channel; a
// failure is logged and must not block deletion (spec: Errors 2); with missing ids, do nothing.

export default createOnEvent({
  event: "pre-connection-deletion",
  description: "Stops the calendar notification channel before the connection is deleted",
  version: "1.0.0",
  exec: async (nango) => {
    const metadata = await nango.getMetadata();
    const id = typeof metadata.calendarChannelId === "string" ? metadata.calendarChannelId : "";
    const resourceId = typeof metadata.calendarResourceId === "string" ? metadata.calendarResourceId : "";
    if (!id || !resourceId) {
      nango.log("no calendar channel stored: nothing to stop");
      return { stopped: false };
    }
    try {
      await nango.post({ endpoint: "/calendar/v3/channels/stop", data: { id, resourceId } });
      nango.log(`stopped calendar channel ${id}`);
      return { stopped: true };
    } catch (err) {
      const status = (err as { status?: unknown }).status;
      nango.log(`could not stop calendar channel ${id} (status ${status ?? "none"}): ${(err as Error).message}`, {
        level: "error",
      });
      return { stopped: false };
    }
  },
});
