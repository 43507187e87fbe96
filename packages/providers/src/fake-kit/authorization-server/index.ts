/** A configurable fake OAuth 2.0 authorization server for tests (never loaded by production code). */
export { type AuthorizationServerBehaviour, DEFAULT_BEHAVIOUR } from "./behaviour.ts";
export {
  type FakeAuthorizationServer,
  type SeenTokenRequest,
  startFakeAuthorizationServer,
} from "./authorization-server.ts";
