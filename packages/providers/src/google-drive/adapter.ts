import type { ProviderAdapter } from "../adapter.ts";
import { defineProvider } from "../definition/provider-definition.ts";
import { googleConsentGuidance } from "../google/consent-guidance.ts";
import { GOOGLE_BASIC_SCOPES, GOOGLE_OAUTH } from "../google/google-oauth.ts";
import { GOOGLE_IDENTITY, GOOGLE_USER_ID } from "../google/openid-identity.ts";

const DRIVE = "https://www.googleapis.com/auth";

/**
 * Google Drive (Nango's `google-drive`, an alias of its `google` entry: the same base URL, so proxy paths
 * are the upstream's verbatim, `/drive/v3/files`). Scope classes (non-sensitive is "basic" here) from
 * https://developers.google.com/workspace/drive/api/guides/api-specific-auth.
 */
export const googleDrive: ProviderAdapter = {
  ...defineProvider({
    name: "google-drive",
    displayName: "Google Drive",
    authMode: "OAUTH2",
    docsUrl: "https://developers.google.com/workspace/drive/api/guides/api-specific-auth",
    baseUrl: "https://www.googleapis.com",
    ...GOOGLE_OAUTH,
    scopes: [
      ...GOOGLE_BASIC_SCOPES,
      {
        name: `${DRIVE}/drive.file`,
        description: "See, edit, create and delete only the Drive files used with this app.",
        sensitivity: "basic",
      },
      {
        name: `${DRIVE}/drive.appdata`,
        description: "See, create and delete the app's own configuration data in Drive.",
        sensitivity: "basic",
      },
      {
        name: `${DRIVE}/drive.install`,
        description: "Connect the app to Drive (open files with it from Drive's UI).",
        sensitivity: "basic",
      },
      { name: `${DRIVE}/drive.apps.readonly`, description: "View the user's Drive apps.", sensitivity: "sensitive" },
      {
        name: `${DRIVE}/drive`,
        description: "See, edit, create and delete all Drive files.",
        sensitivity: "restricted",
      },
      {
        name: `${DRIVE}/drive.readonly`,
        description: "See and download all Drive files.",
        sensitivity: "restricted",
      },
      {
        name: `${DRIVE}/drive.metadata`,
        description: "View and manage the metadata of Drive files.",
        sensitivity: "restricted",
      },
      {
        name: `${DRIVE}/drive.metadata.readonly`,
        description: "See information about Drive files.",
        sensitivity: "restricted",
      },
      {
        name: `${DRIVE}/drive.activity.readonly`,
        description: "View the activity record of Drive files.",
        sensitivity: "restricted",
      },
      {
        name: `${DRIVE}/drive.scripts`,
        description: "Modify the behaviour of Google Apps Scripts.",
        sensitivity: "restricted",
      },
    ],
    // openid: the userinfo request below; drive.file: the recommended, non-sensitive per-file access.
    defaultScopes: ["openid", "email", `${DRIVE}/drive.file`],
    connectionConfig: GOOGLE_USER_ID,
    identity: GOOGLE_IDENTITY,
    allowedOverrideHosts: ["www.googleapis.com"],
  }),
  consentGuidance: (scopes) => googleConsentGuidance(googleDrive, scopes),
  proxyPathExample: "drive/v3/files",
};
