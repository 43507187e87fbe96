import { createHash } from "node:crypto";
import { join } from "node:path";

export interface Asset {
  body: string;
  contentType: string;
  etag: string;
}

const CLIENT_ENTRY = join(import.meta.dir, "client", "main.ts");
const STYLESHEET = join(import.meta.dir, "dashboard.css");

function asset(body: string, contentType: string): Asset {
  return { body, contentType, etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 22)}"` };
}

/**
 * The dashboard's script and stylesheet. The script is the TypeScript under ./client, bundled with
 * Bun.build on first use (about 20 ms) and kept in memory: nothing to build before `npm start`, and
 * nothing fetched from any network.
 */
export class DashboardAssets {
  private script: Promise<Asset> | undefined;
  private style: Promise<Asset> | undefined;

  /** The bundled app script; a build failure is thrown (and retried on the next request). */
  appScript(): Promise<Asset> {
    this.script ??= buildClient().catch((err) => {
      this.script = undefined;
      throw err;
    });
    return this.script;
  }

  stylesheet(): Promise<Asset> {
    this.style ??= Bun.file(STYLESHEET)
      .text()
      .then((css) => asset(css, "text/css; charset=utf-8"));
    return this.style;
  }
}

async function buildClient(): Promise<Asset> {
  const result = await Bun.build({ entrypoints: [CLIENT_ENTRY], target: "browser", format: "esm", minify: true });
  const output = result.outputs[0];
  if (!result.success || !output) {
    throw new Error(`dashboard client build failed: ${result.logs.map((l) => l.message).join("; ")}`);
  }
  return asset(await output.text(), "text/javascript; charset=utf-8");
}
