import { connect } from "node:net";

export interface RawHttpResponse {
  status: number;
  /** Lowercased names; repeated headers keep the last value. */
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends `GET|... <target> HTTP/1.1` over a plain socket, because fetch() and every URL parser resolve
 * `..` and `%2e%2e` before sending, and path-handling tests need the bytes as written.
 */
export function rawHttpRequest(
  port: number,
  target: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<RawHttpResponse> {
  const body = options.body ?? "";
  const headers = {
    host: `127.0.0.1:${port}`,
    connection: "close",
    "content-length": String(Buffer.byteLength(body)),
    ...options.headers,
  };
  const head = [
    `${options.method ?? "GET"} ${target} HTTP/1.1`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ];
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(`${head.join("\r\n")}\r\n\r\n${body}`));
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("end", () => {
      try {
        resolve(parseResponse(Buffer.concat(chunks).toString("latin1")));
      } catch (error) {
        reject(error);
      }
    });
  });
}

function parseResponse(text: string): RawHttpResponse {
  const split = text.indexOf("\r\n\r\n");
  const [statusLine = "", ...lines] = text.slice(0, split).split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = text.slice(split + 4);
  if (headers["transfer-encoding"]?.includes("chunked")) body = dechunk(body);
  return { status: Number(statusLine.split(" ")[1]), headers, body: Buffer.from(body, "latin1").toString("utf8") };
}

function dechunk(text: string): string {
  let out = "";
  let at = 0;
  for (;;) {
    const lineEnd = text.indexOf("\r\n", at);
    const size = Number.parseInt(text.slice(at, lineEnd), 16);
    if (!size) return out;
    out += text.slice(lineEnd + 2, lineEnd + 2 + size);
    at = lineEnd + 2 + size + 2;
  }
}
