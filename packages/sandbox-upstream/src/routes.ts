import { approveRoute, authorizeRoute } from "./authorize-routes.ts";
import { calendarListEntryRoute, stopChannelRoute, watchRoute } from "./calendar-channel-routes.ts";
import {
  createEventRoute,
  deleteEventRoute,
  getEventRoute,
  listEventsRoute,
  updateEventRoute,
} from "./calendar-event-routes.ts";
import { blobRoute, blobSinkRoute, echoRoute, flakyRoute, slowRoute, statusRoute } from "./diagnostic-routes.ts";
import { profileRoute, sendMessageRoute } from "./gmail-routes.ts";
import { certsRoute, revokeRoute, userinfoRoute } from "./openid-routes.ts";
import { type Route, route } from "./router.ts";
import { tokenRoute } from "./token-route.ts";

const CALENDAR = "/calendar/v3/calendars/([^/]+)";

/** Paths mirror Google's hosts, so Junction's templates only need their base URLs pointed here. */
export const ROUTES: Route[] = [
  // accounts.google.com and oauth2.googleapis.com
  route("GET", /^\/o\/oauth2\/v2\/auth$/, authorizeRoute),
  route("POST", /^\/o\/oauth2\/v2\/auth\/approve$/, approveRoute),
  route("POST", /^\/token$/, tokenRoute),
  route("POST", /^\/revoke$/, revokeRoute),
  route("GET", /^\/oauth2\/v[123]\/userinfo$/, userinfoRoute),
  route("GET", /^\/oauth2\/v3\/certs$/, certsRoute),
  // www.googleapis.com/calendar/v3
  route("GET", /^\/calendar\/v3\/users\/me\/calendarList\/([^/]+)$/, calendarListEntryRoute),
  route("POST", new RegExp(`^${CALENDAR}/events/watch$`), watchRoute),
  route("GET", new RegExp(`^${CALENDAR}/events$`), listEventsRoute),
  route("POST", new RegExp(`^${CALENDAR}/events$`), createEventRoute),
  route("GET", new RegExp(`^${CALENDAR}/events/([^/]+)$`), getEventRoute),
  route("PATCH", new RegExp(`^${CALENDAR}/events/([^/]+)$`), updateEventRoute),
  route("PUT", new RegExp(`^${CALENDAR}/events/([^/]+)$`), updateEventRoute),
  route("DELETE", new RegExp(`^${CALENDAR}/events/([^/]+)$`), deleteEventRoute),
  route("POST", /^\/calendar\/v3\/channels\/stop$/, stopChannelRoute),
  // gmail.googleapis.com/gmail/v1
  route("GET", /^\/gmail\/v1\/users\/([^/]+)\/profile$/, profileRoute),
  route("POST", /^(?:\/upload)?\/gmail\/v1\/users\/([^/]+)\/messages\/send$/, sendMessageRoute),
  // Test helpers for the proxy
  route("*", /^\/echo(?:\/.*)?$/, echoRoute),
  route("GET", /^\/blob\/(\d+)$/, blobRoute),
  route("POST", /^\/blob\/sink$/, blobSinkRoute),
  route("PUT", /^\/blob\/sink$/, blobSinkRoute),
  route("*", /^\/flaky\/(\d+)$/, flakyRoute),
  route("*", /^\/status\/(\d{3})$/, statusRoute),
  route("*", /^\/slow\/(\d+)$/, slowRoute),
];
