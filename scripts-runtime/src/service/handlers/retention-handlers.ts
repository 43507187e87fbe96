import type { ServiceImpl } from "@connectrpc/connect";
import type { ScriptsService } from "@junction/contracts/scripts/v1/scripts_service_pb";
import type { RetentionRule } from "../../records/record-store.ts";
import type { ScriptsServiceContext } from "../context.ts";
import { errors } from "../errors.ts";
import { callService } from "./call-service.ts";
import { required } from "./record-scope.ts";

type Handlers = Pick<ServiceImpl<typeof ScriptsService>, "getRecordRetention" | "setRecordRetention">;

/** The longest retention term, in days (ten years). */
export const MAX_RETENTION_DAYS = 3650;

/** GetRecordRetention, SetRecordRetention: the operator's retention of an integration's records. */
export function retentionHandlers(ctx: ScriptsServiceContext): Handlers {
  const keyOf = async (providerConfigKey: string) => {
    const key = required(providerConfigKey, "provider_config_key");
    await callService(ctx.clients().connection.getIntegration({ uniqueKey: key }));
    return { environmentId: await ctx.environment(), providerConfigKey: key };
  };
  const days = (value: number, path: string) => {
    if (!Number.isInteger(value) || value < 0 || value > MAX_RETENTION_DAYS) {
      throw errors.invalidField(path, `must be a whole number of days from 0 (keep) to ${MAX_RETENTION_DAYS}`);
    }
    return value;
  };
  return {
    async getRecordRetention(req) {
      const rule = await ctx.records.retention.getRule(await keyOf(req.providerConfigKey));
      return { retention: rule ?? { payloadDays: 0, recordsDays: 0 } };
    },
    async setRecordRetention(req) {
      const rule: RetentionRule = {
        payloadDays: days(req.retention?.payloadDays ?? 0, "payload_days"),
        recordsDays: days(req.retention?.recordsDays ?? 0, "records_days"),
      };
      const key = await keyOf(req.providerConfigKey);
      await ctx.records.retention.setRule(key, rule, ctx.clock.now());
      ctx.logger.info("records retention set", { integration: key.providerConfigKey, ...rule });
      return { retention: rule };
    },
  };
}
