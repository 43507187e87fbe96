/**
 * Every provider's fake upstream, in the order the sandbox upstream mounts them (their routes are tried in
 * this order). Test and sandbox code only (`@junction/providers/fakes`): production code never imports it.
 * A new provider's fake is one folder (`<provider>/fake/index.ts` exporting `fake`) and one line here;
 * the option, control, state and endpoint types below follow from this list. See `fake-kit/README.md`.
 */
import { fake as githubFake } from "./github/fake/index.ts";
import { fake as googleCalendarFake } from "./google-calendar/fake/index.ts";
import { fake as googleMailFake } from "./google-mail/fake/index.ts";
import { fake as googleFake } from "./google/fake/index.ts";
import { fake as microsoftFake } from "./microsoft/fake/index.ts";
import { fake as outlookCalendarFake } from "./microsoft-outlook-calendar/fake/index.ts";

export const FAKES = [
  googleFake,
  googleCalendarFake,
  googleMailFake,
  microsoftFake,
  outlookCalendarFake,
  githubFake,
] as const;

type Fake = (typeof FAKES)[number];
type Instance = ReturnType<Fake["start"]>;
type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;

/** Every fake's options, together (each fake reads its own). */
export type FakesOptions = UnionToIntersection<Parameters<Fake["start"]>[1]>;
/** Every fake's test controls, together. */
export type FakesControls = UnionToIntersection<NonNullable<Instance["controls"]>>;
/** Every fake's live state views, together. */
export type FakesState = UnionToIntersection<NonNullable<Instance["state"]>>;
/** Every fake's ready-made template URLs, together. */
export type FakesEndpoints = UnionToIntersection<NonNullable<Instance["endpoints"]>>;

export type {
  CalendarEvent,
  CalendarFakeOptions,
  ChannelView,
  NotificationAttempt,
} from "./google-calendar/fake/index.ts";
export type {
  MailboxWatchView,
  PushDelivery,
  PushSubscription,
  PushTokenFault,
  SentMessage,
} from "./google-mail/fake/index.ts";
export type {
  GraphEvent,
  GraphNotificationAttempt,
  GraphSubscriptionView,
  GraphValidation,
  LifecycleEvent,
} from "./microsoft-outlook-calendar/fake/index.ts";
export type { MicrosoftClient, MicrosoftToken, MicrosoftUser } from "./microsoft/fake/index.ts";
export type {
  AccessTokenRecord,
  AuthorizationOverride,
  ClientRegistration,
  FakeUser,
  GoogleFakeOptions,
  IssueTokensInput,
  NewUser,
  RefreshTokenRecord,
  TokenEndpointBehavior,
  TokenRequestCounts,
  TokenRequestLogEntry,
} from "./google/fake/index.ts";
