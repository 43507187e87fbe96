import { MongoClient } from "mongodb";
import type { ReadinessCheck } from "./readiness.ts";

/** A MongoDB store's readiness check, and the client it keeps for it. */
export interface MongoCheck extends ReadinessCheck {
  close(): Promise<void>;
}

/**
 * The MongoDB store answers a ping. One client of its own, made on the first check (the services'
 * stores keep theirs); the reason never names the URL, which may hold a password.
 */
export function mongoCheck(name: string, url: string, dbName: string): MongoCheck {
  let client: MongoClient | undefined;
  return {
    name,
    async check() {
      client ??= new MongoClient(url, { serverSelectionTimeoutMS: 2000, connectTimeoutMS: 2000 });
      try {
        await client.db(dbName).command({ ping: 1 });
      } catch {
        throw new Error("MongoDB does not answer");
      }
    },
    async close() {
      await client?.close();
    },
  };
}
