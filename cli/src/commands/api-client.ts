import { EXIT } from "./command-kit.ts";

/** The one error body of the REST API. */
export interface ApiErrorBody {
  code: string;
  message: string;
  errors?: { path: string; message: string; location?: string }[];
}

/** Junction answered with an error, or could not be reached; `exitCode` says which (docs/cli.md). */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
    readonly status?: number,
    readonly body?: ApiErrorBody,
  ) {
    super(message);
  }
}

/** A raw answer, for the proxy command. */
export interface RawAnswer {
  status: number;
  headers: Headers;
  body: Uint8Array;
}

/** The REST API of one Junction, with one secret key. */
export class ApiClient {
  readonly baseUrl: string;

  constructor(
    baseUrl: string,
    private readonly secretKey: string,
  ) {
    this.baseUrl = baseUrl.replace(/\/+$/, "");
  }

  /** Sends a request and returns its JSON answer; throws ApiError on an error answer. */
  async call<T = Record<string, unknown>>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<T> {
    const res = await this.raw(method, path, body === undefined ? undefined : JSON.stringify(body), {
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...headers,
    });
    const text = new TextDecoder().decode(res.body);
    let parsed: unknown = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // Not JSON: a proxy in front of Junction answered, say; reported below by status.
    }
    if (res.status >= 400) throw errorOf(res.status, parsed);
    return parsed as T;
  }

  /** Sends a request and returns the answer as it came. */
  async raw(method: string, path: string, body?: string, headers: Record<string, string> = {}) {
    let res: Response;
    try {
      res = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${this.secretKey}`, ...headers },
        body,
        redirect: "manual",
      });
    } catch (err) {
      throw new ApiError(`cannot reach Junction at ${this.baseUrl}: ${(err as Error).message}`, EXIT.unavailable);
    }
    return { status: res.status, headers: res.headers, body: new Uint8Array(await res.arrayBuffer()) } as RawAnswer;
  }
}

/** The ApiError of an error answer: the API's code and message when it sent its error body. */
export function errorOf(status: number, parsed: unknown): ApiError {
  const exit = status >= 500 ? EXIT.unavailable : EXIT.refused;
  const body = (parsed as { error?: ApiErrorBody } | null)?.error;
  if (body && typeof body.code === "string" && typeof body.message === "string") {
    return new ApiError(body.message, exit, status, body);
  }
  return new ApiError(`Junction answered HTTP ${status}`, exit, status);
}
