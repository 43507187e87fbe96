// The test page's script: Nango's frontend SDK as a customer's web app bundles it (bun build).
import Nango, { AuthError, type ConnectUI, type ConnectUIEvent } from "@nangohq/frontend";

type Options = { host: string; connectSessionToken: string; websocketsPath?: string };

/** What `auth()` ended with, as plain data the test reads back from the page. */
type Outcome =
  | { ok: { providerConfigKey: string; connectionId: string; isPending?: boolean } }
  | { err: { authError: boolean; type: string; message: string } };

const w = window as unknown as { sdkAuth: unknown; sdkOutcome: Outcome | undefined };

/** Starts `auth(integration, authOptions)`; its end is kept in `window.sdkOutcome`. */
w.sdkAuth = (options: Options, integration: string, authOptions?: Record<string, unknown>) => {
  w.sdkOutcome = undefined;
  const nango = new Nango(options);
  nango.auth(integration, authOptions as never).then(
    (ok) => {
      w.sdkOutcome = { ok };
    },
    (e: Error & { type?: string }) => {
      w.sdkOutcome = { err: { authError: e instanceof AuthError, type: e.type ?? "", message: e.message } };
    },
  );
};

/** `openConnectUI`'s events, in order; `openUI` opens the Connect UI as an app does, `setToken` sends it a token. */
const events: ConnectUIEvent[] = [];
let ui: ConnectUI | undefined;
Object.assign(window, {
  events,
  openUI(o: { baseURL: string; apiURL: string; sessionToken?: string; theme?: "light" | "dark"; lang?: string }) {
    ui = new Nango().openConnectUI({
      baseURL: o.baseURL,
      apiURL: o.apiURL,
      ...(o.sessionToken ? { sessionToken: o.sessionToken } : {}),
      ...(o.theme ? { themeOverride: o.theme } : {}),
      ...(o.lang ? { lang: o.lang } : {}),
      onEvent: (event) => {
        events.push(event);
      },
    });
  },
  setToken(token: string) {
    ui?.setSessionToken(token);
  },
});
