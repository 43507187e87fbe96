/**
 * The fake kit: what every provider's fake builds on (a raw HTTP server, a router, state-change waits,
 * test helpers). Names no provider. Loaded by tests and the sandbox upstream only, never by production
 * code (`@junction/providers/fake-kit`). How a provider adds its fake: README.md here.
 */
export { type RawHttpResponse, rawHttpRequest } from "./raw-http-request.ts";
export { consentPage, escapeHtml, redirectWith } from "./browser-answers.ts";
export { blobChunks, blobSha256, blobStream } from "./blob-pattern.ts";
export { delay } from "./delay.ts";
export { JsonDeliveries, type JsonDelivery } from "./json-deliveries.ts";
export { pkceChallenge, pkceMatches } from "./pkce.ts";
export type { FakeHost, FakeInstance, ProviderFake, SandboxCredentialUrls } from "./provider-fake.ts";
export { randomId } from "./random-id.ts";
export {
  type DispatchHooks,
  decodeSegment,
  dispatch,
  headersObject,
  type MountedRoute,
  mountRoutes,
  type RequestContext,
  type Route,
  type RouteHandler,
  readJsonObject,
  route,
} from "./router.ts";
export { type RawHandler, type RawHttpServer, type RawRequest, startRawHttpServer } from "./start-raw-http-server.ts";
export { StateChanges } from "./state-changes.ts";
export { type ReceivedWebhook, startWebhookReceiver, type WebhookReceiver } from "./webhook-receiver.ts";
