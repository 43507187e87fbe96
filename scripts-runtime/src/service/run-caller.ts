import { create } from "@bufbuild/protobuf";
import {
  type RunCaller as RunCallerMessage,
  RunCallerKind,
  RunCallerSchema,
} from "@junction/contracts/scripts/v1/scripts_service_pb";
import { errors } from "./errors.ts";
import type { RunCaller, RunCallerKind as KindName } from "../store/records.ts";

const KINDS: Record<KindName, RunCallerKind> = {
  secret_key: RunCallerKind.SECRET_KEY,
  mcp_client: RunCallerKind.MCP_CLIENT,
  dashboard: RunCallerKind.DASHBOARD,
};
/** Bounds of what a caller's names may hold (they are shown, never trusted). */
const MAX_NAME = 255;

/** The caller a RunAction request names, checked; undefined when it names none. */
export function callerOfRequest(c: RunCallerMessage | undefined): RunCaller | undefined {
  if (!c || c.kind === RunCallerKind.UNSPECIFIED) return undefined;
  const kind = (Object.keys(KINDS) as KindName[]).find((k) => KINDS[k] === c.kind);
  if (!kind) throw errors.invalidField("caller.kind", "is not a known caller kind");
  for (const [path, value] of [
    ["caller.name", c.name],
    ["caller.key_id", c.keyId],
    ["caller.client_id", c.clientId],
    ["caller.end_user_id", c.endUserId],
  ] as const) {
    if (value.length > MAX_NAME) throw errors.invalidField(path, `must be at most ${MAX_NAME} characters`);
  }
  return {
    kind,
    name: c.name,
    ...(c.keyId ? { keyId: c.keyId } : {}),
    ...(c.clientId ? { clientId: c.clientId } : {}),
    ...(c.endUserId ? { endUserId: c.endUserId } : {}),
  };
}

/** A recorded caller as the contract's message. */
export function toRunCaller(c: RunCaller): RunCallerMessage {
  return create(RunCallerSchema, {
    kind: KINDS[c.kind],
    name: c.name,
    keyId: c.keyId ?? "",
    clientId: c.clientId ?? "",
    endUserId: c.endUserId ?? "",
  });
}

/** How the operations log and the service's own log name a caller: `secret key "ci-bot"`. */
export function describeCaller(c: RunCaller): string {
  if (c.kind === "dashboard") return `the dashboard (secret key "${c.name}")`;
  if (c.kind === "secret_key") return `secret key "${c.name}"`;
  if (c.endUserId) return `MCP client "${c.name}" for end user "${c.endUserId}"`;
  return `an MCP client with secret key "${c.name}"`;
}
