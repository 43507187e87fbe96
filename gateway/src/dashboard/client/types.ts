/** Shapes of the REST API's answers, as the dashboard reads them (see gateway/src/routes). */

export interface ScopeInfo {
  name: string;
  description: string | null;
  sensitivity: string;
}

export interface IntegrationSettingInfo {
  key: string;
  label: string;
  description: string;
  default_value: string;
  docs_url: string | null;
}

export interface Provider {
  name: string;
  display_name: string;
  /** "OAUTH2", "OAUTH2_CC", "API_KEY" or "BASIC". */
  auth_mode: string;
  /** The provider's documentation; "" when none. */
  docs: string;
  /** What the connect page asks the user for. */
  connect_fields: { key: string; label: string; docs_url: string; secret: boolean }[];
  default_scopes: string[];
  scopes: ScopeInfo[];
  /** What `provider_settings` may hold (absent from Junctions older than provider settings). */
  integration_settings?: IntegrationSettingInfo[];
  /** Its notification channels: what one is called, and whether Junction can manage them; null when none. */
  channels?: { kind: string; manageable: boolean } | null;
}

export interface Integration {
  unique_key: string;
  display_name: string;
  provider: string;
  forward_webhooks: boolean;
  provider_settings?: Record<string, string>;
  managed_channels?: boolean;
  strict_channels?: boolean;
  created_at: string | null;
  webhook_url?: string;
  credentials?: { client_id: string | null; client_secret_set: boolean; scopes: string | null };
}

export interface TestMode {
  enabled: boolean;
  available: boolean;
  client_id: string | null;
  sandbox: boolean;
}

export interface Consent {
  scopes: ScopeInfo[];
  highest_sensitivity: string;
  verification_required: boolean;
  security_assessment_required: boolean;
  testing_mode_refresh_token_days: number;
  notes: string[];
}

export interface ConnectionError {
  type: string;
  message: string;
  created_at: string | null;
}

export interface ConnectionListItem {
  id: string;
  connection_id: string;
  provider: string;
  provider_config_key: string;
  created: string | null;
  errors: ConnectionError[];
  end_user: { id?: string; email?: string; display_name?: string } | null;
  /** Nango's tags (absent from Junctions older than tags). */
  tags?: Record<string, string>;
  /** Where its webhooks go instead of the endpoints; null when none (absent from older Junctions). */
  webhook_url_override?: string | null;
}

export interface Connection extends Omit<ConnectionListItem, "created"> {
  created_at: string | null;
  updated_at: string | null;
  metadata: Record<string, unknown>;
  connection_config: Record<string, unknown>;
  credentials: { type: string; expires_at: string | null };
}

export interface Page {
  page: number;
  limit: number;
  total: number;
  has_more: boolean;
}

export interface Attempt {
  id: string;
  number: number;
  url: string;
  status_code: number | null;
  latency_ms: number;
  response_snippet: string;
  error: string | null;
  at: string | null;
}

export interface Message {
  id: string;
  type: string;
  provider_config_key: string | null;
  connection_id: string | null;
  status: string;
  attempt_count: number;
  next_attempt_at: string | null;
  last_error: string | null;
  created_at: string | null;
  body: string;
  attempts?: Attempt[];
}

export interface WatchUriHint {
  resource_uri: string | null;
  near_matches: { connection_id: string; listed_uri: string }[];
  scanned: number;
  complete: boolean;
}

export interface Channel {
  id: string;
  /** What its provider calls it ("watch channel", "subscription"); "" when unknown. */
  kind?: string;
  resource_id: string;
  provider_config_key: string;
  connection_id: string;
  resource_uri: string;
  expiration: string | null;
  state: string;
  created_at: string | null;
  last_message_number: number;
}

export interface Session {
  environment_id: string;
  base_url: string;
  redirect_uri: string;
}
