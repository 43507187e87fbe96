import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One request as the fake sees it: a fetch `Request` plus what `Request.url` would lose. */
export interface RawRequest {
  /** Fetch-style request for headers and body. Its `url` is normalised: never route on it. */
  request: Request;
  method: string;
  /** The request-target exactly as it appeared on the request line, e.g. `/echo/a%40b/%2e%2e?x=1`. */
  rawTarget: string;
  /** The body stream for any method, GET included (a fetch `Request` cannot carry one on GET). */
  body: ReadableStream<Uint8Array>;
  /** Header names and values in arrival order and spelling: [name, value, name, value, ...]. */
  rawHeaders: string[];
  /** Aborts when the client disconnects or the server stops, so slow handlers can give up. */
  signal: AbortSignal;
}

export type RawHandler = (req: RawRequest) => Promise<Response>;

export interface RawHttpServer {
  port: number;
  stop(): Promise<void>;
}

/**
 * Serves `handler` on node:http rather than Bun.serve: Bun.serve builds `request.url` with the URL
 * parser, which resolves `..` and `%2e%2e` segments, and the proxy tests need the target as sent.
 */
export async function startRawHttpServer(
  handler: RawHandler,
  listen: { port: number; hostname: string },
): Promise<RawHttpServer> {
  const stopping = new AbortController();
  const server = createServer((req, res) => {
    void serveOne(handler, req, res, stopping.signal, listen.hostname);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(listen.port, listen.hostname, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    async stop() {
      stopping.abort();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}

async function serveOne(
  handler: RawHandler,
  req: IncomingMessage,
  res: ServerResponse,
  stopping: AbortSignal,
  hostname: string,
): Promise<void> {
  const gone = new AbortController();
  res.on("close", () => gone.abort());
  const signal = AbortSignal.any([gone.signal, stopping]);
  const method = req.method ?? "GET";
  const rawTarget = req.url ?? "/";
  const headers = new Headers();
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    headers.append(req.rawHeaders[i] as string, req.rawHeaders[i + 1] as string);
  }
  const body = incomingBody(req);
  const init = { method, headers, body: method === "GET" || method === "HEAD" ? null : body, duplex: "half", signal };
  let request: Request;
  try {
    request = new Request(`http://${hostname}${rawTarget.startsWith("/") ? rawTarget : "/"}`, init as RequestInit);
  } catch {
    // Targets the URL parser refuses still reach the routes, which only look at `rawTarget`.
    request = new Request(`http://${hostname}/`, init as RequestInit);
  }

  let response: Response;
  try {
    response = await handler({ request, method, rawTarget, body, rawHeaders: req.rawHeaders, signal });
  } catch (error) {
    if (signal.aborted) return void res.destroy();
    console.error("fake-upstream: handler failed", error);
    response = Response.json({ error: { code: 500, message: String(error), status: "INTERNAL" } }, { status: 500 });
  }
  await writeResponse(res, response, method === "HEAD");
}

/** Pulls the upload only as fast as the handler reads it, so large uploads are never held whole. */
function incomingBody(req: IncomingMessage): ReadableStream<Uint8Array> {
  const chunks = req[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await chunks.next();
      if (next.done) controller.close();
      else controller.enqueue(new Uint8Array(next.value as Buffer));
    },
    cancel() {
      req.destroy();
    },
  });
}

async function writeResponse(res: ServerResponse, response: Response, headOnly: boolean): Promise<void> {
  res.statusCode = response.status;
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie") res.setHeader(name, value);
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) res.setHeader("set-cookie", cookies);
  if (!response.body || headOnly) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (res.destroyed) {
        await reader.cancel();
        return;
      }
      if (!res.write(value)) await drained(res);
    }
    res.end();
  } catch {
    res.destroy();
  }
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}
