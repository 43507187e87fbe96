import { type Db, MongoClient } from "mongodb";

/** Connects a client, hands the database to `build`, and closes the client if `build` fails. */
export async function connectMongo<T>(
  url: string,
  dbName: string,
  build: (db: Db, client: MongoClient) => Promise<T>,
): Promise<T> {
  const client = new MongoClient(url);
  try {
    await client.connect();
    return await build(client.db(dbName), client);
  } catch (e) {
    await client.close();
    throw e;
  }
}
