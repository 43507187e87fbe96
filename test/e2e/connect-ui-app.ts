// The customer's page of the Connect UI browser test: Nango's frontend SDK, bundled with `bun build` and
// served on an origin of its own. `openUI` opens the Connect UI as `openConnectUI` does in an app.
import Nango, { type ConnectUI, type ConnectUIEvent } from "@nangohq/frontend";

const events: ConnectUIEvent[] = [];
let ui: ConnectUI | undefined;

Object.assign(window, {
  events,
  openUI(options: { baseURL: string; apiURL: string; sessionToken?: string; theme?: "light" | "dark"; lang?: string }) {
    const nango = new Nango(options.sessionToken ? { connectSessionToken: options.sessionToken } : {});
    ui = nango.openConnectUI({
      baseURL: options.baseURL,
      apiURL: options.apiURL,
      ...(options.sessionToken ? { sessionToken: options.sessionToken } : {}),
      ...(options.theme ? { themeOverride: options.theme } : {}),
      ...(options.lang ? { lang: options.lang } : {}),
      onEvent: (event) => {
        events.push(event);
      },
    });
  },
  setToken(token: string) {
    ui?.setSessionToken(token);
  },
});
