import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { newSecret } from "./mcp-auth-store.ts";

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  server: Server;
  /** The MCP URL the session was opened on: another URL's token cannot use it. */
  mcpServerId: string;
  lastUsedMs: number;
}

/**
 * The MCP sessions of end users' MCP URLs, in this process. They are stateful (unlike POST /mcp) so
 * that a tool call can send the client an elicitation and read its answer, and so the server knows the
 * capabilities the client declared. Bounded: the idlest session is closed past `max`, and a session
 * idle for `idleMs` is closed on the next sweep; the client then starts a new one.
 */
export class UserMcpSessions {
  private readonly sessions = new Map<string, Session>();

  constructor(
    private readonly now: () => number,
    private readonly max = 1000,
    private readonly idleMs = 30 * 60_000,
  ) {}

  /** The session `id` of MCP URL `mcpServerId`, touched; undefined when there is none. */
  get(id: string, mcpServerId: string): WebStandardStreamableHTTPServerTransport | undefined {
    const session = this.sessions.get(id);
    if (!session || session.mcpServerId !== mcpServerId) return undefined;
    session.lastUsedMs = this.now();
    return session.transport;
  }

  /** A transport that becomes a session once its initialize request succeeds. */
  async open(mcpServerId: string, server: Server): Promise<WebStandardStreamableHTTPServerTransport> {
    this.sweep();
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => newSecret("mcps_"),
      onsessioninitialized: (id) => {
        this.sessions.set(id, { transport, server, mcpServerId, lastUsedMs: this.now() });
        this.evictPastMax();
      },
      onsessionclosed: (id) => this.close(id),
    });
    await server.connect(transport);
    return transport;
  }

  /** Closes every session of an MCP URL (it was revoked). */
  closeAll(mcpServerId: string): void {
    for (const [id, s] of this.sessions) if (s.mcpServerId === mcpServerId) this.close(id);
  }

  private sweep(): void {
    const now = this.now();
    for (const [id, s] of this.sessions) if (now - s.lastUsedMs >= this.idleMs) this.close(id);
  }

  private evictPastMax(): void {
    while (this.sessions.size > this.max) {
      let idlest: [string, Session] | undefined;
      for (const entry of this.sessions) if (!idlest || entry[1].lastUsedMs < idlest[1].lastUsedMs) idlest = entry;
      if (!idlest) return;
      this.close(idlest[0]);
    }
  }

  private close(id: string): void {
    const session = this.sessions.get(id);
    if (!session) return;
    this.sessions.delete(id);
    void session.server.close();
  }
}
