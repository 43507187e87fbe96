import { join } from "node:path";

/** The packages a bundle leaves for the caller to install (its dependencies on npm). */
const EXTERNAL = ["@connectrpc/connect", "@connectrpc/connect-node", "@bufbuild/protobuf"];

/**
 * Bundles the client as one ES module for Node (`{outdir}/index.js`): Junction's workspace packages
 * are TypeScript that Node cannot load, so they are compiled in; Connect and protobuf-es stay imports.
 */
export async function buildForNode(outdir: string): Promise<string> {
  const result = await Bun.build({
    entrypoints: [join(import.meta.dir, "index.ts")],
    outdir,
    target: "node",
    format: "esm",
    external: EXTERNAL,
  });
  if (!result.success) throw new AggregateError(result.logs, "building @junction/client failed");
  return join(outdir, "index.js");
}

if (import.meta.main) {
  const out = await buildForNode(join(import.meta.dir, "..", "dist"));
  console.log(`wrote ${out}`);
}
