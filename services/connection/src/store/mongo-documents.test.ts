import { describe, expect, test } from "bun:test";
import {
  connectionFromDocument,
  connectionListQuery,
  connectionToDocument,
  emailHashQuery,
  escapeRegExp,
  integrationFromDocument,
  integrationToDocument,
  lookupFields,
  metadataUpdate,
  patchUpdate,
  reauthorizationUpdate,
  secretKeyFromDocument,
  secretKeyToDocument,
  watchUriQuery,
  watchUrisExpression,
} from "./mongo-documents.ts";
import { matchKeyMetadata } from "@junction/providers";
import { isDuplicateKey } from "./mongo-duplicate.ts";
import type { ConnectionRecord, IntegrationRecord, SecretKeyRecord } from "./records.ts";

const record: ConnectionRecord = {
  id: "conn_01kbzzzzzzzzzzzzzzzzzzzzzz",
  environmentId: "env_1",
  providerConfigKey: "cal",
  connectionId: "c1",
  provider: "google-calendar",
  credentialsEnc: "v1:enc",
  credentialsExpiresAt: 1_767_225_600_000,
  connectionConfig: { emailAddressHash: "h1" },
  metadata: { emailAddress: "  Ada@Example.TEST ", email: 5, calendarWatchResourceUris: ["https://c/calendars/a"] },
  endUser: { id: "u1", email: "ada@example.test" },
  errors: [{ type: "refresh", message: "expired", at: 1 }],
  tags: { team: "core", "project.id": "p=1" },
  createdAt: 1,
  updatedAt: 2,
};

describe("Mongo connection documents", () => {
  test("keep metadata and connection_config under their own names, with normalized shadow fields", () => {
    const doc = connectionToDocument(record);
    expect(doc._id).toBe(record.id);
    expect(doc.metadata).toEqual(record.metadata);
    expect(doc.connection_config).toEqual(record.connectionConfig);
    expect(doc.lookup).toEqual({ emailAddress: "ada@example.test", email: null, watchUris: ["https://c/calendars/a"] });
    expect(doc.endUserId).toBe("u1");
    expect("connectionConfig" in doc).toBe(false);
  });

  test("convert back to the same record", () => {
    expect(connectionFromDocument(connectionToDocument(record))).toEqual(record);
    const routed = { ...record, webhookUrlOverride: "https://hooks.example.test/a" };
    expect(connectionFromDocument(connectionToDocument(routed))).toEqual(routed);
  });

  test("normalize emails only when they are non-empty strings", () => {
    expect(lookupFields({ emailAddress: " A@B.test ", email: "c@d.test" })).toEqual({
      emailAddress: "a@b.test",
      email: "c@d.test",
      watchUris: [],
    });
    expect(lookupFields({ emailAddress: ["a@b.test"], email: "   " })).toEqual({
      emailAddress: null,
      email: null,
      watchUris: [],
    });
    expect(lookupFields({})).toEqual({ emailAddress: null, email: null, watchUris: [] });
  });

  test("secret keys and integrations round-trip", () => {
    const key: SecretKeyRecord = {
      id: "key_1",
      environmentId: "env_1",
      name: "default",
      prefix: "sk_",
      hash: "abc",
      createdAt: 1,
      revokedAt: null,
      scopes: ["environment:mcp"],
      lastUsedAt: 2,
    };
    const { id, ...rest } = key;
    expect(secretKeyToDocument(key)).toEqual({ _id: id, ...rest });
    expect(secretKeyFromDocument(secretKeyToDocument(key))).toEqual(key);

    const integration: IntegrationRecord = {
      environmentId: "env_1",
      uniqueKey: "cal",
      provider: "google-calendar",
      displayName: "Calendar",
      clientId: "id",
      clientSecretEnc: null,
      scopes: ["email"],
      overrides: {},
      forwardWebhooks: true,
      useTestCredentials: false,
      providerSettings: { tenant: "contoso" },
      managedChannels: true,
      createdAt: 1,
      updatedAt: 1,
    };
    const withExtra = { ...integration, _id: "ignored", unknown: 1 } as IntegrationRecord;
    expect(integrationToDocument(withExtra)).toEqual(integration);
    // Documents written before test mode existed read as "not in test mode".
    const { useTestCredentials: _, ...older } = integration;
    expect(integrationFromDocument(older as IntegrationRecord).useTestCredentials).toBe(false);
    // ...and before provider settings existed, as holding none, with managed channels off.
    const { providerSettings: _s, managedChannels: _m, ...oldest } = integration;
    expect(integrationFromDocument(oldest as IntegrationRecord)).toMatchObject({
      providerSettings: {},
      managedChannels: false,
    });
  });
});

describe("Mongo connection listing query", () => {
  test("holds only the filters given", () => {
    expect(connectionListQuery("env_1", { limit: 10, offset: 0 })).toEqual({ environmentId: "env_1" });
    expect(
      connectionListQuery("env_1", {
        providerConfigKey: "cal",
        connectionId: "c1",
        endUserId: "u1",
        limit: 1,
        offset: 0,
      }),
    ).toEqual({ environmentId: "env_1", providerConfigKey: "cal", endUserId: "u1", connectionId: { $eq: "c1" } });
    expect(connectionListQuery("env_1", { providerConfigKey: "", search: "", limit: 1, offset: 0 })).toEqual({
      environmentId: "env_1",
    });
    expect(
      connectionListQuery("env_1", {
        providerConfigKey: "x",
        providerConfigKeys: ["cal", "mail"],
        limit: 1,
        offset: 0,
      }),
    ).toEqual({
      environmentId: "env_1",
      providerConfigKey: "x",
      $and: [{ providerConfigKey: { $in: ["cal", "mail"] } }],
    });
  });

  test("filters by several integrations and by the end user's profile fields", () => {
    expect(
      connectionListQuery("env_1", {
        providerConfigKey: "cal",
        providerConfigKeys: ["cal", "mail"],
        endUserEmail: "a@example.com",
        endUserDisplayName: "A",
        endUserOrganizationId: "org-1",
        limit: 1,
        offset: 0,
      }),
    ).toEqual({
      environmentId: "env_1",
      providerConfigKey: "cal",
      $and: [{ providerConfigKey: { $in: ["cal", "mail"] } }],
      "endUser.email": "a@example.com",
      "endUser.display_name": "A",
      "endUser.organization.id": "org-1",
    } as never);
  });

  test("searches case-insensitively for the literal text", () => {
    const query = connectionListQuery("env_1", { search: "a.b*(c)%_\\", limit: 1, offset: 0 });
    const { $regex, $options } = query.connectionId as { $regex: string; $options: string };
    expect($options).toBe("i");
    const re = new RegExp($regex, $options);
    expect(re.test("xA.B*(C)%_\\y")).toBe(true);
    expect(re.test("aXb*(c)%_\\")).toBe(false);
    for (const text of ["[x]", "^$", "a|b", "{2}", "+?", "/-"]) {
      expect(new RegExp(escapeRegExp(text)).test(`..${text}..`)).toBe(true);
    }
  });
});

describe("Mongo connection updates", () => {
  test("re-authorization merges connection_config on the server and keeps the end user and tags when none are given", () => {
    const [stage] = reauthorizationUpdate({ ...record, endUser: null, tags: {}, credentialsEnc: "$notAPath" });
    expect(stage).toEqual({
      $set: {
        credentialsEnc: { $literal: "$notAPath" },
        credentialsExpiresAt: { $literal: record.credentialsExpiresAt },
        connection_config: { $mergeObjects: ["$connection_config", { $literal: record.connectionConfig }] },
        updatedAt: { $literal: record.updatedAt },
      },
    });
    const [withUser] = reauthorizationUpdate(record);
    expect(withUser?.$set.endUser).toEqual({ $literal: record.endUser });
    expect(withUser?.$set.endUserId).toEqual({ $literal: "u1" });
    expect(withUser?.$set.tagPairs).toEqual({ $literal: ["team=core", "project.id=p=1"] });
    expect(stage?.$set.webhookUrlOverride).toBeUndefined();
    const [routed] = reauthorizationUpdate({ ...record, webhookUrlOverride: "https://h.example.test/" });
    expect(routed?.$set.webhookUrlOverride).toEqual({ $literal: "https://h.example.test/" });
  });

  test("rule 1 looks the watch_uris match key up; rule 2's first tier one or both hash formulas", () => {
    expect(watchUriQuery("env_1", "cal", "https://c/a")).toEqual({
      environmentId: "env_1",
      providerConfigKey: "cal",
      "lookup.watchUris": "https://c/a",
    });
    expect(emailHashQuery("env_1", "cal", ["j"])).toEqual({
      environmentId: "env_1",
      providerConfigKey: "cal",
      "connection_config.emailAddressHash": "j",
    });
    expect(emailHashQuery("env_1", "cal", ["j", "n"])).toEqual({
      environmentId: "env_1",
      providerConfigKey: "cal",
      "connection_config.emailAddressHash": { $in: ["j", "n"] },
    });
  });

  test("tags are listed by their key=value pairs, all of them required", () => {
    expect(connectionToDocument(record).tagPairs).toEqual(["team=core", "project.id=p=1"]);
    expect(connectionListQuery("env_1", { tags: { team: "core", "project.id": "p=1" }, limit: 1, offset: 0 })).toEqual({
      environmentId: "env_1",
      tagPairs: { $all: ["team=core", "project.id=p=1"] },
    });
  });

  test("metadata set replaces the metadata and every shadow field", () => {
    expect(metadataUpdate({ email: " B@x.test" }, "set", 9)).toEqual({
      $set: {
        metadata: { email: " B@x.test" },
        lookup: { emailAddress: null, email: "b@x.test", watchUris: [] },
        updatedAt: 9,
      },
    });
  });

  test("metadata update merges and rewrites only the shadow fields it touches", () => {
    expect(metadataUpdate({ note: 1 }, "update", 9)).toEqual([
      { $set: { metadata: { $mergeObjects: ["$metadata", { $literal: { note: 1 } }] }, updatedAt: { $literal: 9 } } },
    ]);
    const [stage] = metadataUpdate({ emailAddress: "A@x.test", email: null }, "update", 9) as [
      { $set: Record<string, unknown> },
    ];
    expect(stage.$set["lookup.emailAddress"]).toEqual({ $literal: "a@x.test" });
    expect(stage.$set["lookup.email"]).toEqual({ $literal: null });
  });

  test("a merge touching a watch-URI key recomputes the watch_uris match key from the merged metadata", () => {
    const keys = matchKeyMetadata("watch_uris");
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) {
      const stages = metadataUpdate({ [key]: ["https://c/a"] }, "update", 9) as { $set: Record<string, unknown> }[];
      expect(stages).toHaveLength(2);
      expect(stages[1]?.$set["lookup.watchUris"]).toEqual(watchUrisExpression());
    }
    expect(metadataUpdate({ note: 1 }, "update", 9)).toHaveLength(1);
  });

  test("patch sets only the fields it holds", () => {
    expect(patchUpdate({ errors: [] }, 5)).toEqual({ $set: { updatedAt: 5, errors: [] } });
    expect(patchUpdate({ connectionConfig: { a: 1 }, endUser: null }, 5)).toEqual({
      $set: { updatedAt: 5, connection_config: { a: 1 }, endUser: null, endUserId: null },
    });
    expect(patchUpdate({ tags: { team: "core" }, webhookUrlOverride: "https://h.example.test/" }, 5)).toEqual({
      $set: { updatedAt: 5, tagPairs: ["team=core"], webhookUrlOverride: "https://h.example.test/" },
    });
    expect(patchUpdate({ webhookUrlOverride: null }, 5)).toEqual({
      $set: { updatedAt: 5 },
      $unset: { webhookUrlOverride: "" },
    });
  });

  test("duplicate key errors are recognised by their code", () => {
    expect(isDuplicateKey(Object.assign(new Error("E11000 duplicate key"), { code: 11000 }))).toBe(true);
    expect(isDuplicateKey(new Error("other"))).toBe(false);
    expect(isDuplicateKey(null)).toBe(false);
  });
});
