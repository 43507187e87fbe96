import { afterEach, describe, expect, test } from "bun:test";
import { codeOf, noSandbox, titled } from "../../../testing/record-test-kit.ts";
import { type ServiceKit, startServiceKit } from "../../../testing/service-test-kit.ts";

const rec = titled;
const base = { providerConfigKey: "cal", connectionId: "alice", model: "Event", variant: "", cursor: "" };

describe("WatchRecords: the change feed's RPC", () => {
  let kit: ServiceKit | undefined;
  afterEach(async () => {
    await kit?.close();
    kit = undefined;
  });

  test("refuses an unknown connection, a missing model and a forged or foreign cursor before opening", async () => {
    kit = await startServiceKit(noSandbox);
    await kit.connect("alice");
    await kit.connect("bob");
    const a = await kit.instance();
    const env = (await kit.connections.getEnvironment({})).environment?.id as string;
    await a.stores.records.save({ ...base, environmentId: env, variant: "base" }, [rec("1")], { now: 1 });
    await a.stores.records.save({ ...base, environmentId: env, variant: "base", connectionId: "bob" }, [rec("2")], {
      now: 1,
    });
    const first = async (req: typeof base) => {
      for await (const m of a.client.watchRecords(req)) return m.event.case;
    };
    expect(await codeOf(first({ ...base, connectionId: "carol" }))).toBe("unknown_connection");
    expect(await codeOf(first({ ...base, model: "" }))).toBe("invalid_request");
    expect(await codeOf(first({ ...base, cursor: "djEuMS5mb3JnZWQ" }))).toBe("invalid_cursor");
    const bobs = (await a.client.listRecords({ ...base, connectionId: "bob", limit: 1 })).recordsJson;
    const bobCursor = JSON.parse(bobs)[0]._nango_metadata.cursor as string;
    expect(await codeOf(first({ ...base, cursor: bobCursor }))).toBe("invalid_cursor");
    expect(await first(base)).toBe("opened");
  });

  test("holds the open feeds of an environment to the maximum; a cancelled call gives its place back", async () => {
    kit = await startServiceKit(noSandbox);
    await kit.connect("alice");
    const a = await kit.instance({ recordFeedsMax: 1 });
    const abort = new AbortController();
    const open = a.client.watchRecords(base, { signal: abort.signal })[Symbol.asyncIterator]();
    expect((await open.next()).value?.event.case).toBe("opened");
    const second = a.client.watchRecords(base)[Symbol.asyncIterator]();
    expect(await codeOf(second.next())).toBe("too_many_feeds");
    abort.abort();
    await open.next().catch(() => undefined);
    const again = a.client.watchRecords(base)[Symbol.asyncIterator]();
    const reopened = (await again.next()).value?.event.case;
    await again.return?.();
    expect(reopened).toBe("opened");
  });

  test("a record written by another instance on the same store reaches the feed at its next poll", async () => {
    kit = await startServiceKit(noSandbox);
    await kit.connect("alice");
    const a = await kit.instance({ recordFeedPollMs: 1000 });
    const b = await kit.instance();
    const env = (await kit.connections.getEnvironment({})).environment?.id as string;
    const feed = a.client.watchRecords(base)[Symbol.asyncIterator]();
    expect((await feed.next()).value?.event.case).toBe("opened");
    const next = feed.next();
    await b.stores.records.save({ ...base, environmentId: env, variant: "base" }, [rec("42")], { now: 5 });
    await a.clock.advance(1000);
    const got = (await next).value;
    expect(got?.event.case).toBe("record");
    const value = got?.event.value as { cursor: string; recordJson: string };
    expect(JSON.parse(value.recordJson)).toMatchObject({
      id: "42",
      title: "t-42",
      _nango_metadata: { cursor: value.cursor },
    });
    await feed.return?.();
  });
});
