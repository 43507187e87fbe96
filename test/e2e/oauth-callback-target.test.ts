import { describe, expect, test } from "bun:test";
import { useOAuthWorld } from "./oauth-e2e-kit.ts";

// Without a browser: which origin the callback page's script posts to.
const world = useOAuthWorld();
const postTarget = (html: string) => /postMessage\(.*, ("[^"]*")\);<\/script>/.exec(html)?.[1];

describe("the callback page's target origin", () => {
  test("is the origin that started the authorization (query, else Referer), else the gateway's own; never *", async () => {
    const w = await world();
    await w.integration();
    const gateway = JSON.stringify(new URL(w.j.baseUrl).origin);
    const cases: [string, Record<string, string>, string][] = [
      ["&origin=https%3A%2F%2Fapp.example.test", {}, JSON.stringify("https://app.example.test")],
      ["", { referer: "https://shop.example.test/account/connect?x=1" }, JSON.stringify("https://shop.example.test")],
      ["", {}, gateway],
      // Not exactly an origin: ignored, the Referer is not consulted either.
      ["&origin=javascript%3Aalert(1)", { referer: "https://shop.example.test/" }, gateway],
    ];
    for (const [query, headers, target] of cases) {
      const res = await fetch(
        `${w.j.url}/oauth/connect/cal?connect_session_token=${encodeURIComponent(await w.session())}${query}`,
        { redirect: "manual", headers },
      );
      const callback = await w.fake.authorize(res.headers.get("location") as string);
      const page = await w.callback(callback);
      expect(page.code).toBe("connected");
      expect(postTarget(page.html)).toBe(target);
      expect(page.html).not.toContain('"*"');
      if (query === cases[0]?.[0]) {
        // A replay goes to the same origin only, and names no connection, on the page or in the message.
        const replay = await w.callback(callback);
        expect(replay.code).toBe("state_already_used");
        expect(postTarget(replay.html)).toBe(target);
        for (const id of await w.connectionIds()) expect(replay.html).not.toContain(id);
      }
    }
  });
});
