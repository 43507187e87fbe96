export { createJunctionClient, type JunctionClient, type JunctionClientOptions } from "./junction-client.ts";
export { junctionError, type JunctionRpcError } from "./junction-error.ts";
