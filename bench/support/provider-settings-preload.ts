/**
 * For the notifications benchmark's gmail-oidc case, preloaded into a Junction of its own with
 * `bun --preload`: sets the defaults of provider settings from JUNCTION_BENCH_PROVIDER_DEFAULTS
 * (JSON, `{"<provider>": {"<setting key>": "<value>"}}`), so that every integration of that provider in
 * the process reads them as if the operator had set them (`providerSettings` applies the adapter's
 * defaults under the stored values).
 *
 * Why: an integration's provider settings cannot be set on a running Junction yet. The gateway's
 * /integrations routes take no `provider_settings`, and the connection service neither stores
 * `providerSettings` (not in the integration's row) nor returns it (`toIntegration`), so receipt always
 * reads the adapter's defaults. Once settings can be stored, set them through the API on the main Junction
 * and drop this file. Not part of Junction: without the variable it does nothing.
 */
import { join } from "node:path";

const spec = process.env.JUNCTION_BENCH_PROVIDER_DEFAULTS;
if (spec) {
  // The checkout's own module (Junction runs with its root as working directory), so that the adapters
  // patched are the ones Junction loads, also for a BENCH_COMPARE_ROOT checkout.
  const providers = (await import(join(process.cwd(), "packages/providers/src/index.ts"))) as {
    providerAdapter(
      name: string,
    ): { integrationSettings?: readonly { key: string; defaultValue: string }[] } | undefined;
  };
  for (const [provider, values] of Object.entries(JSON.parse(spec) as Record<string, Record<string, string>>)) {
    const adapter = providers.providerAdapter(provider);
    const settings = adapter?.integrationSettings ?? [];
    const missing = Object.keys(values).filter((key) => !settings.some((s) => s.key === key));
    if (!adapter || missing.length > 0) {
      throw new Error(`provider-settings-preload: ${provider} has no setting ${missing.join(", ") || "(no adapter)"}`);
    }
    adapter.integrationSettings = settings.map((s) =>
      s.key in values ? { ...s, defaultValue: values[s.key] as string } : s,
    );
  }
}
