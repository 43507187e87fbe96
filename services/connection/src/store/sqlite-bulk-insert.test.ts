import { afterEach, describe, expect, test } from "bun:test";
import { newId } from "@junction/platform";
import { emailAddressHash } from "../email-hash.ts";
import type { ConnectionRecord } from "./records.ts";
import { SqliteConnectionStore } from "./sqlite-store.ts";

const ENV = "env_bulk";
const URI = (i: number) => `https://www.googleapis.com/calendar/v3/calendars/u${i}%40example.com/events`;

function connection(i: number): ConnectionRecord {
  return {
    id: newId("conn", 1_000 + i),
    environmentId: ENV,
    providerConfigKey: "cal",
    connectionId: `u${i}`,
    provider: "google-calendar",
    credentialsEnc: null,
    credentialsExpiresAt: null,
    connectionConfig: { emailAddressHash: emailAddressHash(`u${i}@example.com`) },
    metadata: { calendarWatchResourceUris: [URI(i)], emailAddress: ` U${i}@Example.com `, email: `e${i}@example.com` },
    endUser: null,
    errors: [],
    tags: {},
    createdAt: 1_000 + i,
    updatedAt: 1_000 + i,
  };
}

describe("insertConnectionsBulk (benchmark seeding)", () => {
  let store: SqliteConnectionStore;
  afterEach(() => store.close());

  test("bulk-inserted connections are read and found by every matching lookup, as upserted ones are", async () => {
    store = SqliteConnectionStore.open(":memory:");
    const records = Array.from({ length: 50 }, (_, i) => connection(i));
    await store.insertConnectionsBulk(records);
    expect(await store.getConnection(ENV, "cal", "u7")).toEqual(records[7] as ConnectionRecord);
    expect(await store.findByWatchUri(ENV, "cal", URI(7))).toEqual(["u7"]);
    expect(await store.findByEmailHash(ENV, "cal", emailAddressHash("u8@example.com"))).toEqual(["u8"]);
    expect(await store.findByMetadataEmailAddress(ENV, "cal", "u9@example.com")).toEqual(["u9"]);
    expect(await store.findByMetadataEmail(ENV, "cal", "e10@example.com")).toEqual(["u10"]);
    expect(await store.countConnections(ENV, "cal")).toBe(50);
  });

  test("a batch with an existing connection fails whole", async () => {
    store = SqliteConnectionStore.open(":memory:");
    await store.insertConnectionsBulk([connection(1)]);
    await expect(
      store.insertConnectionsBulk([connection(2), { ...connection(1), id: newId("conn") }]),
    ).rejects.toThrow();
    expect(await store.getConnection(ENV, "cal", "u2")).toBeNull();
  });
});
