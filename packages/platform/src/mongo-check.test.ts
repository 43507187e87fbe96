import { describe, expect, test } from "bun:test";
import { checkReadiness } from "./readiness.ts";
import { mongoCheck } from "./mongo-check.ts";
import { freePort } from "../testing/free-port.ts";
import { mongoForTests } from "../testing/mongo-for-tests.ts";

describe("mongoCheck", () => {
  test("a MongoDB that does not answer is missing, and the reason does not name its URL", async () => {
    const url = `mongodb://reader:s3cret@127.0.0.1:${await freePort()}/?directConnection=true`;
    const check = mongoCheck("store", url, "junction");
    try {
      const report = await checkReadiness([check], 5000);
      expect(report.ready).toBe(false);
      expect(report.missing).toEqual([{ name: "store", reason: "MongoDB does not answer" }]);
    } finally {
      await check.close();
    }
  });
});

const mongo = mongoForTests("mongoCheck");
if (mongo) {
  describe("mongoCheck against MongoDB", () => {
    test("a MongoDB that answers a ping is ready", async () => {
      const check = mongoCheck("store", mongo.url(), mongo.freshDatabaseName("ready"));
      try {
        expect(await checkReadiness([check])).toMatchObject({ ready: true, missing: [] });
      } finally {
        await check.close();
      }
    });
  });
}
