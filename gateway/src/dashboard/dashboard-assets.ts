import { join } from "node:path";
import { BundledAssets } from "../http/bundled-assets.ts";

export type { Asset } from "../http/bundled-assets.ts";

/** The dashboard's script (the TypeScript under ./client) and stylesheet. */
export class DashboardAssets extends BundledAssets {
  constructor() {
    super(join(import.meta.dir, "client", "main.ts"), join(import.meta.dir, "dashboard.css"));
  }
}
