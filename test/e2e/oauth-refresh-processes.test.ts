import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { type Client, createClient } from "@connectrpc/connect";
import { startNatsServer } from "@junction/bus/testing/nats-server";
import { ConnectionService } from "@junction/contracts/connection/v1/connection_service_pb";
import { h2cTransport } from "@junction/platform/h2c";
import { type FakeUpstream, startFakeUpstream } from "../fake-upstream/index.ts";
import { freePort } from "@junction/platform/testing/free-port";
import { type JunctionProcess, startJunctionProcess } from "../support/junction-process.ts";
import { tempDir } from "../support/temp-dir.ts";
import { waitFor } from "../support/wait-for.ts";

// Two connection-service processes on one SQLite file (the distributed topology on one host): however
// many callers ask both at once, one token request is made, and the loser re-reads the winner's token.

const CLIENT = { clientId: "junction-procs.apps.fake", clientSecret: "procs-secret" };
let nats: Awaited<ReturnType<typeof startNatsServer>>;
let fake: FakeUpstream;
const data = tempDir();
const procs: JunctionProcess[] = [];
const clients: Client<typeof ConnectionService>[] = [];
/** Each process's admin listener (/metrics). */
const adminUrls: string[] = [];
const METRICS_TOKEN = "metrics-token-refresh-procs";

beforeAll(async () => {
  nats = await startNatsServer();
  fake = await startFakeUpstream({ clients: [CLIENT], tokenDelayMs: 400 });
  const env = {
    JUNCTION_DATA_DIR: data.path,
    JUNCTION_BASE_URL: "https://junction.example.test",
    JUNCTION_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    JUNCTION_NATS_URL: nats.url,
    JUNCTION_LOG_LEVEL: "warn",
    JUNCTION_HOST: "127.0.0.1",
    JUNCTION_ALLOWED_PRIVATE_HOSTS: "127.0.0.1",
    JUNCTION_METRICS_TOKEN: METRICS_TOKEN,
  };
  // One after the other: the first applies the SQLite migrations before the second opens the file.
  for (const name of ["connection-a", "connection-b"]) {
    const port = await freePort();
    const adminPort = await freePort();
    adminUrls.push(`http://127.0.0.1:${adminPort}`);
    const proc = startJunctionProcess(name, ["serve", "connection"], {
      ...env,
      JUNCTION_CONNECTION_PORT: String(port),
      JUNCTION_CONNECTION_ADMIN_PORT: String(adminPort),
    });
    procs.push(proc);
    const client = createClient(ConnectionService, h2cTransport(`http://127.0.0.1:${port}`));
    try {
      await waitFor(`${name} to answer`, async () => (await client.getEnvironment({})).environment?.id, 20_000, 50);
    } catch (err) {
      throw new Error(`${(err as Error).message}\n${proc.output()}`);
    }
    clients.push(client);
  }
}, 60_000);

afterAll(async () => {
  await Promise.all(procs.map((p) => p.stop()));
  await fake?.stop();
  await nats?.stop();
  data.remove();
});

describe("token refresh across processes", () => {
  test("40 callers split over two processes on an expired token cause one token request", async () => {
    const [a, b] = clients as [Client<typeof ConnectionService>, Client<typeof ConnectionService>];
    await a.createIntegration({
      uniqueKey: "cal",
      provider: "google-calendar",
      clientId: CLIENT.clientId,
      clientSecret: CLIENT.clientSecret,
      overrides: {
        baseUrl: fake.url,
        tokenUrl: fake.endpoints.tokenUrl,
        authorizationUrl: fake.endpoints.authorizationUrl,
      },
    });
    const minted = fake.issueTokens({ clientId: CLIENT.clientId, scopes: ["email"] });
    await a.createConnection({
      providerConfigKey: "cal",
      connectionId: "shared",
      credentials: {
        type: "OAUTH2",
        accessToken: minted.accessToken,
        refreshToken: minted.refreshToken as string,
        expiresAtMs: BigInt(Date.now() - 1000),
      },
    });
    const ref = { providerConfigKey: "cal", connectionId: "shared" };
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? a : b).getCredentials(ref)));
    expect(fake.state.tokenRequests.refresh_token).toBe(1);
    const tokens = new Set(results.map((r) => r.credentials?.accessToken));
    expect(tokens.size).toBe(1);
    expect(tokens.has(minted.accessToken)).toBe(false);
    expect(fake.state.accessTokens.has([...tokens][0] as string)).toBe(true);

    // One refresh counted ok across the two processes; the other process waited on it.
    const counted = async (outcome: string) => {
      let sum = 0;
      for (const url of adminUrls) {
        const text = await (
          await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
        ).text();
        const series = `junction_token_refreshes_total{integration="cal",outcome="${outcome}"} `;
        const line = text.split("\n").find((l) => l.startsWith(series));
        sum += line ? Number(line.slice(series.length)) : 0;
      }
      return sum;
    };
    expect(await counted("ok")).toBe(1);
    expect(await counted("waited")).toBe(1);
    expect(await counted("failed")).toBe(0);
  });
});
