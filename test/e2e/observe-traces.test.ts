import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestJunction, type TestJunction } from "../support/embedded-junction.ts";
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from "../support/otlp-receiver.ts";
import {
  addConnection,
  eventsUri,
  googHeaders,
  notify,
  setupCalendar,
  startCustomerReceiver,
} from "./notifications-kit.ts";
import { type ProxyHarness, startProxyHarness } from "./proxy-kit.ts";

const SERVER = 2;
const CLIENT = 3;
const CALLER_TRACE = "0af7651916cd43dd8448eb211c80319c";
const CALLER_SPAN = "b7ad6b7169203331";

let otlp: OtlpReceiver;
beforeAll(() => {
  otlp = startOtlpReceiver();
});
afterAll(async () => {
  await otlp.stop();
});

const tracingEnv = () => ({ OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_BSP_SCHEDULE_DELAY: "50" });

/** The spans above `span`, nearest first, as far as the receiver has them. */
function ancestors(span: ReceivedSpan): ReceivedSpan[] {
  const chain: ReceivedSpan[] = [];
  let parent = span.parentSpanId;
  while (parent) {
    const found = otlp.spans.find((s) => s.spanId === parent && s.traceId === span.traceId);
    if (!found) break;
    chain.push(found);
    parent = found.parentSpanId;
  }
  return chain;
}

describe("traces of a proxy call", () => {
  let h: ProxyHarness;
  beforeAll(async () => {
    // A token within the refresh margin: the call refreshes it first.
    h = await startProxyHarness({ env: tracingEnv(), tokenTtlSeconds: 60 });
  });
  afterAll(async () => {
    await h.close();
  });

  test("gateway → resolve → refresh → upstream share the caller's trace, with the right parents", async () => {
    const res = await h.proxy("GET", "/echo/traced", {
      headers: { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` },
    });
    expect(res.status).toBe(200);
    const inTrace = (s: ReceivedSpan) => s.traceId === CALLER_TRACE;
    const gateway = await otlp.span("the gateway's span", (s) => inTrace(s) && s.name === "GET /proxy/*");
    // The caller's traceparent is continued: same trace, its span the parent.
    expect(gateway.parentSpanId).toBe(CALLER_SPAN);
    expect(gateway.kind).toBe(SERVER);
    expect(gateway.attributes["http.response.status_code"]).toBe(200);

    const resolveName = "junction.proxy.v1.ProxyService/ResolveUpstream";
    const resolveClient = await otlp.span(
      "resolve (client)",
      (s) => inTrace(s) && s.name === resolveName && s.kind === CLIENT,
    );
    expect(resolveClient.parentSpanId).toBe(gateway.spanId);
    const resolveServer = await otlp.span(
      "resolve (server)",
      (s) => inTrace(s) && s.name === resolveName && s.kind === SERVER,
    );
    expect(resolveServer.parentSpanId).toBe(resolveClient.spanId);

    const refresh = await otlp.span("the token refresh", (s) => inTrace(s) && s.name === "token refresh");
    expect(ancestors(refresh).map((s) => s.spanId)).toContain(resolveServer.spanId);
    expect(refresh.attributes["junction.integration"]).toBe("cal");

    const upstream = await otlp.span("the upstream attempt", (s) => inTrace(s) && s.name === "upstream GET");
    expect(upstream.parentSpanId).toBe(gateway.spanId);
    expect(upstream.kind).toBe(CLIENT);
    expect(upstream.attributes["http.response.status_code"]).toBe(200);

    // No token, key or query string in any span of the trace.
    const text = JSON.stringify(otlp.spans.filter(inTrace));
    expect(text).not.toContain(h.accessToken);
    expect(text).not.toContain(h.refreshToken);
    expect(text).not.toContain("jct_sk_");
  });
});

describe("traces of a notification", () => {
  let j: TestJunction;
  const rx = startCustomerReceiver();
  beforeAll(async () => {
    j = await startTestJunction({ env: tracingEnv() });
    await setupCalendar(j, [rx.url]);
    await addConnection(j, "lee", { metadata: { calendarWatchResourceUris: [eventsUri("lee@example.com")] } });
  });
  afterAll(async () => {
    await j.close();
    await rx.stop();
  });

  test("receipt → bus → match → delivery rounds share one trace", async () => {
    const trace = "4bf92f3577b34da6a3ce929d0e0e4736";
    const res = await notify(j, {
      ...googHeaders(eventsUri("lee@example.com")),
      traceparent: `00-${trace}-00f067aa0ba902b7-01`,
    });
    expect(res.status).toBe(200);
    await rx.waitFor(1);
    const inTrace = (s: ReceivedSpan) => s.traceId === trace;
    const receipt = await otlp.span(
      "the gateway's span",
      (s) => inTrace(s) && s.kind === SERVER && s.name.startsWith("POST /webhook/"),
    );
    expect(receipt.parentSpanId).toBe("00f067aa0ba902b7");
    const received = await otlp.span(
      "ReceiveNotifications (server)",
      (s) => inTrace(s) && s.name === "junction.webhook.v1.WebhookService/ReceiveNotifications" && s.kind === SERVER,
    );
    expect(ancestors(received).map((s) => s.spanId)).toContain(receipt.spanId);
    const processed = await otlp.span(
      "the inbound worker's span",
      (s) => inTrace(s) && s.name === "process webhook.inbound",
    );
    expect(ancestors(processed).map((s) => s.spanId)).toContain(received.spanId);
    const match = await otlp.span(
      "MatchNotifications (server)",
      (s) =>
        inTrace(s) && s.name === "junction.connection.v1.ConnectionService/MatchNotifications" && s.kind === SERVER,
    );
    expect(ancestors(match).map((s) => s.spanId)).toContain(processed.spanId);
    const round = await otlp.span("the delivery round", (s) => inTrace(s) && s.name === "webhook delivery round");
    expect(ancestors(round).map((s) => s.spanId)).toContain(processed.spanId);
    expect(round.attributes["junction.final"]).toBe(true);
  });
});
