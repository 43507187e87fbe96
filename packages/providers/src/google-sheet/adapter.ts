import type { ProviderAdapter } from "../adapter.ts";
import { defineProvider } from "../definition/provider-definition.ts";
import { googleConsentGuidance } from "../google/consent-guidance.ts";
import { GOOGLE_BASIC_SCOPES, GOOGLE_OAUTH } from "../google/google-oauth.ts";
import { GOOGLE_IDENTITY, GOOGLE_USER_ID } from "../google/openid-identity.ts";

const AUTH = "https://www.googleapis.com/auth";

/**
 * Google Sheets (Nango's `google-sheet`): the Sheets API host as base URL, so proxy paths are
 * `/v4/spreadsheets/...`. Scope classes (non-sensitive is "basic" here) from
 * https://developers.google.com/workspace/sheets/api/scopes.
 */
export const googleSheet: ProviderAdapter = {
  ...defineProvider({
    name: "google-sheet",
    displayName: "Google Sheets",
    authMode: "OAUTH2",
    docsUrl: "https://developers.google.com/workspace/sheets/api/scopes",
    baseUrl: "https://sheets.googleapis.com",
    ...GOOGLE_OAUTH,
    scopes: [
      ...GOOGLE_BASIC_SCOPES,
      {
        name: `${AUTH}/drive.file`,
        description: "See, edit, create and delete only the Drive files (spreadsheets) used with this app.",
        sensitivity: "basic",
      },
      {
        name: `${AUTH}/spreadsheets.readonly`,
        description: "See all the user's spreadsheets.",
        sensitivity: "sensitive",
      },
      {
        name: `${AUTH}/spreadsheets`,
        description: "See, edit, create and delete all the user's spreadsheets.",
        sensitivity: "sensitive",
      },
      { name: `${AUTH}/drive.readonly`, description: "See and download all Drive files.", sensitivity: "restricted" },
      {
        name: `${AUTH}/drive`,
        description: "See, edit, create and delete all Drive files.",
        sensitivity: "restricted",
      },
    ],
    defaultScopes: ["openid", "email", `${AUTH}/spreadsheets.readonly`],
    connectionConfig: GOOGLE_USER_ID,
    identity: GOOGLE_IDENTITY,
    allowedOverrideHosts: ["sheets.googleapis.com"],
  }),
  consentGuidance: (scopes) => googleConsentGuidance(googleSheet, scopes),
  proxyPathExample: "v4/spreadsheets/SPREADSHEET_ID",
};
