import { describe, expect, test } from "bun:test";
import { Code, ConnectError } from "@connectrpc/connect";
import type { GatewayClients } from "../../clients.ts";
import { sessionParty } from "./session-party.ts";

// Who a refusal is about: the live session's environment, end user and tags; nobody otherwise, and no
// lookup for a token already found unknown or expired.

function clientsAnswering(getConnectSession: (req: { token: string }) => Promise<unknown>) {
  const asked: string[] = [];
  const clients = {
    connection: {
      getConnectSession: (req: { token: string }) => {
        asked.push(req.token);
        return getConnectSession(req);
      },
    },
  } as unknown as GatewayClients;
  return { clients, asked };
}

const NOBODY = { environmentId: "", endUser: "", tags: [] };

describe("sessionParty", () => {
  test("a live session: its environment, end user and tags as key:value", async () => {
    const { clients } = clientsAnswering(async () => ({
      environmentId: "env_1",
      endUser: { id: "user-1", email: "a@example.test" },
      tags: { team: "blue" },
    }));
    expect(await sessionParty(clients, "jct_connect_session_x", "integration_not_allowed")).toEqual({
      environmentId: "env_1",
      endUser: "user-1",
      tags: ["team:blue"],
    });
  });

  test("no token, a refusal that says there is no session, or a failed lookup: nobody", async () => {
    const { clients, asked } = clientsAnswering(async () => {
      throw new ConnectError("expired", Code.Unauthenticated);
    });
    expect(await sessionParty(clients, "")).toEqual(NOBODY);
    expect(await sessionParty(clients, "jct_connect_session_x", "unknown_connect_session_token")).toEqual(NOBODY);
    expect(await sessionParty(clients, "jct_connect_session_x", "connect_session_expired")).toEqual(NOBODY);
    expect(asked).toEqual([]);
    expect(await sessionParty(clients, "jct_connect_session_x", "invalid_body")).toEqual(NOBODY);
    expect(asked).toEqual(["jct_connect_session_x"]);
  });
});
