import { describe, expect, test } from "bun:test";
import { waitFor } from "../support/wait-for.ts";
import { type OAuthWorld, useOAuthWorld } from "./oauth-e2e-kit.ts";

// The frontend SDK's WebSocket as a raw client sees it (what @nangohq/frontend reads), and the bad input
// around it: ids unknown or another session's, replays, a socket that talks or never hears, many sockets.

const world = useOAuthWorld();
const MINUTE = 60_000;

interface Client {
  ws: WebSocket;
  id: string;
  messages: unknown[];
  closed: () => boolean;
}

/** Opens a socket at `path` and waits for its connection_ack. */
async function openSocket(w: OAuthWorld, path = "/"): Promise<Client> {
  const ws = new WebSocket(`${w.j.url.replace(/^http/, "ws")}${path}`);
  const messages: unknown[] = [];
  let closed = false;
  ws.onmessage = (e) => messages.push(JSON.parse(String(e.data)));
  ws.onclose = () => {
    closed = true;
  };
  await waitFor("the connection_ack", () => messages.length > 0, 10_000, 5);
  const ack = messages[0] as { message_type: string; ws_client_id: string };
  expect(ack.message_type).toBe("connection_ack");
  return { ws, id: ack.ws_client_id, messages, closed: () => closed };
}

/** Starts the authorization with `wsClientId` and plays the consent; the callback URL (not yet visited). */
async function authorizeWith(w: OAuthWorld, token: string, wsClientId: string): Promise<URL> {
  const res = await w.start("cal", token, `&ws_client_id=${encodeURIComponent(wsClientId)}`);
  const location = res.headers.get("location");
  if (res.status !== 302 || !location) throw new Error(`/oauth/connect: ${res.status} ${await res.text()}`);
  return w.fake.authorize(location);
}

describe("the frontend SDK's WebSocket", () => {
  test("acks with a fresh id at / and the configured path; a plain GET / is the dashboard's redirect as before", async () => {
    const w = await world({ env: { JUNCTION_WEBSOCKETS_PATH: "/nango-ws" } });
    const [a, b] = [await openSocket(w), await openSocket(w, "/nango-ws")];
    expect(a.id).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(b.id).not.toBe(a.id);
    const plain = await fetch(`${w.j.url}/`, { redirect: "manual" });
    expect(plain.status).toBe(303);
    expect(plain.headers.get("location")).toBe("/dashboard");
    // An upgrade elsewhere is not a socket of this kind.
    const elsewhere = await fetch(`${w.j.url}/integrations`, {
      headers: { upgrade: "websocket", connection: "upgrade" },
    });
    expect(elsewhere.status).toBe(401);
  });

  test("success goes to exactly the socket the authorization started with, in Nango's shape; a replay sends nothing", async () => {
    const w = await world();
    await w.integration();
    const [mine, other] = [await openSocket(w), await openSocket(w)];
    const callback = await authorizeWith(w, await w.session(), mine.id);
    expect((await w.callback(callback)).code).toBe("connected");
    await waitFor("the result", () => mine.messages.length === 2, 10_000, 5);
    const [id] = await w.connectionIds();
    expect(mine.messages[1]).toEqual({
      message_type: "success",
      provider_config_key: "cal",
      connection_id: id,
      is_pending: false,
    });
    await waitFor("the socket to close", mine.closed, 10_000, 5);
    expect((await w.callback(callback)).code).toBe("state_already_used");
    // The replay's answer names no socket: only the first use of a state reaches one.
    const state = callback.searchParams.get("state") as string;
    const again = await w.j.clients.connection.completeAuthorization({ state, code: "x" });
    expect(again.wsClientId).toBe("");
    expect(other.messages).toHaveLength(1);
    expect(other.closed()).toBe(false);
  });

  test("a reconnect session's authorization ends on the socket with the connection it re-authorized", async () => {
    const w = await world();
    await w.integration();
    expect((await w.callback(await w.authorize())).code).toBe("connected");
    const [id] = await w.connectionIds();
    const reconnect = await w.j.api("POST", "/connect/sessions/reconnect", {
      end_user: { id: "user-1" },
      connection_id: id,
      integration_id: "cal",
    });
    const socket = await openSocket(w);
    await w.callback(await authorizeWith(w, reconnect.body.data.token, socket.id));
    await waitFor("the result", () => socket.messages.length === 2, 10_000, 5);
    expect(socket.messages[1]).toMatchObject({
      message_type: "success",
      connection_id: id,
      provider_config_key: "cal",
    });
    expect(await w.connectionIds()).toEqual([id as string]);
  });

  test("a declined consent is an error of type callback_err naming no connection", async () => {
    const w = await world();
    await w.integration();
    const socket = await openSocket(w);
    w.fake.setNextAuthorization({ deny: true });
    await w.callback(await authorizeWith(w, await w.session(), socket.id));
    await waitFor("the result", () => socket.messages.length === 2, 10_000, 5);
    expect(socket.messages[1]).toMatchObject({
      message_type: "error",
      provider_config_key: "cal",
      error_type: "callback_err",
    });
    expect(socket.messages[1]).not.toHaveProperty("connection_id");
  });

  test("another session's use of an id is refused and sends nothing; an unknown or malformed id reaches no socket", async () => {
    const w = await world();
    await w.integration();
    const socket = await openSocket(w);
    const owner = await w.session();
    const first = await w.start("cal", owner, `&ws_client_id=${socket.id}`);
    expect(first.status).toBe(302);
    // The same session may start again with it (a reloaded popup); another session may not.
    expect((await w.start("cal", owner, `&ws_client_id=${socket.id}`)).status).toBe(302);
    const intruder = await w.start("cal", await w.session(), `&ws_client_id=${socket.id}`);
    expect(intruder.status).toBe(409);
    expect(((await intruder.json()) as any).error.code).toBe("ws_client_id_in_use");
    const malformed = await w.start("cal", await w.session(), "&ws_client_id=%3Cscript%3E");
    expect(malformed.status).toBe(400);

    // An id no gateway issued: the authorization completes, and no socket hears of it.
    const callback = await authorizeWith(w, await w.session(), "never-issued-by-any-gateway-0001");
    expect((await w.callback(callback)).code).toBe("connected");
    expect(socket.messages).toHaveLength(1);
    expect(socket.closed()).toBe(false);
  });

  test("a refused start is told to the socket once the id is bound to the session; before that, nothing is", async () => {
    const w = await world();
    await w.integration();
    await w.integration("other");
    const socket = await openSocket(w);
    expect((await w.start("other", "not-a-session-token", `&ws_client_id=${socket.id}`)).status).toBe(401);
    expect(socket.messages).toHaveLength(1);
    const onlyCal = await w.session();
    const refused = await w.start("other", onlyCal, `&ws_client_id=${socket.id}`, "text/html");
    expect(refused.status).toBe(403);
    await waitFor("the error", () => socket.messages.length === 2, 10_000, 5);
    expect(socket.messages[1]).toMatchObject({
      message_type: "error",
      provider_config_key: "other",
      error_type: "integration_not_allowed",
    });
    await waitFor("the socket to close", socket.closed, 10_000, 5);
  });

  test("what a socket sends is ignored (too much closes it); an idle one closes after the authorization's lifetime", async () => {
    const w = await world();
    await w.integration();
    const talker = await openSocket(w);
    talker.ws.send(JSON.stringify({ message_type: "success", ws_client_id: talker.id }));
    const idle = await openSocket(w);
    expect(talker.messages).toHaveLength(1);
    talker.ws.send("x".repeat(4096));
    await waitFor("the talker to be closed", talker.closed, 10_000, 5);
    expect(talker.messages).toHaveLength(1);

    await w.clock.advance(11 * MINUTE - 1);
    expect(idle.closed()).toBe(false);
    await w.clock.advance(1);
    await waitFor("the idle socket to be closed", idle.closed, 10_000, 5);
    expect(idle.messages).toHaveLength(1);
  });

  test("sockets are bounded per gateway: past the bound an upgrade is refused, and a closed one frees its place", async () => {
    const w = await world({ env: { JUNCTION_WEBSOCKETS_MAX_SOCKETS: "2000" } });
    const held = await Promise.all(Array.from({ length: 2000 }, () => openSocket(w)));
    expect(new Set(held.map((s) => s.id)).size).toBe(2000);
    const refused = await fetch(`${w.j.url}/`, {
      headers: {
        upgrade: "websocket",
        connection: "upgrade",
        "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
        "sec-websocket-version": "13",
      },
    });
    expect(refused.status).toBe(503);
    expect(((await refused.json()) as any).error.code).toBe("too_many_sockets");
    const gone = held[0] as Client;
    gone.ws.close();
    await waitFor("the place to be freed", async () => {
      try {
        const next = await openSocket(w);
        next.ws.close();
        return true;
      } catch {
        return false;
      }
    });
    for (const s of held) s.ws.close();
  });
});
