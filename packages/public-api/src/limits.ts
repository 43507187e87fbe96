/**
 * Limits of the public API that more than one entry point enforces: the REST routes, and the script
 * API that reaches the same services from inside a run.
 */

/**
 * A connection's metadata, as JSON text, at most (UTF-8 bytes): what the REST API's metadata routes
 * take in one body. The connection service holds every writer to it (REST, scripts), set or merged.
 */
export const MAX_METADATA_BYTES = 1024 * 1024;
