import { describe, expect, test } from "bun:test";
import { RPC_GUARDS } from "./rpc-guards.ts";

describe("the public GetConnection's answer", () => {
  test("leaves the refresh token out without changing the service's answer, whose parts others may share", () => {
    const raw = { access_token: "at", refresh_token: "rt", scope: "s" };
    const res = { connection: { connectionId: "c" }, credentials: { accessToken: "at", refreshToken: "rt", raw } };
    const answered = RPC_GUARDS.connection.getConnection.answer?.(res) as {
      connection: unknown;
      credentials: { accessToken: string; refreshToken: string; raw: Record<string, string> };
    };
    expect(answered.credentials.refreshToken).toBe("");
    expect(answered.credentials.raw).toEqual({ access_token: "at", scope: "s" });
    expect(answered.credentials.accessToken).toBe("at");
    expect(answered.connection).toEqual({ connectionId: "c" });
    expect(res.credentials.refreshToken).toBe("rt");
    expect(raw).toEqual({ access_token: "at", refresh_token: "rt", scope: "s" });
  });

  test("without credentials is the answer itself", () => {
    const res = { connection: { connectionId: "c" } };
    expect(RPC_GUARDS.connection.getConnection.answer?.(res)).toBe(res);
  });
});
