import { describe, expect, test } from "bun:test";
import { type FakeInstance, mountRoutes, type ProviderFake, route, StateChanges } from "@junction/providers/fake-kit";
import { mountFakes } from "./mount-fakes.ts";

const base = () => ({ url: "http://127.0.0.1:1", now: () => 0, changes: new StateChanges() });

/** A fake other fakes build on: counts how often it was started. */
function sharedFake(
  starts: string[],
): ProviderFake<{ greeting?: string }, FakeInstance & { shared: { hits: number } }> {
  return {
    name: "shared",
    start(_host, options) {
      starts.push("shared");
      const shared = { hits: 0 };
      return {
        shared,
        routes: mountRoutes(shared, [route("GET", /^\/shared$/, (_ctx, s) => Response.json({ hits: ++s.hits }))]),
        controls: { greet: () => options.greeting ?? "hello" },
        state: {
          get hits() {
            return shared.hits;
          },
        },
        endpoints: { sharedUrl: "http://127.0.0.1:1/shared" },
        notFound: () => new Response("shared 404", { status: 404 }),
      };
    },
  };
}

function userFake(name: string, shared: ReturnType<typeof sharedFake>, starts: string[], stops: string[]) {
  const fake: ProviderFake<object, FakeInstance> = {
    name,
    start(host) {
      const used = host.use(shared);
      starts.push(name);
      return {
        routes: mountRoutes(used.shared, [route("GET", new RegExp(`^/${name}$`), (_ctx, s) => Response.json(s))]),
        sandboxCredentials: { [name]: { authorizationUrl: "a", tokenUrl: "t", baseUrl: host.url } },
        stop: () => stops.push(name),
      };
    },
  };
  return fake;
}

describe("mountFakes (the sandbox upstream's runner)", () => {
  test("starts a fake used by several others once, before them, and serves routes in start order", async () => {
    const starts: string[] = [];
    const stops: string[] = [];
    const shared = sharedFake(starts);
    const mounted = mountFakes(
      [userFake("one", shared, starts, stops), userFake("two", shared, starts, stops), shared],
      base(),
      { greeting: "hi" },
    );
    expect(starts).toEqual(["shared", "one", "two"]);
    expect(mounted.routes.map((r) => String(r.pattern))).toEqual(["/^\\/shared$/", "/^\\/one$/", "/^\\/two$/"]);
    const first = mounted.routes[0];
    if (!first) throw new Error("no route");
    const answer = await first.handler({} as never, undefined);
    expect(await answer.json()).toEqual({ hits: 1 });
    // State getters stay live; controls and options reach every fake.
    expect((mounted.state as { hits: number }).hits).toBe(1);
    expect((mounted.controls as { greet(): string }).greet()).toBe("hi");
    expect(mounted.endpoints).toEqual({ sharedUrl: "http://127.0.0.1:1/shared" });
    expect(Object.keys(mounted.sandboxCredentials)).toEqual(["one", "two"]);
    expect(await mounted.notFound({} as never).text()).toBe("shared 404");
    mounted.stop();
    expect(stops).toEqual(["one", "two"]);
  });

  test("answers a plain 404 when no fake gives one, and refuses a fake that uses itself", () => {
    expect(mountFakes([], base(), {}).notFound({} as never).status).toBe(404);
    const loop: ProviderFake<object, FakeInstance> = { name: "loop", start: (host) => host.use(loop) };
    expect(() => mountFakes([loop], base(), {})).toThrow("fake loop uses itself");
  });
});
