import { ConnectError } from "@connectrpc/connect";
import { fromConnectError } from "@junction/platform";

/**
 * Awaits a call to another service, turning its Connect error back into the domain error it carried
 * (stable code, fields), so that this service's error boundary sends it on unchanged.
 */
export async function callService<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (err) {
    throw err instanceof ConnectError ? fromConnectError(err) : err;
  }
}
