// From the repository root: JUNCTION_SECRET_KEY=jct_sk_… bun packages/client/examples/tag-connections.ts cal
import { createJunctionClient, junctionError } from "@junction/client";
import { MetadataWriteMode } from "@junction/contracts/connection/v1/connection_service_pb";

const integration = process.argv[2] ?? "cal";
const junction = createJunctionClient(
  process.env.JUNCTION_URL ?? "http://127.0.0.1:3003",
  process.env.JUNCTION_SECRET_KEY ?? "",
);

try {
  const { connections, total } = await junction.connection.listConnections({
    providerConfigKey: integration,
    limit: 50,
  });
  console.log(`${total} connection(s) of ${integration}`);
  if (connections.length > 0) {
    await junction.connection.writeMetadata({
      providerConfigKey: integration,
      connectionIds: connections.map((c) => c.connectionId),
      metadata: { team: "blue" },
      mode: MetadataWriteMode.UPDATE, // merge; SET replaces
    });
    console.log(`tagged ${connections.length} with team=blue`);
  }
  // A well-formed message id that is not there: Junction's error, read with junctionError.
  await junction.webhook.getMessage({ id: "msg_00000000000000000000000000" });
} catch (err) {
  console.log(junctionError(err));
}
