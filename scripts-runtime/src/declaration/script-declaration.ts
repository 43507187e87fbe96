/** What a script is, read from its default export when it is uploaded (spec: Customer-side scripts). */
export type ScriptDeclaration = SyncDeclaration | OnEventDeclaration | ActionDeclaration;

export type ScriptKind = ScriptDeclaration["kind"];

/** The lifecycle events a script can hook (spec: Customer-side scripts, lifecycle scripts). */
export const LIFECYCLE_EVENTS = ["post-connection-creation", "pre-connection-deletion"] as const;
export type LifecycleEvent = (typeof LIFECYCLE_EVENTS)[number];

/** An HTTP endpoint a sync exposes, e.g. `GET /acme-calendar/watch-renewal`. */
export interface ScriptEndpoint {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
}

/** A sync: `exec` runs every `frequencyMs` per connection; `onWebhook` gets matched notifications. */
export interface SyncDeclaration {
  kind: "sync";
  /** The frequency as written, e.g. "every day". */
  frequency: string;
  frequencyMs: number;
  /** Whether the schedule starts by itself for each new connection (Nango's `autoStart`, default true). */
  autoStart: boolean;
  /** Notification subscriptions routed to `onWebhook` instead of (or as well as) being forwarded. */
  webhookSubscriptions: string[];
  hasOnWebhook: boolean;
  endpoints: ScriptEndpoint[];
  description: string | null;
  version: string | null;
  /**
   * The models it writes and their JSON Schemas (Nango's `models_json_schema`, one per model; a
   * zero-yaml zod model as Nango's CLI converts it): records are checked against them. Absent (versions
   * stored before models existed) or empty: any model, unchecked.
   */
  models?: Record<string, JsonSchema>;
  /** Nango's `syncType`: "full" (the default) or "incremental". */
  syncType?: "full" | "incremental";
  /** Nango's `trackDeletes`: after a successful run, records of a model it wrote but did not save this run are deleted. */
  trackDeletes?: boolean;
  /** The scopes the sync needs, as declared (informative). */
  scopes?: string[];
}

/** A lifecycle script: `exec` runs once when `event` happens to a connection. */
export interface OnEventDeclaration {
  kind: "on-event";
  event: LifecycleEvent;
  description: string | null;
  version: string | null;
}

/** A JSON Schema object, as declared (what zod's `z.toJSONSchema` gives). */
export type JsonSchema = Record<string, unknown>;

/** An action: `exec(nango, input)` runs when called (POST /action/trigger) and its result is answered. */
export interface ActionDeclaration {
  kind: "action";
  /** The schema the input is checked against before the run, when declared. */
  inputSchema: JsonSchema | null;
  /** The schema of the output, when declared (recorded, not enforced). */
  outputSchema: JsonSchema | null;
  endpoints: ScriptEndpoint[];
  description: string | null;
  version: string | null;
  /** The scopes the action needs, as declared (informative). */
  scopes?: string[];
}

/** The entry points a run can call. */
export type ScriptEntry = "exec" | "onWebhook";

/** Whether `entry` exists on a script with this declaration. */
export function hasEntry(declaration: ScriptDeclaration, entry: ScriptEntry): boolean {
  return entry === "exec" || (declaration.kind === "sync" && declaration.hasOnWebhook);
}
