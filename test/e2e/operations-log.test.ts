import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { waitFor } from "../support/wait-for.ts";
import { CALENDAR, CONNECTION, MAIL, type ProxyHarness, startProxyHarness } from "./proxy-kit.ts";

let h: ProxyHarness;
beforeAll(async () => {
  h = await startProxyHarness({ env: { JUNCTION_LOGS_PROXY_SUCCESSES: "true" } });
  // A success on one integration, a failure on the other, and a call for a connection that does not exist.
  expect((await h.proxy("GET", "/echo/one?key=query-secret")).status).toBe(200);
  expect((await h.proxy("GET", "/status/503", { headers: { "provider-config-key": MAIL, retries: "0" } })).status).toBe(
    503,
  );
  await h.proxy("GET", "/echo/two", { headers: { "connection-id": "nobody" } });
  await waitFor("the three proxy calls in the log", async () => {
    const res = await api("/logs/operations?kind=proxy_call");
    return res.body?.data?.length === 3;
  });
});
afterAll(async () => {
  await h.close();
});

const api = (path: string) => h.junction.api("GET", path);
const ids = async (path: string) => {
  const res = await api(path);
  expect(res.status).toBe(200);
  return (res.body.data as { id: string }[]).map((o) => o.id);
};

describe("GET /logs/operations", () => {
  test("lists proxy calls newest first with kind, status, integration, connection, title and duration", async () => {
    const res = await api("/logs/operations?kind=proxy_call");
    const [missing, failed, ok] = res.body.data;
    expect(ok).toMatchObject({
      kind: "proxy_call",
      status: "success",
      integration: CALENDAR,
      connection: CONNECTION,
      title: "GET /echo/one → 200",
      message_count: 1,
    });
    expect(ok.id).toStartWith("op_");
    expect(ok.duration_ms).toBeGreaterThanOrEqual(0);
    expect(Date.parse(ok.started_at)).toBeGreaterThan(0);
    expect(failed).toMatchObject({ status: "failed", integration: MAIL, title: "GET /status/503 → 503" });
    expect(missing).toMatchObject({
      status: "failed",
      connection: "nobody",
      title: "GET /echo/two → unknown_connection",
    });
    // The query may carry a key: never recorded.
    expect(JSON.stringify(res.body)).not.toContain("query-secret");
    expect(JSON.stringify(res.body)).not.toContain(h.accessToken);
  });

  test("filters by status, integration, connection, period and full text", async () => {
    const all = await ids("/logs/operations?kind=proxy_call");
    expect(await ids("/logs/operations?status=success")).toEqual([all[2] as string]);
    expect(await ids(`/logs/operations?integration=${MAIL}`)).toEqual([all[1] as string]);
    expect(await ids("/logs/operations?connection=nobody")).toEqual([all[0] as string]);
    expect(await ids("/logs/operations?q=unknown_connection")).toEqual([all[0] as string]);
    expect(await ids("/logs/operations?q=upstream%20answered%20503")).toEqual([all[1] as string]);
    expect(await ids("/logs/operations?kind=token_refresh")).toEqual([]);
    const from = new Date(Date.now() - 3_600_000).toISOString();
    expect(await ids(`/logs/operations?kind=proxy_call&from=${from}`)).toEqual(all);
    expect(await ids(`/logs/operations?to=${Date.now() - 3_600_000}`)).toEqual([]);
  });

  test("pages with a cursor bound to its filters", async () => {
    const first = await api("/logs/operations?kind=proxy_call&limit=2");
    expect(first.body.data).toHaveLength(2);
    const cursor = first.body.next_cursor as string;
    expect(cursor).toBeString();
    const second = await api(`/logs/operations?kind=proxy_call&limit=2&cursor=${cursor}`);
    expect(second.body.data).toHaveLength(1);
    expect(second.body.next_cursor).toBeNull();
    const all = await ids("/logs/operations?kind=proxy_call");
    expect([...first.body.data, ...second.body.data].map((o: { id: string }) => o.id)).toEqual(all);
    const other = await api(`/logs/operations?kind=proxy_call&status=failed&limit=2&cursor=${cursor}`);
    expect(other.status).toBe(400);
    expect(other.body.error.code).toBe("cursor_filter_mismatch");
  });

  test("bad input: unknown kind, a ten-year period, a 10 KB search, a forged cursor — each a 400 with its code", async () => {
    const code = async (path: string) => {
      const res = await api(path);
      expect(res.status).toBe(400);
      expect(res.text).not.toContain(".ts:");
      expect(res.body.error.errors[0].location).toBe("query");
      return res.body.error.code as string;
    };
    expect(await code("/logs/operations?kind=teleport")).toBe("unknown_kind");
    expect(await code("/logs/operations?status=maybe")).toBe("unknown_status");
    const tenYears = new Date(Date.now() - 10 * 365 * 86_400_000).toISOString();
    expect(await code(`/logs/operations?from=${tenYears}`)).toBe("period_too_long");
    expect(await code("/logs/operations?from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z")).toBe("invalid_period");
    expect(await code(`/logs/operations?q=${"a".repeat(10_240)}`)).toBe("search_too_long");
    const forged = Buffer.from(JSON.stringify([JSON.stringify([9e12, "op_zz", "x"]), "mac:v1:k:00"])).toString(
      "base64url",
    );
    expect(await code(`/logs/operations?cursor=${forged}`)).toBe("invalid_cursor");
    expect(await code("/logs/operations?cursor=not-base64-json")).toBe("invalid_cursor");
    expect(await code("/logs/operations?from=yesterday")).toBe("invalid_query_params");
    expect(await code("/logs/operations?colour=blue")).toBe("invalid_query_params");
  });
});

describe("GET /logs/operations/{id}", () => {
  test("answers the operation with its messages; an unknown id is a 404", async () => {
    const [, failed] = await ids("/logs/operations?kind=proxy_call");
    const res = await api(`/logs/operations/${failed}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: failed, integration: MAIL, status: "failed" });
    expect(res.body.data.messages).toEqual([
      { at: expect.any(String), level: "warn", text: "upstream answered 503", fields: { status: 503 } },
    ]);
    const missing = await api("/logs/operations/op_0000000000000000000000000");
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe("unknown_operation");
  });
});
