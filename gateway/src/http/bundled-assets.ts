import { createHash } from "node:crypto";

export interface Asset {
  body: string;
  contentType: string;
  etag: string;
}

function asset(body: string, contentType: string): Asset {
  return { body, contentType, etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 22)}"` };
}

/**
 * A browser page's script and stylesheet. The script is TypeScript bundled with Bun.build on first use
 * (tens of ms) and kept in memory: nothing to build before `npm start`, and nothing fetched from any
 * network.
 */
export class BundledAssets {
  private script: Promise<Asset> | undefined;
  private style: Promise<Asset> | undefined;

  /** `entry`: the script's TypeScript entry point; `stylesheet`: a CSS file served as it is. */
  constructor(
    private readonly entry: string,
    private readonly stylesheetPath: string,
  ) {}

  /** The bundled script; a build failure is thrown (and retried on the next request). */
  appScript(): Promise<Asset> {
    this.script ??= this.build().catch((err) => {
      this.script = undefined;
      throw err;
    });
    return this.script;
  }

  stylesheet(): Promise<Asset> {
    this.style ??= Bun.file(this.stylesheetPath)
      .text()
      .then((css) => asset(css, "text/css; charset=utf-8"));
    return this.style;
  }

  private async build(): Promise<Asset> {
    const result = await Bun.build({ entrypoints: [this.entry], target: "browser", format: "esm", minify: true });
    const output = result.outputs[0];
    if (!result.success || !output) {
      throw new Error(`client build of ${this.entry} failed: ${result.logs.map((l) => l.message).join("; ")}`);
    }
    return asset(await output.text(), "text/javascript; charset=utf-8");
  }
}
