import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { catalogueMarkdown } from "./catalogue-doc.ts";
import { providerAdapters } from "./index.ts";

// `bun run providers:doc`: writes docs/providers.md from the catalogue (scripts/test.sh checks it is current).
const path = join(import.meta.dir, "../../../docs/providers.md");
writeFileSync(path, catalogueMarkdown(providerAdapters()));
console.log(`wrote ${path}`);
