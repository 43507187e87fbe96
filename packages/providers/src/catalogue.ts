import type { ProviderDefinitionInput } from "./definition/provider-definition.ts";
import { airtable } from "./airtable/definition.ts";
import { asana } from "./asana/definition.ts";
import { bitbucket } from "./bitbucket/definition.ts";
import { box } from "./box/definition.ts";
import { calendly } from "./calendly/definition.ts";
import { clickup } from "./clickup/definition.ts";
import { confluence } from "./confluence/definition.ts";
import { discord } from "./discord/definition.ts";
import { dropbox } from "./dropbox/definition.ts";
import { figma } from "./figma/definition.ts";
import { freshdesk } from "./freshdesk/definition.ts";
import { github } from "./github/definition.ts";
import { gitlab } from "./gitlab/definition.ts";
import { hubspot } from "./hubspot/definition.ts";
import { intercom } from "./intercom/definition.ts";
import { jira } from "./jira/definition.ts";
import { linear } from "./linear/definition.ts";
import { linkedin } from "./linkedin/definition.ts";
import { mailchimp } from "./mailchimp/definition.ts";
import { monday } from "./monday/definition.ts";
import { notion } from "./notion/definition.ts";
import { openai } from "./openai/definition.ts";
import { pipedrive } from "./pipedrive/definition.ts";
import { quickbooks } from "./quickbooks/definition.ts";
import { salesforce } from "./salesforce/definition.ts";
import { sendgrid } from "./sendgrid/definition.ts";
import { shopify } from "./shopify/definition.ts";
import { slack } from "./slack/definition.ts";
import { slackUser } from "./slack-user/definition.ts";
import { stripeApiKey } from "./stripe-api-key/definition.ts";
import { trello } from "./trello/definition.ts";
import { twilio } from "./twilio/definition.ts";
import { twitterV2 } from "./twitter-v2/definition.ts";
import { typeform } from "./typeform/definition.ts";
import { xero } from "./xero/definition.ts";
import { zendesk } from "./zendesk/definition.ts";
import { zoom } from "./zoom/definition.ts";

/**
 * The providers Junction ships as data alone: one folder each (`<name>/definition.ts`), one import and
 * one line below each, sorted by name. Providers with code (notifications, channels) or adapter-level facts
 * (consent guidance, integration settings) are adapters, listed in index.ts. docs/providers.md is generated from both (`bun run providers:doc`).
 */
export const CATALOGUE: readonly ProviderDefinitionInput[] = [
  airtable,
  asana,
  bitbucket,
  box,
  calendly,
  clickup,
  confluence,
  discord,
  dropbox,
  figma,
  freshdesk,
  github,
  gitlab,
  hubspot,
  intercom,
  jira,
  linear,
  linkedin,
  mailchimp,
  monday,
  notion,
  openai,
  pipedrive,
  quickbooks,
  salesforce,
  sendgrid,
  shopify,
  slack,
  slackUser,
  stripeApiKey,
  trello,
  twilio,
  twitterV2,
  typeform,
  xero,
  zendesk,
  zoom,
];
