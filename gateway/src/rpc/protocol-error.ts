import { Code, ConnectError } from "@connectrpc/connect";
import type { UniversalServerResponse } from "@connectrpc/connect/protocol";
import { codeFromHttpStatus, errorFromJsonBytes } from "@connectrpc/connect/protocol-connect";
import { fromConnectError, JunctionError } from "@junction/platform";

/**
 * A Connect error answered by the protocol layer itself (no `junction-error-code`: every error of ours has
 * one), given Junction's code as REST would: a request the layer could not read before the method ran is
 * `invalid_body` (JSON that is not the message, an unknown field, bytes that do not parse), a content
 * type it does not take is `unsupported_media_type`, a compressed body `unsupported_encoding`; an error
 * after the method ran (a deadline) keeps its Connect code.
 */
export async function protocolError(answer: UniversalServerResponse, methodRan: boolean): Promise<JunctionError> {
  const bytes = await bodyBytes(answer.body);
  if (bytes.byteLength === 0 && answer.status === 415) {
    return new JunctionError(
      "unsupported_media_type",
      "The Connect protocol takes Content-Type application/json or application/proto.",
      Code.InvalidArgument,
    );
  }
  const fallback = new ConnectError(`HTTP ${answer.status}`, codeFromHttpStatus(answer.status));
  const error = bytes.byteLength > 0 ? errorFromJsonBytes(bytes, undefined, fallback) : fallback;
  if (methodRan) return fromConnectError(error);
  // Content encodings other than identity are not taken (the body limit is the size parsed).
  if (error.code === Code.Unimplemented) return new JunctionError("unsupported_encoding", error.rawMessage, error.code);
  return new JunctionError("invalid_body", `Invalid request body: ${error.rawMessage}.`, Code.InvalidArgument);
}

async function bodyBytes(body: UniversalServerResponse["body"]): Promise<Uint8Array> {
  if (body === undefined) return new Uint8Array(0);
  if (body instanceof Uint8Array) return body;
  const chunks: Uint8Array[] = [];
  for await (const chunk of body) chunks.push(chunk);
  return Buffer.concat(chunks);
}
