/**
 * The soak's traffic (bench/soak.bench.ts): half proxy calls, a quarter calendar notifications, a quarter
 * REST calls, all on 127.0.0.1. Every id the traffic makes up is new (channel ids, message numbers,
 * connections created and deleted, end users of connect sessions, unknown connection ids proxied), as
 * a long-running instance sees, so that anything keyed by ids without a bound shows as growth.
 */
export const PROXY_INTEGRATION = "api";
export const NOTIFY_INTEGRATION = "cal";
export const CONNECTIONS = 50;

export const calendarUri = (i: number) =>
  `https://www.googleapis.com/calendar/v3/calendars/user${i}%40example.com/events?alt=json`;

export interface SoakTarget {
  url: string;
  key: string;
  webhookUrl: string;
}

/** The counts of one phase. */
export interface PhaseCounts {
  requests: number;
  errors: number;
  /** Notifications answered 200: each is forwarded once to the receiver. */
  accepted: number;
  latenciesMs: number[];
  /** The first few unexpected answers, for the report. */
  samples: string[];
}

const json = { "content-type": "application/json" };

/** One REST call of the rotation: reads and writes of the API an application makes. */
function restCall(t: SoakTarget, n: number): { path: string; init: RequestInit; ok: (s: number) => boolean } {
  const id = `user${n % CONNECTIONS}`;
  const auth = { authorization: `Bearer ${t.key}` };
  const created = `soak-${n}`;
  const calls = [
    () => ({ path: "/connections", init: { headers: auth } }),
    () => ({ path: `/connections/${id}?provider_config_key=${PROXY_INTEGRATION}`, init: { headers: auth } }),
    () => ({
      path: "/connection/metadata",
      init: {
        method: "PATCH",
        headers: { ...auth, ...json },
        body: JSON.stringify({
          connection_id: id,
          provider_config_key: PROXY_INTEGRATION,
          metadata: { soak: n },
        }),
      },
    }),
    () => ({
      path: "/connections",
      init: {
        method: "POST",
        headers: { ...auth, ...json },
        body: JSON.stringify({
          provider_config_key: PROXY_INTEGRATION,
          connection_id: created,
          credentials: { type: "OAUTH2", access_token: `access-${created}` },
        }),
      },
    }),
    () => ({
      path: `/connections/${created.replace(/\d+$/, String(n - 1))}?provider_config_key=${PROXY_INTEGRATION}`,
      init: { method: "DELETE", headers: auth },
    }),
    () => ({
      path: "/connect/sessions",
      init: { method: "POST", headers: { ...auth, ...json }, body: JSON.stringify({ end_user: { id: `end-${n}` } }) },
    }),
    () => ({ path: "/webhook-messages?limit=20", init: { headers: auth } }),
    () => ({ path: `/integrations/${NOTIFY_INTEGRATION}`, init: { headers: auth } }),
  ];
  const call = (calls[n % calls.length] as () => { path: string; init: RequestInit })();
  return { ...call, ok: (s) => s < 300 };
}

/** Which kinds the mix sends (BENCH_SOAK_ONLY: one of them alone, to tell which one grows). */
export type SoakKind = "proxy" | "notifications" | "rest";

/** Request number `n` of the mix: 0–1 of every 4 proxy, 2 a notification, 3 REST (or `only` that kind). */
export function requestOf(
  t: SoakTarget,
  n: number,
  only?: SoakKind,
): { url: string; init: RequestInit; ok: (s: number) => boolean; notification: boolean } {
  const slot = only === undefined ? n % 4 : { proxy: n % 2, notifications: 2, rest: 3 }[only];
  const k = only === undefined ? Math.floor(n / 4) : n;
  if (slot <= 1) {
    // Every 16th proxy call names a connection that does not exist (a 404), with a new id each time.
    const missing = k % 16 === 15;
    const connection = missing ? `ghost-${n}` : `user${k % CONNECTIONS}`;
    return {
      url: `${t.url}/proxy/small`,
      init: {
        headers: {
          authorization: `Bearer ${t.key}`,
          "provider-config-key": PROXY_INTEGRATION,
          "connection-id": connection,
        },
      },
      ok: (s) => (missing ? s === 404 : s === 200),
      notification: false,
    };
  }
  if (slot === 2) {
    return {
      url: t.webhookUrl,
      init: {
        method: "POST",
        headers: {
          "X-Goog-Channel-ID": `soak-channel-${n}`,
          "X-Goog-Channel-Expiration": "Tue, 01 Dec 2099 12:00:00 GMT",
          "X-Goog-Message-Number": String(n),
          "X-Goog-Resource-ID": `resource-${k % CONNECTIONS}`,
          "X-Goog-Resource-State": "exists",
          "X-Goog-Resource-URI": calendarUri(k % CONNECTIONS),
        },
      },
      ok: (s) => s === 200,
      notification: true,
    };
  }
  const rest = restCall(t, k);
  // A DELETE may come before its POST finished (another worker): 404 is then an answer, not an error.
  const deleting = rest.init.method === "DELETE";
  return {
    url: `${t.url}${rest.path}`,
    init: rest.init,
    ok: (s) => rest.ok(s) || (deleting && s === 404),
    notification: false,
  };
}

/** `concurrency` workers sending the mix until `until` (performance.now()); `next()` numbers the requests. */
export async function runMix(
  t: SoakTarget,
  concurrency: number,
  until: number,
  next: () => number,
  only?: SoakKind,
): Promise<PhaseCounts> {
  const counts: PhaseCounts = { requests: 0, errors: 0, accepted: 0, latenciesMs: [], samples: [] };
  const worker = async () => {
    while (performance.now() < until) {
      const r = requestOf(t, next(), only);
      const started = performance.now();
      try {
        const res = await fetch(r.url, r.init);
        const body = await res.text();
        counts.requests++;
        if (!r.ok(res.status)) {
          counts.errors++;
          if (counts.samples.length < 5)
            counts.samples.push(`${r.init.method ?? "GET"} ${r.url} ${res.status} ${body.slice(0, 160)}`);
        } else if (r.notification) counts.accepted++;
      } catch (err) {
        counts.requests++;
        counts.errors++;
        if (counts.samples.length < 5) counts.samples.push(`${r.url} ${(err as Error).message}`);
      }
      counts.latenciesMs.push(performance.now() - started);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return counts;
}
