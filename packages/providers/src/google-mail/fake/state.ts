import type { StateChanges } from "../../fake-kit/state-changes.ts";
import type { GoogleFakeState } from "../../google/fake/state.ts";
import type { MailboxWatches } from "./mailbox-watches.ts";
import type { PubSub } from "./pubsub.ts";

export interface SentMessage {
  id: string;
  threadId: string;
  from: string;
  /** The RFC 822 message as the client sent it (decoded from base64url when sent as JSON). */
  raw: string;
}

/** The mail fake's world, handed to its routes; `google` holds the shared accounts (tokens, users, mailboxes). */
export interface MailFakeState {
  google: GoogleFakeState;
  changes: StateChanges;
  sentMessages: SentMessage[];
  watches: MailboxWatches;
  pubsub: PubSub;
}

/** With `enforceScopes`, reading demands a scope starting with one of these. */
export const GMAIL_READ_SCOPES = ["https://mail.google.com/", "https://www.googleapis.com/auth/gmail."];
/** With `enforceScopes`, sending demands a scope starting with one of these. */
export const GMAIL_SEND_SCOPES = [
  "https://mail.google.com/",
  "https://www.googleapis.com/auth/gmail.send",
  "https://www.googleapis.com/auth/gmail.compose",
  "https://www.googleapis.com/auth/gmail.modify",
];
