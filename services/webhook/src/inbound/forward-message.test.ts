import { describe, expect, test } from "bun:test";
import { newId, parseId } from "@junction/platform";
import { derivedMessageId, forwardBody, stableStringify } from "./forward-message.ts";

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

describe("forwardBody", () => {
  test("is compact JSON with keys in code-point order at every level", () => {
    const body = forwardBody({
      from: "google-calendar",
      providerConfigKey: "cal",
      connectionId: "c1",
      payload: { "x-goog-resource-uri": "https://x/calendars/a%40b/events", "x-goog-channel-id": "ch", accept: "*/*" },
    });
    expect(text(body)).toBe(
      '{"connectionId":"c1","from":"google-calendar","payload":{"accept":"*/*","x-goog-channel-id":"ch","x-goog-resource-uri":"https://x/calendars/a%40b/events"},"providerConfigKey":"cal","type":"forward"}',
    );
  });

  test("leaves connectionId out when nothing matched", () => {
    const body = JSON.parse(text(forwardBody({ from: "p", providerConfigKey: "k", payload: {}, connectionId: "" })));
    expect(body).toEqual({ from: "p", providerConfigKey: "k", type: "forward", payload: {} });
    expect("connectionId" in body).toBe(false);
  });

  test("escapes what JSON must escape and keeps non-ASCII as UTF-8", () => {
    const body = text(forwardBody({ from: "p", providerConfigKey: "k", payload: { "x-q": 'a"b\\c\u0001é' } }));
    expect(JSON.parse(body).payload["x-q"]).toBe('a"b\\c\u0001é');
    expect(body).toContain("é");
  });
});

describe("stableStringify", () => {
  test("sorts nested keys, keeps array order, drops undefined members", () => {
    expect(stableStringify({ b: [3, { z: 1, a: 2 }], a: null, c: undefined })).toBe('{"a":null,"b":[3,{"a":2,"z":1}]}');
  });
});

describe("derivedMessageId", () => {
  test("is a valid msg_ id, the same for the same inputs, different for different ones", () => {
    const ntf = newId("ntf");
    const a = derivedMessageId(ntf, "conn-a");
    expect(parseId("msg", a)).toBe(a);
    expect(derivedMessageId(ntf, "conn-a")).toBe(a);
    expect(derivedMessageId(ntf, "conn-b")).not.toBe(a);
    expect(derivedMessageId(ntf, "")).not.toBe(a);
    expect(derivedMessageId(newId("ntf"), "conn-a")).not.toBe(a);
  });

  test("keeps the source's time, so derived ids sort with the others by creation (to the millisecond)", () => {
    const early = `ntf_00000000a1${"z".repeat(16)}`;
    const late = `ntf_00000000a2${"0".repeat(16)}`;
    expect(derivedMessageId(early, "x").slice(4, 14)).toBe(early.slice(4, 14));
    expect(derivedMessageId(early, "x") < derivedMessageId(late, "a")).toBe(true);
  });

  test("refuses a source that is not a prefixed id", () => {
    expect(() => derivedMessageId("not-an-id", "x")).toThrow();
  });
});
