export type {
  AccessTokenRecord,
  AuthorizationOverride,
  CalendarEvent,
  ChannelView,
  ClientRegistration,
  FakeUser,
  IssueTokensInput,
  NewUser,
  NotificationAttempt,
  RefreshTokenRecord,
  SentMessage,
  TokenEndpointBehavior,
  TokenRequestCounts,
  TokenRequestLogEntry,
} from "@junction/providers/fakes";
export {
  blobChunks,
  blobSha256,
  pkceChallenge,
  type RawHttpResponse,
  rawHttpRequest,
} from "@junction/providers/fake-kit";
export { type ReceivedWebhook, startWebhookReceiver, type WebhookReceiver } from "@junction/providers/fake-kit";
export {
  type FakeUpstream,
  type FakeUpstreamOptions,
  type FakeUpstreamServer,
  type FakeUpstreamState,
  type RequestLogEntry,
  startFakeUpstream,
} from "./fake-upstream.ts";
export { type SandboxCredential, type SandboxUpstream, startSandboxUpstream } from "./sandbox.ts";
