// The test page's script: Nango's frontend SDK as a customer's web app bundles it (bun build).
import Nango, { AuthError } from "@nangohq/frontend";

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
