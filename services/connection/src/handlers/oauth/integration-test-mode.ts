import { create } from "@bufbuild/protobuf";
import { type TestMode, TestModeSchema } from "@junction/contracts/connection/v1/connection_service_pb";
import type { ConnectionServiceContext } from "../../context.ts";
import type { EnvironmentRecord, IntegrationRecord } from "../../store/records.ts";
import { integrationOrRefuse } from "../integration-or-refuse.ts";

/** The environment and the named integration the test-mode and consent RPCs read. */
export async function loadIntegration(
  ctx: ConnectionServiceContext,
  key: string,
): Promise<{ env: EnvironmentRecord; rec: IntegrationRecord }> {
  const env = await ctx.environment();
  return { env, rec: await integrationOrRefuse(ctx, env.id, key) };
}

/** An integration's test mode: whether it is on, and whether the provider has test credentials at all. */
export function testModeOf(ctx: ConnectionServiceContext, rec: IntegrationRecord): TestMode {
  const test = ctx.oauth.testCredentials[rec.provider];
  return create(TestModeSchema, {
    enabled: rec.useTestCredentials,
    available: test !== undefined,
    clientId: test?.clientId ?? "",
    sandbox: test?.sandbox === true,
  });
}
