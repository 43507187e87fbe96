import { readFileSync } from "node:fs";
import { createServer } from "node:net";

/** Ports handed out by this process: never handed out twice, so two servers of one test never share one. */
const handedOut = new Set<number>();
/** The lowest port tried; below the ephemeral range, so that no outgoing connection takes it meanwhile. */
const LOWEST = 10_000;

/**
 * A TCP port that was free a moment ago on 127.0.0.1, for a child process to listen on. It is taken
 * below the kernel's ephemeral range where there is room: a port of that range (what binding port 0
 * gives) can become the local end of any outgoing connection before the child binds it, and the child
 * then fails with EADDRINUSE.
 */
export async function freePort(): Promise<number> {
  const below = ephemeralLow();
  for (let attempt = 0; below - LOWEST >= 1000 && attempt < 50; attempt++) {
    const port = LOWEST + Math.floor(Math.random() * (below - LOWEST));
    if (!handedOut.has(port) && (await canListen(port))) {
      handedOut.add(port);
      return port;
    }
  }
  for (;;) {
    const port = await listenOnce(0);
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
}

/** Whether an error or a process's output says a port was taken (worth starting again on other ports). */
export const portWasTaken = (text: string): boolean => /EADDRINUSE|address already in use|port \d+ in use/i.test(text);

function ephemeralLow(): number {
  try {
    return Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]) || 32768;
  } catch {
    return 32768;
  }
}

async function canListen(port: number): Promise<boolean> {
  try {
    return (await listenOnce(port)) === port;
  } catch {
    return false;
  }
}

function listenOnce(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(port, "127.0.0.1", () => {
      const addr = srv.address();
      const bound = typeof addr === "object" && addr ? addr.port : 0;
      srv.close(() => resolve(bound));
    });
  });
}
