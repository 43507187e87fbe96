import { z } from "zod";
import type { ErrorCode } from "./error-codes.ts";

/** An answer that is not a JSON body: a page, a redirect, an upstream's answer. */
export interface OtherAnswer {
  description: string;
  /** Absent for an answer without a body (a redirect). */
  contentType?: string;
  /** Headers of the answer worth naming (e.g. `location`), with what they carry. */
  headers?: Record<string, string>;
}

/**
 * A route's entry in the OpenAPI document (GET /openapi.json, docs/openapi.json). Schemas are the
 * route's own: `query`, `headers` and `body` are the constants its handler passes to parseWith (never
 * a copy), and each JSON answer's schema is checked against real answers in tests.
 */
export interface RouteDoc {
  summary: string;
  description?: string;
  tags: string[];
  /** A route without the secret key (`auth: false`) that takes a connect session token as the bearer. */
  connectSessionToken?: boolean;
  /** What each `:name` of the pattern is; a path parameter without an entry is described by its name. */
  params?: Record<string, string>;
  /** The query's zod object (as the handler parses it). */
  query?: z.ZodObject;
  /** The handler reads `query` without refusing any (a browser route): no `invalid_query_params`. */
  queryUnchecked?: boolean;
  /** Request headers the route reads, as a zod object keyed by lower-case name. */
  headers?: z.ZodObject;
  /** The JSON body's zod schema (as the handler parses it); `bodyOptional` when it may be left out. */
  body?: z.ZodType;
  bodyOptional?: boolean;
  /** A body passed on as it is (the proxy's), what it is; not documented on GET. */
  rawBody?: string;
  /** Success answers by status: a zod schema of the JSON body, or what else comes back. */
  responses: Partial<Record<number | "default", z.ZodType | OtherAnswer>>;
  /**
   * The route's own error codes. Added by the document: the secret key's (on authenticated routes),
   * `invalid_query_params` (with `query`), the body's (with `body`), `internal_error` and
   * `service_unavailable`.
   */
  errors: ErrorCode[];
  /** A code of `errors` this route answers at another status than its usual one (statusOfCode). */
  errorStatus?: Partial<Record<ErrorCode, number>>;
}

/** `{"data": ...}`, the envelope of most of Junction's answers. */
export const dataOf = <T extends z.ZodType>(data: T) => z.object({ data });

/** An ISO-8601 time (`format: date-time`, checked without zod's long pattern), or null when unset. */
export const isoOrNull = z
  .string()
  .refine((s) => !Number.isNaN(Date.parse(s)), "must be an ISO-8601 time")
  .meta({ format: "date-time" })
  .nullable();

/** `{"success": true}`. */
export const successAnswer = z.object({ success: z.literal(true) });
