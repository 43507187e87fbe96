import { create, type DescMessage, type DescMethod, type DescMethodUnary } from "@bufbuild/protobuf";
import {
  Code,
  ConnectError,
  type ConnectRouter,
  type ConnectRouterOptions,
  type ContextValues,
  createContextValues,
  createHandlerContext,
  createRouterTransport,
  type HandlerContext,
  type Interceptor,
  type Transport,
  type UnaryRequest,
  type UnaryResponse,
} from "@connectrpc/connect";

type UnaryImpl = (request: unknown, context: HandlerContext) => unknown;
type UnaryNext = (req: UnaryRequest) => Promise<UnaryResponse>;

export interface DirectTransportOptions {
  /** The service's interceptors (its error boundary, its guards), as its router would run them. */
  router: ConnectRouterOptions & { interceptors?: Interceptor[] };
  /** The caller's interceptors (tracing), outermost. */
  transport?: { interceptors?: Interceptor[]; binaryOptions?: ConnectRouterOptions["binaryOptions"] };
}

/**
 * A transport to a service in the same process that hands the request and response messages over
 * instead of encoding them to the wire format and parsing them back: the same interceptors run (the
 * caller's, then the service's error boundary and guards), the handler gets a handler context with
 * the call's headers, signal, deadline and context values, and its answer is made a message of the
 * method's output as a router makes it. Errors reach the caller as the service's boundary throws them
 * (a ConnectError with the stable code in its metadata), as they would from the wire. What a caller
 * gets is the handler's message, not a copy: a caller must not change a response (none does; a
 * service's cached objects may be in it). Streaming methods (rare, never on a hot path) go through an
 * in-memory router, encoded.
 */
export function createDirectTransport(routes: (r: ConnectRouter) => void, options: DirectTransportOptions): Transport {
  const interceptors = [...(options.transport?.interceptors ?? []), ...(options.router.interceptors ?? [])];
  const chainOf = unaryChains(recordUnaryImpls(routes), interceptors);
  let streaming: Transport | undefined;
  return {
    async unary<I extends DescMessage, O extends DescMessage>(
      method: DescMethodUnary<I, O>,
      signal: AbortSignal | undefined,
      timeoutMs: number | undefined,
      header: HeadersInit | undefined,
      input: unknown,
      contextValues?: ContextValues,
    ): Promise<UnaryResponse<I, O>> {
      const req = unaryRequest(method, signal, timeoutMs, header, input, contextValues);
      try {
        return (await chainOf(method)(req)) as unknown as UnaryResponse<I, O>;
      } catch (err) {
        // What a caller over the wire would get: a ConnectError, whatever was thrown.
        throw ConnectError.from(err);
      }
    },
    stream(...args) {
      streaming ??= createRouterTransport(routes, {
        router: options.router,
        transport: { ...(options.transport ?? {}) },
      });
      return streaming.stream(...args);
    },
  } as Transport;
}

/** The unary methods' implementations the routes register, read with a router that only records them. */
function recordUnaryImpls(routes: (r: ConnectRouter) => void): Map<DescMethod, UnaryImpl> {
  const impls = new Map<DescMethod, UnaryImpl>();
  const recorder = {
    service(desc: { methods: DescMethod[] }, impl: Record<string, unknown>) {
      for (const method of desc.methods) {
        const fn = impl[method.localName];
        if (typeof fn === "function" && method.methodKind === "unary") impls.set(method, fn.bind(impl) as UnaryImpl);
      }
      return recorder;
    },
  };
  routes(recorder as unknown as ConnectRouter);
  return impls;
}

/** Each method's interceptors wrapped around its handler, built on the method's first call and kept. */
function unaryChains(impls: Map<DescMethod, UnaryImpl>, interceptors: Interceptor[]): (m: DescMethod) => UnaryNext {
  const chains = new Map<DescMethod, UnaryNext>();
  return (method) => {
    let chain = chains.get(method);
    if (chain === undefined) {
      const impl = impls.get(method) ?? unimplemented(method);
      chain = interceptors.reduceRight<UnaryNext>(
        (next, interceptor) => interceptor(next as never) as unknown as UnaryNext,
        (req) => invoke(impl, method, req),
      );
      chains.set(method, chain);
    }
    return chain;
  };
}

/** The request a router would hand the interceptors, with the caller's message made one of the input. */
function unaryRequest(
  method: DescMethodUnary,
  signal: AbortSignal | undefined,
  timeoutMs: number | undefined,
  header: HeadersInit | undefined,
  input: unknown,
  contextValues: ContextValues | undefined,
): UnaryRequest {
  return {
    stream: false,
    service: method.parent,
    method,
    requestMethod: "POST",
    url: urlOf(method),
    signal: signal ?? NEVER,
    header: new Headers(header),
    contextValues: contextValues ?? createContextValues(),
    message: create(method.input, input as never),
    timeoutMs,
  } as unknown as UnaryRequest;
}

/** Runs the handler under a handler context, its answer made a message of the method's output. */
async function invoke(impl: UnaryImpl, method: DescMethod, req: UnaryRequest): Promise<UnaryResponse> {
  const timeoutMs = (req as unknown as { timeoutMs?: number }).timeoutMs;
  const bounded = req.signal !== NEVER || timeoutMs !== undefined;
  const context = bounded
    ? createHandlerContext({
        service: method.parent,
        method,
        protocolName: "connect",
        requestMethod: "POST",
        url: req.url,
        requestSignal: req.signal,
        timeoutMs,
        requestHeader: req.header,
        contextValues: req.contextValues,
      })
    : new CallContext(method, req);
  try {
    const pending = impl(req.message, context);
    const answer = bounded ? await abortable(pending, context) : await pending;
    return {
      stream: false,
      service: method.parent,
      method,
      get header() {
        return context.responseHeader;
      },
      get trailer() {
        return context.responseTrailer;
      },
      message: create((method as DescMethodUnary).output, answer as never),
    } as UnaryResponse;
  } finally {
    (context as unknown as { abort(reason?: unknown): void }).abort();
  }
}

/**
 * The handler context of a call without a deadline or a caller's signal (almost every call): what
 * a handler may use is made when it first does (the signal, the response headers), so that a call
 * whose handler uses none of it costs no AbortController and no Headers.
 */
class CallContext implements HandlerContext {
  readonly protocolName = "connect";
  readonly requestMethod = "POST";
  readonly service: DescMethod["parent"];
  readonly url: string;
  readonly requestHeader: Headers;
  readonly values: ContextValues;
  private controller: AbortController | undefined;
  private header: Headers | undefined;
  private trailer: Headers | undefined;

  constructor(
    readonly method: DescMethod,
    req: UnaryRequest,
  ) {
    this.service = method.parent;
    this.url = req.url;
    this.requestHeader = req.header;
    this.values = req.contextValues;
  }

  get signal(): AbortSignal {
    this.controller ??= new AbortController();
    return this.controller.signal;
  }

  get responseHeader(): Headers {
    this.header ??= new Headers();
    return this.header;
  }

  get responseTrailer(): Headers {
    this.trailer ??= new Headers();
    return this.trailer;
  }

  timeoutMs(): number | undefined {
    return undefined;
  }

  /** The call ended: its signal, if a handler took it, says so. */
  abort(reason?: unknown): void {
    this.controller?.abort(reason);
  }
}

/** The handler's answer, or the call's end when its deadline passes or its caller aborts it first. */
function abortable(pending: unknown, context: HandlerContext): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const aborted = () => reject(ConnectError.from(context.signal.reason, Code.Canceled));
    if (context.signal.aborted) return aborted();
    context.signal.addEventListener("abort", aborted, { once: true });
    Promise.resolve(pending).then(resolve, reject);
  });
}

function unimplemented(method: DescMethod): UnaryImpl {
  const message = `${method.parent.typeName}.${method.name} is not implemented`;
  return () => {
    throw new ConnectError(message, Code.Unimplemented);
  };
}

const urls = new WeakMap<DescMethod, string>();
function urlOf(method: DescMethod): string {
  let url = urls.get(method);
  if (url === undefined) {
    url = `https://in-process/${method.parent.typeName}/${method.name}`;
    urls.set(method, url);
  }
  return url;
}

/** The signal of a call its caller cannot abort. */
const NEVER = new AbortController().signal;
