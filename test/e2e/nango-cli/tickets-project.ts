/**
 * A zero-yaml Nango sync and the upstream API it reads, for the tests that drive Nango's CLI: the sync
 * pages through /tickets with a cursor (nango.paginate), saves every page with its zod model, and
 * detects deletions (trackDeletesStart/End).
 */
export const TICKETS_SYNC = `import { createSync } from 'nango';
import * as z from 'zod';

const Ticket = z.object({ id: z.string(), title: z.string(), done: z.boolean() });

export default createSync({
    description: 'The tickets of the account',
    version: '1.2.0',
    endpoints: [{ method: 'GET', path: '/tickets', group: 'Tickets' }],
    frequency: 'every hour',
    autoStart: true,
    syncType: 'full',
    scopes: ['tickets:read'],
    models: { Ticket },
    exec: async (nango) => {
        await nango.trackDeletesStart('Ticket');
        let saved = 0;
        for await (const page of nango.paginate<{ id: number; title: string; done?: boolean }>({
            endpoint: '/tickets',
            paginate: { type: 'cursor', cursor_path_in_response: 'next', cursor_name_in_request: 'cursor', response_path: 'items' }
        })) {
            await nango.batchSave(page.map((t) => ({ id: String(t.id), title: t.title, done: t.done === true })), 'Ticket');
            saved += page.length;
        }
        await nango.trackDeletesEnd('Ticket');
        await nango.log(\`saved \${saved} tickets\`);
    }
});
`;

/** What the fake API lists; the test changes it between two runs of the sync. */
export const TICKETS: { id: number; title: string; done?: boolean }[] = [];

/** The upstream API the scripts call: /me, and /tickets in pages of two with a cursor. */
export function startTicketsApi() {
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const url = new URL(req.url);
      if (!req.headers.get("authorization")?.startsWith("Bearer ")) return new Response("no token", { status: 401 });
      if (url.pathname === "/me") return Response.json({ id: "acct-1" });
      if (url.pathname !== "/tickets") return new Response("not found", { status: 404 });
      const from = Number(url.searchParams.get("cursor") ?? "0");
      const next = from + 2 < TICKETS.length ? String(from + 2) : null;
      return Response.json({ items: TICKETS.slice(from, from + 2), next });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, stop: () => server.stop(true) };
}
