/** The proxy engine's reading of a request target without a URL object, which the gateway routes with. */
export { isPlainTarget, plainRequestTarget, type RequestTarget } from "@junction/upstream-proxy/request-target";
