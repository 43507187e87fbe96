import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startEmbedded } from "@junction/cli";
import { createLogger } from "@junction/platform";
import { addConnection, SECRET_KEY } from "./topologies.ts";

/** The upstream the loops' connection points at: never dialled, `fetch` answers it at once. */
export const LOOP_UPSTREAM = "http://127.0.0.1:9";
const SMALL = JSON.stringify({ kind: "calendar#calendarListEntry", id: "alice@example.com", primary: true });

/**
 * Junction's embedded services for a request loop without sockets (js-loop.ts, gateway-ab.ts): a connection
 * to LOOP_UPSTREAM, whose calls the global `fetch` then answers at once with a small JSON answer.
 */
export async function startLoopJunction(env: Record<string, string> = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), "junction-loop-"));
  const junction = await startEmbedded({
    env: {
      JUNCTION_DATA_DIR: dataDir,
      JUNCTION_SECRET_KEY: SECRET_KEY,
      JUNCTION_ALLOWED_PRIVATE_HOSTS: "127.0.0.1",
      ...env,
    },
    port: 0,
    hostname: "127.0.0.1",
    logger: createLogger({ sink: () => {} }),
  });
  await addConnection(junction.url, LOOP_UPSTREAM);
  const realFetch = globalThis.fetch;
  globalThis.fetch = (async (input: string | URL | Request) => {
    if (String(input).startsWith(LOOP_UPSTREAM))
      return new Response(SMALL, {
        headers: { "content-type": "application/json", date: "Tue, 24 Nov 2026 10:00:00 GMT" },
      });
    return realFetch(input as string);
  }) as typeof fetch;
  return {
    junction,
    async stop() {
      await junction.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
