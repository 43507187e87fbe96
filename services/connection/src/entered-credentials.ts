import type { ProviderAdapter } from "@junction/providers";
import type { StoredCredentials } from "./credentials.ts";
import { errors } from "./errors.ts";

/** An API key or a user name and password, as imported (POST /connections) or typed on the connect page. */
export interface EnteredCredentials {
  type: string;
  apiKey: string;
  username: string;
  password: string;
}

/**
 * Checks entered credentials against the provider's auth mode and builds what is stored (encrypted like
 * tokens). Refuses, naming the provider, the field and what to do: another type than the provider's mode,
 * an empty API key (or one of spaces), an empty user name. `path` prefixes the field names ("credentials.").
 */
export function enteredCredentials(
  template: ProviderAdapter,
  entered: EnteredCredentials,
  path: string,
): StoredCredentials {
  const who = `provider "${template.name}"`;
  if (entered.type !== template.authMode) {
    throw errors.invalidField(
      `${path}type`,
      `${who} authenticates with ${template.authMode}, not ${entered.type || "(none)"}: send credentials of type ${template.authMode}`,
    );
  }
  const where = (key: string) => {
    const field = template.connectFields.find((f) => f.key === key);
    const url = field?.docsUrl || template.docsUrl;
    return url ? ` (where to find it: ${url})` : "";
  };
  const base = { accessToken: "", refreshToken: "", expiresAt: null, raw: {} };
  if (template.authMode === "API_KEY") {
    const apiKey = entered.apiKey.trim();
    if (apiKey === "")
      throw errors.invalidField(`${path}apiKey`, `${who}: the API key is empty; paste the key${where("apiKey")}`);
    return { ...base, type: "API_KEY", apiKey };
  }
  if (template.authMode === "BASIC") {
    const username = entered.username.trim();
    if (username === "")
      throw errors.invalidField(`${path}username`, `${who}: the user name is empty; enter it${where("username")}`);
    return { ...base, type: "BASIC", username, password: entered.password };
  }
  throw errors.invalidField(
    `${path}type`,
    `${who} authenticates with ${template.authMode}: connect through its authorization flow`,
  );
}
