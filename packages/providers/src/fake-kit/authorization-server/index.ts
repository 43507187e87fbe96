/** A configurable fake OAuth 2.0 authorization server for tests (never loaded by production code). */
export { type AuthorizationServerBehaviour, DEFAULT_BEHAVIOUR } from "./behaviour.ts";
export {
  type AuthorizationHandler,
  type FakeAuthorizationServer,
  fakeAuthorizationHandler,
  type SeenTokenRequest,
  startFakeAuthorizationServer,
} from "./authorization-server.ts";
