import type { GetTestModeRequest } from "@junction/contracts/connection/v1/connection_service_pb";
import type { ConnectionServiceContext } from "../../context.ts";
import { loadIntegration, testModeOf } from "./integration-test-mode.ts";

/** Whether an integration connects with the provider's test credentials. */
export async function getTestMode(ctx: ConnectionServiceContext, req: GetTestModeRequest) {
  const { rec } = await loadIntegration(ctx, req.uniqueKey);
  return { testMode: testModeOf(ctx, rec) };
}
