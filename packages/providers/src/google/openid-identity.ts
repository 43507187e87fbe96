import type { ProviderDefinitionInput } from "../definition/provider-definition.ts";

/**
 * The account a Google connection belongs to: the OpenID Connect userinfo endpoint's `sub`, which the
 * `openid` scope allows (https://developers.google.com/identity/openid-connect/openid-connect#obtainuserinfo;
 * the endpoint is the discovery document's `userinfo_endpoint`). Stored as connection_config.userId.
 */
/** The same request as the definition's account identity request. */
export const GOOGLE_IDENTITY: NonNullable<ProviderDefinitionInput["identity"]> = {
  url: "https://openidconnect.googleapis.com/v1/userinfo",
  idPath: "sub",
  docsUrl: "https://developers.google.com/identity/openid-connect/openid-connect#obtainuserinfo",
};

export const GOOGLE_USER_ID: NonNullable<ProviderDefinitionInput["connectionConfig"]> = [
  { key: "userId", from: "request", url: "https://openidconnect.googleapis.com/v1/userinfo", path: "sub" },
];
