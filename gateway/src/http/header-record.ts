/** The proxy engine's header record, which the gateway reads every request's headers into. */
export { type HeaderRecord, headerRecord } from "@junction/upstream-proxy/header-record";
