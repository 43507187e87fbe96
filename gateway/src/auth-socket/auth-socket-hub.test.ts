import { describe, expect, test } from "bun:test";
import { ManualClock } from "@junction/platform";
import { type AuthSocket, AuthSocketHub, newAuthSocketId } from "./auth-socket-hub.ts";

/** A socket that records what it was sent and whether it was closed. */
function fakeSocket(id = newAuthSocketId()) {
  const socket = {
    data: { id },
    sent: [] as string[],
    closed: undefined as number | undefined,
    send(text: string) {
      socket.sent.push(text);
    },
    close(code?: number) {
      socket.closed = code ?? 1000;
    },
  };
  return socket satisfies AuthSocket;
}

const MINUTE = 60_000;

function hub(maxSockets = 3) {
  const clock = new ManualClock();
  return { clock, hub: new AuthSocketHub({ clock, lifetimeMs: 11 * MINUTE, maxSockets }) };
}

describe("the frontend SDK's sockets", () => {
  test("each is told its fresh id, then gets one result and is closed", () => {
    const { hub: h } = hub();
    const a = fakeSocket();
    const b = fakeSocket();
    h.opened(a);
    h.opened(b);
    expect(a.data.id).not.toBe(b.data.id);
    expect(a.data.id).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(JSON.parse(a.sent[0] as string)).toEqual({ message_type: "connection_ack", ws_client_id: a.data.id });
    expect(h.deliver(a.data.id, "result")).toBe(true);
    expect(a.sent).toEqual([a.sent[0] as string, "result"]);
    expect(a.closed).toBe(1000);
    // A second result for the same id, or one for an id never issued, reaches nobody.
    expect(h.deliver(a.data.id, "again")).toBe(false);
    expect(h.deliver("never-issued-0000000000", "x")).toBe(false);
    expect(a.sent).toHaveLength(2);
    expect(b.sent).toHaveLength(1);
    expect(b.closed).toBeUndefined();
    expect(h.size).toBe(1);
  });

  test("a socket that never hears is closed after the authorization's lifetime, on the injected clock", async () => {
    const { hub: h, clock } = hub();
    const idle = fakeSocket();
    h.opened(idle);
    await clock.advance(11 * MINUTE - 1);
    expect(idle.closed).toBeUndefined();
    await clock.advance(1);
    expect(idle.closed).toBe(1000);
    expect(h.size).toBe(0);
    expect(h.deliver(idle.data.id, "late")).toBe(false);
    expect(idle.sent).toHaveLength(1);
  });

  test("past the bound a socket is closed at once; one closing by the browser frees its place", () => {
    const { hub: h } = hub(2);
    const [a, b, c] = [fakeSocket(), fakeSocket(), fakeSocket()];
    h.opened(a);
    h.opened(b);
    expect(h.hasRoom()).toBe(false);
    h.opened(c);
    expect(c.closed).toBe(1013);
    expect(c.sent).toEqual([]);
    h.closed(a);
    expect(h.hasRoom()).toBe(true);
    expect(h.deliver(a.data.id, "x")).toBe(false);
  });

  test("closing a socket that was replaced or never held changes nothing", () => {
    const { hub: h } = hub();
    const a = fakeSocket("same-id-000000000000");
    const impostor = fakeSocket("same-id-000000000000");
    h.opened(a);
    h.closed(impostor);
    expect(h.size).toBe(1);
    expect(h.deliver("same-id-000000000000", "r")).toBe(true);
    expect(a.sent).toContain("r");
  });
});
