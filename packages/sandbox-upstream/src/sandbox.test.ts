import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type SandboxUpstream, startSandboxUpstream } from "./sandbox.ts";

const running: SandboxUpstream[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const s of running.splice(0)) await s.stop();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function start(stateFile: string): Promise<SandboxUpstream> {
  const sandbox = await startSandboxUpstream({ stateFile });
  running.push(sandbox);
  return sandbox;
}

/** Authorizes on the sandbox's GitHub (consent is automatic) and redeems the code: the access token. */
async function githubToken(sandbox: SandboxUpstream): Promise<string> {
  const cred = sandbox.testCredentials.github;
  if (!cred) throw new Error("no github credential");
  const authorize = new URL(cred.authorizationUrl);
  for (const [k, v] of Object.entries({
    client_id: cred.clientId,
    redirect_uri: "http://127.0.0.1:9/cb",
    response_type: "code",
  }))
    authorize.searchParams.set(k, v);
  const consent = await fetch(authorize, { redirect: "manual" });
  const code = new URL(consent.headers.get("location") as string).searchParams.get("code") as string;
  const form = {
    grant_type: "authorization_code",
    code,
    redirect_uri: "http://127.0.0.1:9/cb",
    client_id: cred.clientId,
    client_secret: cred.clientSecret,
  };
  const res = await fetch(cred.tokenUrl, { method: "POST", body: new URLSearchParams(form) });
  const body = (await res.json()) as { access_token: string };
  return body.access_token;
}

describe("the sandbox upstream's state file", () => {
  test("keeps its client secret, its port and the tokens it issued across a restart", async () => {
    const dir = mkdtempSync(join(tmpdir(), "junction-sandbox-state-"));
    dirs.push(dir);
    const file = join(dir, "sandbox-upstream.json");
    const first = await start(file);
    const token = await githubToken(first);
    const user = (s: SandboxUpstream) =>
      fetch(`${s.testCredentials.github?.baseUrl}/user`, { headers: { authorization: `Bearer ${token}` } });
    expect((await user(first)).status).toBe(200);
    const { clientSecret } = first.testCredentials.github ?? {};
    await running.splice(0)[0]?.stop();
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const second = await start(file);
    expect(second.url).toBe(first.url);
    expect(second.testCredentials.github?.clientSecret).toBe(clientSecret as string);
    expect((await user(second)).status).toBe(200);
  });

  test("without a state file, a new start knows nothing of the last one", async () => {
    const first = await startSandboxUpstream();
    const token = await githubToken(first);
    await first.stop();
    const second = await startSandboxUpstream();
    running.push(second);
    const res = await fetch(`${second.testCredentials.github?.baseUrl}/user`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(401);
  });
});
