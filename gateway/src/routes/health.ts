import { z } from "zod";
import { json } from "../http/json.ts";
import type { Route } from "../router.ts";

/** GET /health: no auth; 200 when the gateway can reach the connection service. */
export function healthRoutes(): Route[] {
  return [
    {
      method: "GET",
      pattern: "/health",
      auth: false,
      handler: async ({ clients }) => {
        await clients.connection.getEnvironment({});
        return json({ result: "ok" });
      },
      doc: {
        summary: "Liveness",
        description: "200 when the gateway can reach the connection service. No secret key needed.",
        tags: ["Meta"],
        responses: { 200: z.object({ result: z.literal("ok") }) },
        errors: [],
      },
    },
  ];
}
