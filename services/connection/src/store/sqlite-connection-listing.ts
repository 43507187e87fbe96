import type { Database } from "bun:sqlite";
import type { ConnectionFilter, ConnectionRecord } from "./records.ts";
import { type ConnectionRow, connectionFromRow } from "./sqlite-rows.ts";
import { CONNECTION_COLUMNS, type Params, type Query } from "./sqlite-statements.ts";

/** The SQLite connection store's listing: one statement per combination of filters, prepared on first use. */
export class SqliteConnectionListing {
  private readonly queries = new Map<string, Query<unknown>>();

  constructor(private readonly db: Database) {}

  /** A page of an environment's connections, newest first, and how many match the filter in all. */
  list(environmentId: string, filter: ConnectionFilter): { connections: ConnectionRecord[]; total: number } {
    // Empty strings count as absent, as proto3 sends unset strings.
    const where = ["environment_id = $environment_id"];
    const params: Params = { environment_id: environmentId };
    if (filter.providerConfigKeys?.length) {
      // One parameter per key: the statement text depends only on how many there are.
      const names = filter.providerConfigKeys.map((_, i) => `$provider_config_key_${i}`);
      where.push(`provider_config_key IN (${names.join(", ")})`);
      filter.providerConfigKeys.forEach((key, i) => {
        params[`provider_config_key_${i}`] = key;
      });
    }
    if (filter.providerConfigKey) {
      where.push("provider_config_key = $provider_config_key");
      params.provider_config_key = filter.providerConfigKey;
    }
    if (filter.connectionId) {
      where.push("connection_id = $connection_id");
      params.connection_id = filter.connectionId;
    }
    if (filter.search) {
      where.push("connection_id LIKE $search ESCAPE '\\'");
      params.search = `%${filter.search.replace(/[\\%_]/g, "\\$&")}%`;
    }
    if (filter.endUserId) {
      where.push("end_user_id = $end_user_id");
      params.end_user_id = filter.endUserId;
    }
    // Rare filters on the end user's JSON profile: read from the rows the indexed filters leave.
    for (const [value, path, name] of [
      [filter.endUserEmail, "$.email", "end_user_email"],
      [filter.endUserDisplayName, "$.display_name", "end_user_display_name"],
      [filter.endUserOrganizationId, "$.organization.id", "end_user_organization_id"],
    ] as const) {
      if (!value) continue;
      where.push(`json_extract(end_user, '${path}') = $${name}`);
      params[name] = value;
    }
    for (const [i, [key, value]] of Object.entries(filter.tags ?? {}).entries()) {
      where.push(`EXISTS (SELECT 1 FROM json_each(tags) WHERE key = $tag_key_${i} AND value = $tag_value_${i})`);
      params[`tag_key_${i}`] = key;
      params[`tag_value_${i}`] = value;
    }
    const clause = where.join(" AND ");
    const total =
      this.query<{ total: number }>(`SELECT COUNT(*) AS total FROM connections WHERE ${clause}`).get(params)?.total ??
      0;
    const rows = this.query<ConnectionRow>(
      `SELECT ${CONNECTION_COLUMNS} FROM connections WHERE ${clause} ORDER BY created_at DESC, id DESC LIMIT $limit OFFSET $offset`,
    ).all({ ...params, limit: filter.limit, offset: filter.offset });
    return { connections: rows.map(connectionFromRow), total };
  }

  finalize(): void {
    for (const s of this.queries.values()) s.finalize();
  }

  private query<R>(sql: string): Query<R> {
    let stmt = this.queries.get(sql);
    if (!stmt) {
      stmt = this.db.prepare<unknown, [Params]>(sql);
      this.queries.set(sql, stmt);
    }
    return stmt as Query<R>;
  }
}
