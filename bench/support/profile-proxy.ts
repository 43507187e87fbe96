/**
 * A profile of Junction's proxy under a fixed load (not a benchmark: one process, no baseline):
 * `bun bench/support/profile-proxy.ts <checkout> <profile dir> [requests] [concurrency]` starts the local
 * upstream and `junction start` of <checkout> with `--cpu-prof` (a .cpuprofile and its Markdown summary
 * written to <profile dir> when it stops), sends [requests] (30 000) small proxied GETs at [concurrency] (16)
 * from a separate process, and prints Junction's CPU time per request. Used to compare two commits' shares.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cpuMillis, freePort, startProcess, waitHealthy } from "./processes.ts";
import { addConnection, proxyHeaders, SECRET_KEY, startUpstream } from "./topologies.ts";

const [root, profileDir, requestsArg, concurrencyArg] = process.argv.slice(2) as [string, string, string?, string?];
const requests = Number(requestsArg ?? 30_000);
const concurrency = Number(concurrencyArg ?? 16);
const noPin = { server: [], load: [], description: "" };
const upstream = await startUpstream(noPin);
const port = await freePort();
const dir = mkdtempSync(join(tmpdir(), "junction-profile-"));
const junction = startProcess(
  "junction",
  ["bun", "--cpu-prof", "--cpu-prof-md", `--cpu-prof-dir=${profileDir}`, join(root, "cli/junction.ts"), "start"],
  {
    PORT: String(port),
    JUNCTION_HOST: "127.0.0.1",
    JUNCTION_DATA_DIR: dir,
    JUNCTION_SECRET_KEY: SECRET_KEY,
    JUNCTION_ALLOWED_PRIVATE_HOSTS: "127.0.0.1",
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith("JUNCTION_"))),
  },
  { quiet: true },
);
try {
  const url = `http://127.0.0.1:${port}`;
  await waitHealthy(`${url}/health`, [junction]);
  await addConnection(url, upstream.url);
  const send = async (n: number) => {
    const p = Bun.spawn(
      [
        "bun",
        join(import.meta.dir, "fixed-load.ts"),
        `${url}/proxy/small`,
        String(n),
        String(concurrency),
        JSON.stringify(proxyHeaders),
      ],
      { stdout: "pipe", stderr: "inherit" },
    );
    const out = await new Response(p.stdout).text();
    await p.exited;
    return JSON.parse(out) as { errors: number; ms: number };
  };
  await send(5000); // warm-up
  const cpu = cpuMillis([junction.proc.pid]);
  const r = await send(requests);
  const used = cpuMillis([junction.proc.pid]) - cpu;
  process.stdout.write(
    `${JSON.stringify({ root, requests, errors: r.errors, cpuUsPerRequest: (used * 1000) / requests, rps: requests / (r.ms / 1000) })}\n`,
  );
} finally {
  await junction.stop();
  await upstream.stop();
  rmSync(dir, { recursive: true, force: true });
}
