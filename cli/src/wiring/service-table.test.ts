import { describe, expect, test } from "bun:test";
import { SERVICE_KEYS } from "@junction/wiring";
import { SERVICE_TABLE, serviceSpec } from "./service-table.ts";

describe("the service table", () => {
  test("names each service once, with its own default port, and every client it needs is a service of the table", () => {
    const names = SERVICE_TABLE.map((s) => s.name);
    expect(new Set(names).size).toBe(names.length);
    expect(new Set(SERVICE_TABLE.map((s) => s.defaultPort)).size).toBe(names.length);
    for (const spec of SERVICE_TABLE) {
      for (const needed of [...spec.needs.clients, ...(spec.needs.optionalClients ?? [])]) {
        expect({ service: spec.name, needs: needed, known: names.includes(needed) }).toEqual({
          service: spec.name,
          needs: needed,
          known: true,
        });
      }
    }
  });
});

describe("the table and the service definitions", () => {
  test("every service with a Connect definition has its entry, under its own name, in definition order", () => {
    expect(SERVICE_TABLE.map((s) => s.name)).toEqual([...SERVICE_KEYS]);
    for (const name of SERVICE_KEYS) expect(serviceSpec(name).name).toBe(name);
  });
});
