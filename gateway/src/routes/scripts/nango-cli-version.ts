import { Code } from "@connectrpc/connect";
import { JunctionError } from "@junction/platform";

/**
 * The oldest `nango` CLI whose deploys Junction reads: from this version on it sends each script's
 * models as JSON Schemas (`models_json_schema`), built from zero-yaml zod models.
 */
export const MIN_NANGO_CLI = "0.69.46";
const SDK_VERSION = /^(\d+)\.(\d+)\.(\d+)-(zero|yaml)$/;
const USER_AGENT = /nango-cli\/(\d+)\.(\d+)\.(\d+)/;

/**
 * Refuses a deploy from a CLI Junction cannot read: a nango.yaml project (`-yaml`) or a version
 * older than MIN_NANGO_CLI, read from `sdkVersion` or else the CLI's User-Agent.
 */
export function checkCliVersion(sdkVersion: string | undefined, userAgent: string | null): void {
  const fromBody = sdkVersion === undefined ? null : SDK_VERSION.exec(sdkVersion);
  if (sdkVersion !== undefined && !fromBody) {
    throw refuse(`sdkVersion "${sdkVersion.slice(0, 64)}" is not a nango CLI version such as "0.71.10-zero".`);
  }
  if (fromBody?.[4] === "yaml") {
    throw refuse(
      "Junction deploys zero-yaml projects only: this project still has a nango.yaml. Run `nango migrate-to-zero-yaml`, then deploy again.",
    );
  }
  const found = fromBody ?? USER_AGENT.exec(userAgent ?? "");
  if (!found) return;
  const version = [found[1], found[2], found[3]].map(Number) as [number, number, number];
  if (compare(version, MIN_NANGO_CLI.split(".").map(Number) as [number, number, number]) < 0) {
    throw refuse(
      `nango CLI ${version.join(".")} is older than Junction supports (${MIN_NANGO_CLI} and later send each model's JSON Schema): upgrade with \`npm install -D nango@latest\`.`,
    );
  }
}

function compare(a: [number, number, number], b: [number, number, number]): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return (a[i] as number) - (b[i] as number);
  return 0;
}

const refuse = (message: string) => new JunctionError("invalid_cli_version", message, Code.InvalidArgument);
