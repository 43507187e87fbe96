/**
 * Limits of the public API that more than one entry point enforces: the REST routes, and the script
 * API that reaches the same services from inside a run.
 */

/**
 * A connection's metadata, as JSON text, at most (UTF-8 bytes): what the REST API's metadata routes
 * take in one body. The connection service holds every writer to it (REST, scripts), set or merged.
 */
export const MAX_METADATA_BYTES = 1024 * 1024;

/** Integration ids travel in URLs and headers: URL-safe characters only, as the REST edge and the service check. */
export const INTEGRATION_KEY_PATTERN = /^[A-Za-z0-9._~:@-]{1,255}$/;
export const INTEGRATION_KEY_RULE = "must be 1-255 characters of letters, digits and . _ ~ : @ -";
