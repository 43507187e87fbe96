import { describe, expect, test } from "bun:test";
import { create, isMessage } from "@bufbuild/protobuf";
import {
  Code,
  ConnectError,
  type ConnectRouter,
  createClient,
  createContextKey,
  createContextValues,
  createRouterTransport,
  type HandlerContext,
  type Interceptor,
  type Transport,
} from "@connectrpc/connect";
import {
  ConnectionService,
  MatchNotificationsResponseSchema,
  MatchRule,
} from "@junction/contracts/connection/v1/connection_service_pb";
import { ScriptsService } from "@junction/contracts/scripts/v1/scripts_service_pb";
import { createLogger, errorBoundary, fromConnectError, invalidArgument, jsonDepthGuard } from "@junction/platform";
import { createDirectTransport } from "./direct-transport.ts";

const KEY = createContextKey("none", { description: "a value the caller passes" });
const seen: { header?: string | null; value?: string; signal?: AbortSignal } = {};

/** A connection service whose handlers answer, fail in each way, read their context, or never answer. */
const connection = {
  matchNotifications: (req: { requests: { resourceUri: string }[] }) => ({
    results: req.requests.map((r) => ({
      connectionIds: [`conn-of-${r.resourceUri}`],
      rule: MatchRule.WATCH_URI,
      webhookUrlOverrides: { [`conn-of-${r.resourceUri}`]: "http://127.0.0.1:1/override" },
      provider: "p",
      forwardWebhooks: true,
    })),
  }),
  getEnvironment: (_req: unknown, context: HandlerContext) => {
    seen.header = context.requestHeader.get("x-test");
    seen.value = context.values.get(KEY);
    seen.signal = context.signal;
    return { environment: { id: "env_1" } };
  },
  getIntegration: () => {
    throw invalidArgument("invalid_request", "bad field", [{ path: "name", message: "too long" }]);
  },
  listIntegrations: () => {
    throw new Error("secret detail of a failed store");
  },
  getConnection: () => new Promise(() => {}),
};
const scripts = {
  async *watchRecords() {
    yield { event: { case: "heartbeat" as const, value: {} } };
  },
};
const routes = (r: ConnectRouter) => {
  r.service(ConnectionService, connection as never);
  r.service(ScriptsService, scripts as never);
};
const router = { interceptors: [errorBoundary(createLogger({ sink: () => {} })), jsonDepthGuard()] };
const transports: Record<string, Transport> = {
  direct: createDirectTransport(routes, { router }),
  encoded: createRouterTransport(routes, { router }),
};
const failure = (p: Promise<unknown>) =>
  p.then(
    () => new Error("answered"),
    (err: unknown) => err,
  );

describe.each(["direct", "encoded"])("the %s transport", (name) => {
  const transport = transports[name] as Transport;
  const client = createClient(ConnectionService, transport);

  test("answers a message of the method's output, the same as the other transport's", async () => {
    const req = { requests: [{ providerConfigKey: "cal", resourceUri: "u1" }, { resourceUri: "u2" }] };
    const res = await client.matchNotifications(req);
    expect(isMessage(res, MatchNotificationsResponseSchema)).toBe(true);
    const other = await createClient(
      ConnectionService,
      transports[name === "direct" ? "encoded" : "direct"] as Transport,
    ).matchNotifications(req);
    expect(res).toEqual(other);
    expect(res.results[1]?.webhookUrlOverrides["conn-of-u2"]).toBe("http://127.0.0.1:1/override");
  });

  test("gives the handler the call's headers, and ends its signal with the call", async () => {
    await client.getEnvironment({}, { headers: { "x-test": "yes" } });
    expect(seen.header).toBe("yes");
    expect(seen.signal?.aborted).toBe(true);
  });

  test("a domain error reaches the caller with its code, status and field errors", async () => {
    const err = fromConnectError(await failure(client.getIntegration({})));
    expect(err.status).toBe(Code.InvalidArgument);
    expect(err.code).toBe("invalid_request");
    expect(err.message).toBe("bad field");
    expect(err.errors).toEqual([{ path: "name", message: "too long" }]);
  });

  test("an unknown error is Internal, its detail not sent", async () => {
    const err = ConnectError.from(await failure(client.listIntegrations({})));
    expect(err.code).toBe(Code.Internal);
    expect(err.message).not.toContain("secret");
  });

  test("a call past its deadline ends with DeadlineExceeded although the handler never answers", async () => {
    const err = ConnectError.from(await failure(client.getConnection({}, { timeoutMs: 20 })));
    expect(err.code).toBe(Code.DeadlineExceeded);
  });

  test("a method the service does not implement answers Unimplemented", async () => {
    expect(ConnectError.from(await failure(client.deleteConnection({}))).code).toBe(Code.Unimplemented);
  });

  test("a streaming method streams", async () => {
    const events = [];
    for await (const m of createClient(ScriptsService, transport).watchRecords({})) events.push(m.event.case);
    expect(events).toEqual(["heartbeat"]);
  });
});

describe("the direct transport", () => {
  test("hands the handler's message to the caller without a copy, through the caller's interceptors first", async () => {
    const order: string[] = [];
    const tap =
      (label: string): Interceptor =>
      (next) =>
      (req) => {
        order.push(label);
        return next(req);
      };
    const answer = create(MatchNotificationsResponseSchema, { results: [{ connectionIds: ["c"] }] });
    const transport = createDirectTransport(
      (r) => r.service(ConnectionService, { matchNotifications: () => answer } as never),
      { router: { interceptors: [tap("service")] }, transport: { interceptors: [tap("caller")] } },
    );
    const res = await createClient(ConnectionService, transport).matchNotifications({});
    expect(res).toBe(answer);
    expect(order).toEqual(["caller", "service"]);
  });

  test("gives the handler the caller's context values", async () => {
    await createClient(ConnectionService, transports.direct as Transport).getEnvironment(
      {},
      { contextValues: createContextValues().set(KEY, "v") },
    );
    expect(seen.value).toBe("v");
  });

  test("refuses a request nested deeper than the wire carries, before the handler runs", async () => {
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 200; i++) deep = { a: deep };
    const client = createClient(ConnectionService, transports.direct as Transport);
    const err = fromConnectError(
      await failure(client.writeMetadata({ metadata: deep as never, providerConfigKey: "k", connectionIds: ["c"] })),
    );
    expect(err.code).toBe("invalid_request");
  });
});
