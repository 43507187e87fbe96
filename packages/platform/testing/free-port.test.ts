import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { freePort, portWasTaken } from "./free-port.ts";

describe("freePort", () => {
  test("hands out distinct ports below the ephemeral range, each one free to listen on", async () => {
    const low = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    const ports: number[] = [];
    for (let i = 0; i < 40; i++) ports.push(await freePort());
    expect(new Set(ports).size).toBe(ports.length);
    for (const port of ports) expect(port).toBeLessThan(low);
    const srv = createServer();
    await new Promise<void>((resolve, reject) => {
      srv.once("error", reject);
      srv.listen(ports[0], "127.0.0.1", resolve);
    });
    await new Promise((r) => srv.close(r));
  });

  test("a taken port is recognised in Node's and Bun's words, and nothing else is", () => {
    expect(portWasTaken("junction: failed to start: listen EADDRINUSE: address already in use 127.0.0.1:45673")).toBe(
      true,
    );
    expect(portWasTaken("Error: Failed to start server. Is port 41475 in use? EADDRINUSE")).toBe(true);
    expect(portWasTaken("junction: failed to start: connection refused")).toBe(false);
    expect(portWasTaken("timed out after 30000 ms waiting for the gateway to report healthy")).toBe(false);
  });
});
