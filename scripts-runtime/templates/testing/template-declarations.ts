import { expect } from "bun:test";
import type { ScriptRuntime } from "../../src/index.ts";

/**
 * A provider's three channel templates as uploaded: each validates, and they declare the
 * post-connection-creation hook, the daily auto-started renewal sync at `renewalPath`, and the
 * pre-connection-deletion hook, in that order.
 */
export async function expectChannelTemplates(
  runtime: ScriptRuntime,
  provider: string,
  templates: readonly { name: string; source: string }[],
  renewalPath: string,
): Promise<void> {
  const declarations = await Promise.all(
    templates.map(async ({ name, source }) => {
      const checked = await runtime.validateScript(source, `${provider}/${name}`);
      if (!checked.ok) throw new Error(`${name}: ${JSON.stringify(checked.error)}`);
      return checked.declaration;
    }),
  );
  expect(declarations[0]).toMatchObject({ kind: "on-event", event: "post-connection-creation" });
  expect(declarations[1]).toMatchObject({
    kind: "sync",
    frequencyMs: 24 * 3_600_000,
    autoStart: true,
    endpoints: [{ method: "GET", path: renewalPath }],
  });
  expect(declarations[2]).toMatchObject({ kind: "on-event", event: "pre-connection-deletion" });
}
