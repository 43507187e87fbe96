import {
  fakeAuthorizationHandler,
  type SavedAuthorizations,
} from "../../fake-kit/authorization-server/authorization-server.ts";
import type { FakeHost, FakeInstance, ProviderFake } from "../../fake-kit/provider-fake.ts";
import type { RequestContext } from "../../fake-kit/router.ts";

/** What this fake reads of the runner's options: the OAuth client it accepts (the sandbox's). */
export interface GithubFakeOptions {
  clients?: { clientId: string; clientSecret: string }[];
}

/** Where the fake lives on the sandbox's origin. */
const PREFIX = "/github";

/**
 * GitHub for the sandbox upstream: the generic fake authorization server (consent is automatic) under
 * /github, behaving as GitHub's OAuth apps do (bearer tokens that never expire, space-separated scopes,
 * the secret in the form), and its REST API under /github/api: GET /user answers the account, any other
 * call is echoed (what it carried). Sandbox credentials for "github" point at it.
 */
export const fake: ProviderFake<GithubFakeOptions, FakeInstance> = {
  name: "github",
  start(host: FakeHost, options: GithubFakeOptions) {
    const client = options.clients?.[0];
    const server = fakeAuthorizationHandler({
      now: host.now,
      behaviour: {
        ...(client ? { clientId: client.clientId, clientSecret: client.clientSecret } : {}),
        tokenType: "bearer",
        expiresIn: null,
      },
    });
    const handle = async (ctx: RequestContext, path: string) => server.handle(ctx.request, new URL(path, host.url));
    return {
      routes: [
        {
          method: "GET",
          pattern: /^\/github\/api\/user$/,
          // The fake's account, in GitHub's shape (https://docs.github.com/en/rest/users/users).
          handler: async (ctx) => {
            const res = await handle(ctx, `${PREFIX}/api/me`);
            if (res.status !== 200) return res;
            const { account } = (await res.json()) as { account: { id: string; email: string } };
            return Response.json({ login: account.email.split("@")[0], id: account.id, email: account.email });
          },
        },
        {
          method: "*",
          pattern: /^\/github\//,
          handler: (ctx) => handle(ctx, `${ctx.rawPath}${ctx.rawQuery ? `?${ctx.rawQuery}` : ""}`),
        },
      ],
      persistence: {
        save: () => server.persistence.save(),
        restore: (saved) => server.persistence.restore(saved as SavedAuthorizations),
      },
      sandboxCredentials: {
        github: {
          authorizationUrl: `${host.url}${PREFIX}/login/oauth/authorize`,
          tokenUrl: `${host.url}${PREFIX}/login/oauth/token`,
          baseUrl: `${host.url}${PREFIX}/api`,
        },
      },
    };
  },
};
