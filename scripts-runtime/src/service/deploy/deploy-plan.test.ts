import { describe, expect, test } from "bun:test";
import { create } from "@bufbuild/protobuf";
import { DeployBundlesRequestSchema, ScriptKind } from "@junction/contracts/scripts/v1/scripts_service_pb";
import type { ScriptDeclaration } from "../../declaration/script-declaration.ts";
import type { ScriptVersionRecord } from "../../store/records.ts";
import { planDeploy } from "./deploy-plan.ts";

const sync = (models: string[]): ScriptDeclaration => ({
  kind: "sync",
  frequency: "1h",
  frequencyMs: 3_600_000,
  autoStart: true,
  webhookSubscriptions: [],
  hasOnWebhook: false,
  endpoints: [],
  description: null,
  version: null,
  models: Object.fromEntries(models.map((m) => [m, { type: "object" }])),
});
const stored = (providerConfigKey: string, name: string, declaration: ScriptDeclaration) =>
  ({ providerConfigKey, name, declaration }) as ScriptVersionRecord;
const EXISTING = [
  stored("github", "issues", sync(["Issue"])),
  stored("github", "labels", sync(["Label"])),
  stored("slack", "messages", sync(["Message"])),
];
const request = (mode: string) =>
  create(DeployBundlesRequestSchema, {
    mode,
    bundles: [{ providerConfigKey: "github", name: "issues", kind: ScriptKind.SYNC, models: ["Issue"] }],
  });
const connections = (key: string) => (key === "github" ? 3 : 5);

describe("planDeploy", () => {
  test("all: every other script of the environment goes, with its connections and models", () => {
    const plan = planDeploy(request("all"), EXISTING, connections);
    expect(plan.updated.map((p) => p.name)).toEqual(["issues"]);
    expect(plan.removed.map((p) => [p.providerConfigKey, p.name, p.connections])).toEqual([
      ["github", "labels", 3],
      ["slack", "messages", 5],
    ]);
    expect(plan.removedModels).toEqual(["Label", "Message"]);
  });

  test("integration: only the deployed integrations' other scripts go; single: nothing goes", () => {
    const integration = planDeploy(request("integration"), EXISTING, connections);
    expect(integration.removed.map((p) => p.name)).toEqual(["labels"]);
    expect(integration.removedModels).toEqual(["Label"]);
    const single = planDeploy(request("single"), EXISTING, connections);
    expect(single.removed).toEqual([]);
    expect(single.removedModels).toEqual([]);
  });

  test("a sync deployed without one of its models loses that model", () => {
    const req = request("single");
    (req.bundles[0] as { models: string[] }).models = ["Ticket"];
    const plan = planDeploy(req, EXISTING, connections);
    expect(plan.removedModels).toEqual(["Issue"]);
    expect(plan.added).toEqual([]);
  });
});
