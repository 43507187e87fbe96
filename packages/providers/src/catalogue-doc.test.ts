import { describe, expect, test } from "bun:test";
import { catalogueMarkdown } from "./catalogue-doc.ts";
import { adapterFromDefinition } from "./definition/defined-provider.ts";
import { providerAdapters } from "./index.ts";

describe("docs/providers.md generation", () => {
  test("lists every provider with its name, auth mode, what the connect page asks and its docs", () => {
    const md = catalogueMarkdown(providerAdapters());
    for (const a of providerAdapters()) {
      expect(md).toContain(`| ${a.displayName} | \`${a.name}\` | ${a.authMode} |`);
      expect(md).toContain(`## ${a.displayName} (\`${a.name}\`)`);
    }
  });

  test("a provider's section says its OAuth variation, connection config, identity request and scopes", () => {
    const a = adapterFromDefinition({
      name: "acme",
      displayName: "Acme",
      authMode: "OAUTH2",
      docsUrl: "https://docs.acme.example/oauth",
      baseUrl: "{instance_url}/api",
      authorizationUrl: "https://acme.example/authorize",
      tokenUrl: "https://acme.example/token",
      refreshUrl: "https://acme.example/refresh",
      scopeSeparator: "comma",
      pkce: "required",
      scopes: [
        { name: "read", description: "Read | all" },
        { name: "admin", description: "All", sensitivity: "restricted" },
      ],
      defaultScopes: ["read"],
      connectionConfig: [{ key: "instance_url", from: "token_response", path: "instance_url" }],
      identity: { url: "/me", idPath: "id", docsUrl: "https://docs.acme.example/me" },
    });
    const md = catalogueMarkdown([a]);
    expect(md).toContain("- Refresh URL: `https://acme.example/refresh`");
    expect(catalogueMarkdown([{ ...a, refreshUrl: "" }])).not.toContain("Refresh URL");
    expect(md).toContain("PKCE required, scopes in `scope` separated by comma");
    expect(md).toContain("connection_config.instance_url: from the token answer's `instance_url`");
    expect(md).toContain("Account identity: GET `/me` → `id` (https://docs.acme.example/me)");
    expect(md).toContain("| `read` | not classified | Read \\| all |");
    expect(md).toContain("| `admin` | restricted | All |");
  });
});
