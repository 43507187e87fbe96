import { afterEach, describe, expect, test } from "bun:test";
import { Supervisor } from "./supervisor.ts";

const supervisors: Supervisor[] = [];
afterEach(async () => {
  for (const s of supervisors.splice(0)) await s.stop();
});

function supervise(options: { backoffMs: number; maxBackoffMs: number }) {
  const events: string[] = [];
  const lines: string[] = [];
  const supervisor = new Supervisor({
    env: { PATH: process.env.PATH ?? "" },
    output: { event: (l) => events.push(l), child: (name, l) => lines.push(`${name}: ${l}`) },
    onPids: () => {},
    ...options,
  });
  supervisors.push(supervisor);
  return { supervisor, events, lines };
}

async function until(what: string, check: () => boolean, withinMs = 10_000): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(10);
  }
}

describe("the supervisor of junction up", () => {
  test("restarts a process that keeps crashing with a doubling delay, capped", async () => {
    const { supervisor, events, lines } = supervise({ backoffMs: 20, maxBackoffMs: 80 });
    await supervisor.start([
      { name: "flaky", command: ["sh", "-c", "echo ready; sleep 0.2; exit 3"], ready: /^ready$/, readyWithinMs: 5_000 },
    ]);
    await until("four restarts", () => events.filter((e) => e.includes("restarting")).length >= 4);
    expect(events.filter((e) => e.includes("restarting")).slice(0, 4)).toEqual([
      "flaky exited (exit code 3); restarting in 20 ms (restart 1)",
      "flaky exited (exit code 3); restarting in 40 ms (restart 2)",
      "flaky exited (exit code 3); restarting in 80 ms (restart 3)",
      "flaky exited (exit code 3); restarting in 80 ms (restart 4)",
    ]);
    expect(lines[0]).toBe("flaky: ready");
  });

  test("refuses to start when a process never prints its ready line, with its last output", async () => {
    const { supervisor, events } = supervise({ backoffMs: 20, maxBackoffMs: 80 });
    const started = supervisor.start([
      { name: "mute", command: ["sh", "-c", "echo 'port taken'; exit 1"], ready: /listening/, readyWithinMs: 5_000 },
    ]);
    await expect(started).rejects.toThrow("mute did not start (exit code 1):\n  port taken");
    await Bun.sleep(100);
    expect(events).toEqual([]); // not restarted: junction up stops and says why
  });

  test("stops what it started and restarts nothing after", async () => {
    const { supervisor, events } = supervise({ backoffMs: 20, maxBackoffMs: 80 });
    await supervisor.start([
      { name: "steady", command: ["sh", "-c", "echo ready; exec sleep 30"], ready: /^ready$/, readyWithinMs: 5_000 },
    ]);
    const pid = supervisor.pids().steady as number;
    expect(pid).toBeGreaterThan(0);
    await supervisor.stop();
    expect(() => process.kill(pid, 0)).toThrow();
    await Bun.sleep(100);
    expect(events.filter((e) => e.includes("restarting"))).toEqual([]);
    expect(supervisor.pids()).toEqual({});
  });
});
