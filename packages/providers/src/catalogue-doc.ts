import type { ProviderAdapter } from "./adapter.ts";

/** What the connect page asks for a provider: its connect fields, and the credentials its mode needs. */
function asks(a: ProviderAdapter): string {
  const labels = a.connectFields.map((f) => f.label);
  const has = (key: string) => a.connectFields.some((f) => f.key === key);
  if (a.authMode === "API_KEY" && !has("apiKey")) labels.push("API key");
  if (a.authMode === "BASIC" && !has("username")) labels.push("User name");
  if (a.authMode === "BASIC" && !has("password")) labels.push("Password");
  if (a.authMode === "OAUTH2") labels.push("consent at the provider");
  return labels.join("; ");
}

const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");
const code = (text: string) => (text === "" ? "—" : `\`${text}\``);

/** One provider's section: URLs, OAuth variation, scopes, connection config, identity request, docs. */
function section(a: ProviderAdapter): string[] {
  const lines = [
    `## ${a.displayName} (\`${a.name}\`)`,
    "",
    `Auth mode: ${a.authMode}. Documentation: ${a.docsUrl || "—"}`,
    "",
  ];
  lines.push(`- API base URL: ${code(a.baseUrl)}`);
  if (a.authorizationUrl) lines.push(`- Authorization URL: ${code(a.authorizationUrl)}`);
  if (a.tokenUrl) lines.push(`- Token URL: ${code(a.tokenUrl)}`);
  if (a.refreshUrl) lines.push(`- Refresh URL: ${code(a.refreshUrl)}`);
  if (a.authMode === "OAUTH2" || a.authMode === "OAUTH2_CC") {
    const params = Object.entries(a.authorizationParams).map(([k, v]) => `${k}=${v}`);
    lines.push(
      `- OAuth: client authentication ${a.clientAuthentication}, PKCE ${a.pkce}, scopes in \`${a.scopeParameter}\` separated by ${a.scopeSeparator}` +
        (params.length > 0 ? `, extra parameters ${code(params.join("&"))}` : "") +
        (a.tokenResponse.root ? `, tokens under \`${a.tokenResponse.root}\`` : "") +
        `, token types ${a.tokenResponse.tokenTypes.join(", ")}`,
    );
  }
  for (const [name, value] of Object.entries(a.proxyHeaders))
    lines.push(`- Every proxied call carries \`${name}: ${value}\``);
  if (a.accessToken) lines.push(`- Access token sent in ${a.accessToken.in} \`${a.accessToken.name}\``);
  if (a.apiKey)
    lines.push(
      `- API key sent in ${a.apiKey.in} \`${a.apiKey.name}\`${a.apiKey.prefix ? ` after "${a.apiKey.prefix}"` : ""}`,
    );
  lines.push(`- The connect page asks: ${asks(a)}`);
  for (const f of a.connectionConfig) {
    const from =
      f.from === "token_response"
        ? `the token answer's \`${f.path}\``
        : f.from === "callback"
          ? `the callback's \`${f.param}\``
          : `GET ${code(f.url)} → \`${f.path}\``;
    lines.push(`- connection_config.${f.key}: from ${from}`);
  }
  if (a.identity) {
    const how = a.identity.body
      ? `POST ${code(a.identity.url)} with ${code(a.identity.body)}`
      : `GET ${code(a.identity.url)}`;
    lines.push(`- Account identity: ${how} → \`${a.identity.idPath}\` (${a.identity.docsUrl})`);
  }
  if (a.defaultScopes.length > 0) lines.push(`- Default scopes: ${a.defaultScopes.map(code).join(", ")}`);
  if (a.scopes.length > 0) {
    lines.push("", "| Scope | Sensitivity | What it grants |", "|---|---|---|");
    for (const s of a.scopes)
      lines.push(`| ${code(s.name)} | ${s.sensitivity ?? "not classified"} | ${cell(s.description)} |`);
  }
  lines.push("");
  return lines;
}

/** docs/providers.md: every provider in the catalogue, generated (`bun run providers:doc`). */
export function catalogueMarkdown(adapters: readonly ProviderAdapter[]): string {
  const sorted = [...adapters].sort((x, y) => x.name.localeCompare(y.name));
  const lines = [
    "# Providers",
    "",
    "<!-- Generated from packages/providers (bun run providers:doc); do not edit by hand. -->",
    "",
    `${sorted.length} providers ship with Junction. An operator adds or overrides one with a definition file in`,
    "`{data dir}/providers/` or `POST /providers` (the same schema: packages/providers/src/definition/provider-definition.ts).",
    "`POST /providers` takes new names only (a built-in is overridden in the data dir); every URL of a definition is",
    "checked by the [address policy](security.md#the-outbound-address-policy).",
    "",
    "| Provider | Name | Auth mode | The connect page asks | Docs |",
    "|---|---|---|---|---|",
    ...sorted.map(
      (a) => `| ${cell(a.displayName)} | \`${a.name}\` | ${a.authMode} | ${cell(asks(a))} | ${a.docsUrl || "—"} |`,
    ),
    "",
    ...sorted.flatMap(section),
  ];
  return `${lines.join("\n").trimEnd()}\n`;
}
