import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { METADATA_KEY_RULES } from "./index.ts";

// Everything about a provider lives in its folder here; no other source file names a
// provider or its hosts. The strings are the providers' names, hosts and API path prefixes and header
// prefix (case-insensitive): a file holding one outside this package knows something of a provider.
const PROVIDER_STRINGS = [
  "google-calendar",
  "google-mail",
  "googleapis.com",
  "google.com",
  "gmail",
  "calendar/v3",
  "x-goog-",
  "apis-google",
  "microsoft-outlook-calendar",
  "graph.microsoft.com",
  "login.microsoftonline.com",
  // The catalogue's hosts: its providers' names are common words, their hosts are not.
  "slack.com",
  "api.github.com",
  "github.com/login",
  "gitlab.com",
  "bitbucket.org",
  "atlassian.com",
  "linear.app",
  "asana.com",
  "notion.com",
  "airtable.com",
  "hubapi.com",
  "hubspot.com",
  "salesforce.com",
  "pipedrive.com",
  "zendesk.com",
  "intercom.io",
  "freshdesk.com",
  "myshopify.com",
  "stripe.com",
  "xero.com",
  "intuit.com",
];

const ROOT = join(import.meta.dir, "../../..");

/**
 * Files allowed to name a provider, and why. Tests, test kits and conformance suites use real providers
 * as fixtures; documentation describes them for users; generated code repeats the protos' comments.
 */
const EXEMPT: { pattern: RegExp; why: string }[] = [
  { pattern: /^packages\/providers\//, why: "the providers' home" },
  { pattern: /\.test\.ts$|\.conformance\.ts$|test-kit\.ts$|\/testing\//, why: "tests and their kits (fixtures)" },
  { pattern: /^test\/|^bench\//, why: "end-to-end tests, the fake upstream's tests and benchmarks (fixtures)" },
  { pattern: /\.md$|^docs\//, why: "documentation for users, and the generated OpenAPI document" },
  { pattern: /^packages\/contracts\/gen\//, why: "generated code" },
  { pattern: /^bun\.lock$/, why: "the lockfile" },
];

function sourceFiles(): string[] {
  const run = Bun.spawnSync(["git", "ls-files", "-co", "--exclude-standard"], { cwd: ROOT });
  if (run.exitCode !== 0) throw new Error(`git ls-files failed: ${run.stderr.toString()}`);
  return run.stdout
    .toString()
    .split("\n")
    .filter((f) => f !== "" && !f.includes("node_modules/"));
}

describe("provider names live only in packages/providers", () => {
  test("no other file names a provider or its hosts", () => {
    const offenders: string[] = [];
    for (const file of sourceFiles()) {
      if (EXEMPT.some((e) => e.pattern.test(file))) continue;
      let text: string;
      try {
        text = readFileSync(join(ROOT, file), "utf8").toLowerCase();
      } catch {
        continue; // deleted in the work tree, not yet in the index
      }
      const found = PROVIDER_STRINGS.filter((s) => text.includes(s));
      if (found.length > 0) offenders.push(`${file}: ${found.join(", ")}`);
    }
    expect(offenders).toEqual([]);
  });

  test("no other file names a provider's metadata key or match key", () => {
    // The keys a provider declares (its metadata keys, its watch-URI match keys) are its own: the core
    // reads them from the declaration (METADATA_KEY_RULES), never by name.
    const keys = METADATA_KEY_RULES.map((rule) => rule.key);
    expect(keys.length).toBeGreaterThan(0);
    const offenders: string[] = [];
    for (const file of sourceFiles()) {
      if (EXEMPT.some((e) => e.pattern.test(file))) continue;
      let text: string;
      try {
        text = readFileSync(join(ROOT, file), "utf8");
      } catch {
        continue;
      }
      const found = keys.filter((key) => new RegExp(`\\b${key}\\b`).test(text));
      if (found.length > 0) offenders.push(`${file}: ${found.join(", ")}`);
    }
    expect(offenders).toEqual([]);
  });

  test("the check sees a provider's name where it is not allowed", () => {
    const exempt = (file: string) => EXEMPT.some((e) => e.pattern.test(file));
    expect(exempt("services/connection/src/match-notification.ts")).toBe(false);
    expect(exempt("gateway/src/routes/inbound-webhook.ts")).toBe(false);
    expect(PROVIDER_STRINGS.some((s) => "https://www.googleapis.com/calendar/v3".toLowerCase().includes(s))).toBe(true);
  });
});
