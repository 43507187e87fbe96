import type { ClientSession, Collection } from "mongodb";
import type { ConnectionDocument, IntegrationDocument } from "./mongo-documents.ts";
import type { SealedClientSecret, SealedCredentials, SecretRewriteStore } from "./secret-rewrite-store.ts";

/** SecretRewriteStore on MongoDB: each swap is one single-document update filtered on the old value. */
export class MongoSecretRewrite implements SecretRewriteStore {
  constructor(
    private readonly connections: Collection<ConnectionDocument>,
    private readonly integrations: Collection<IntegrationDocument>,
  ) {}

  async scanCredentials(afterId: string, limit: number): Promise<SealedCredentials[]> {
    const docs = await this.connections
      .find({ _id: { $gt: afterId }, credentialsEnc: { $type: "string" } })
      .project<
        Pick<ConnectionDocument, "_id" | "environmentId" | "providerConfigKey" | "connectionId" | "credentialsEnc">
      >({ _id: 1, environmentId: 1, providerConfigKey: 1, connectionId: 1, credentialsEnc: 1 })
      .sort({ _id: 1 })
      .limit(limit)
      .toArray();
    return docs.map((d) => ({
      id: d._id,
      environmentId: d.environmentId,
      providerConfigKey: d.providerConfigKey,
      connectionId: d.connectionId,
      credentialsEnc: d.credentialsEnc as string,
    }));
  }

  /** Within the caller's session: rewrites the credentials of an integration's connections. */
  async resealIntegration(
    environmentId: string,
    uniqueKey: string,
    reseal: (moved: SealedCredentials) => string,
    session: ClientSession | undefined,
  ): Promise<void> {
    const docs = await this.connections
      .find({ environmentId, providerConfigKey: uniqueKey, credentialsEnc: { $type: "string" } }, { session })
      .toArray();
    for (const d of docs) {
      const moved = { ...d, id: d._id, credentialsEnc: d.credentialsEnc as string };
      const next = reseal(moved);
      if (next === moved.credentialsEnc) continue;
      await this.connections.updateOne(
        { _id: d._id, credentialsEnc: moved.credentialsEnc },
        { $set: { credentialsEnc: next } },
        { session },
      );
    }
  }

  async swapCredentials(id: string, expected: string, next: string): Promise<boolean> {
    const res = await this.connections.updateOne(
      { _id: id, credentialsEnc: expected },
      { $set: { credentialsEnc: next } },
    );
    return res.modifiedCount === 1;
  }

  async scanClientSecrets(): Promise<SealedClientSecret[]> {
    const docs = await this.integrations
      .find({ clientSecretEnc: { $type: "string" } })
      .sort({ environmentId: 1, uniqueKey: 1 })
      .toArray();
    return docs.map((d) => ({
      environmentId: d.environmentId,
      uniqueKey: d.uniqueKey,
      clientSecretEnc: d.clientSecretEnc as string,
    }));
  }

  async swapClientSecret(environmentId: string, uniqueKey: string, expected: string, next: string): Promise<boolean> {
    const res = await this.integrations.updateOne(
      { environmentId, uniqueKey, clientSecretEnc: expected },
      { $set: { clientSecretEnc: next } },
    );
    return res.modifiedCount === 1;
  }
}
