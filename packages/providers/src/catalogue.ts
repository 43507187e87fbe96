import type { ProviderDefinitionInput } from "./definition/provider-definition.ts";
import { airtable } from "./airtable/definition.ts";
import { asana } from "./asana/definition.ts";
import { bitbucket } from "./bitbucket/definition.ts";
import { confluence } from "./confluence/definition.ts";
import { freshdesk } from "./freshdesk/definition.ts";
import { github } from "./github/definition.ts";
import { gitlab } from "./gitlab/definition.ts";
import { hubspot } from "./hubspot/definition.ts";
import { intercom } from "./intercom/definition.ts";
import { jira } from "./jira/definition.ts";
import { linear } from "./linear/definition.ts";
import { notion } from "./notion/definition.ts";
import { pipedrive } from "./pipedrive/definition.ts";
import { quickbooks } from "./quickbooks/definition.ts";
import { salesforce } from "./salesforce/definition.ts";
import { shopify } from "./shopify/definition.ts";
import { slack } from "./slack/definition.ts";
import { slackUser } from "./slack-user/definition.ts";
import { stripeApiKey } from "./stripe-api-key/definition.ts";
import { xero } from "./xero/definition.ts";
import { zendesk } from "./zendesk/definition.ts";

/**
 * The providers Junction ships as data alone: one folder each (`<name>/definition.ts`), one import and
 * one line below each, sorted by name. Providers with code (notifications, channels) are adapters,
 * listed in index.ts. docs/providers.md is generated from both (`bun run providers:doc`).
 */
export const CATALOGUE: readonly ProviderDefinitionInput[] = [
  airtable,
  asana,
  bitbucket,
  confluence,
  freshdesk,
  github,
  gitlab,
  hubspot,
  intercom,
  jira,
  linear,
  notion,
  pipedrive,
  quickbooks,
  salesforce,
  shopify,
  slack,
  slackUser,
  stripeApiKey,
  xero,
  zendesk,
];
