import { Code } from "@connectrpc/connect";
import { type FieldError, JunctionError } from "./errors.ts";

/** The one stable code of every refusal by the outbound address policy, wherever a URL enters. */
export const ADDRESS_REFUSED_CODE = "private_address_not_allowed";

/** What was refused: when (a value being saved, a request about to be sent) and why. */
export interface AddressRefusal {
  /** The field of the request or definition the URL came from ("baseUrl", "upstream_overrides.token_url"). */
  field: string;
  /** The host as written, or the URL's scheme for a scheme refusal. */
  host: string;
  /** Why, in words ("is a private or loopback address", "uses file:; only http and https are fetched"). */
  reason: string;
  when: "saved" | "fetched";
  /** Whether the operator's allow list could change the answer (not for a scheme); default true. */
  allowable?: boolean;
}

/**
 * The one refusal of the outbound address policy (packages/platform/src/outbound-address-policy.ts):
 * a 400 `private_address_not_allowed` naming the field. Thrown when a URL is saved (nothing is
 * written) and when a request is about to be sent (nothing is sent). Callers that answer someone
 * other than the operator (a push's JWKS fetch) say less: see `publicMessage`.
 */
export class AddressRefusedError extends JunctionError {
  readonly refusal: AddressRefusal;

  /** `errors`: the field errors to answer when a caller refuses several values at once (default: this one). */
  constructor(refusal: AddressRefusal, errors?: FieldError[]) {
    const { field, host, reason, when } = refusal;
    const allowable = refusal.allowable !== false;
    super(
      ADDRESS_REFUSED_CODE,
      when === "saved"
        ? `${field} points at ${host}, which ${reason}. Nothing was saved.${allowable ? " Only the operator can allow a private host (JUNCTION_ALLOWED_PRIVATE_HOSTS)." : ""}`
        : `refused by the outbound address policy: ${host} ${reason}${allowable ? " (the operator may allow a private host with JUNCTION_ALLOWED_PRIVATE_HOSTS)" : ""}`,
      Code.InvalidArgument,
      errors ?? [{ path: field, message: `must not point at ${host}, which ${reason}, unless the operator allows it` }],
    );
    this.name = "AddressRefusedError";
    this.refusal = refusal;
  }
}
